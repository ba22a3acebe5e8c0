#!/usr/bin/env node
// `uedu <command> [arguments]`: the gateway and its commands from any
// directory, as `npm start` and `npm run <command>` run them in this one.
// It runs the built JavaScript (npm run build) when there is some, and the
// TypeScript sources through tsx otherwise.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { tooOld } from "../scripts/node-version.mjs";

const ENTRIES = {
  start: "main",
  keys: "cli/keys",
  usage: "cli/usage",
  import: "cli/import",
  "demo-data": "cli/demo-data",
  "db:migrate": "cli/migrate",
  "db:backup": "cli/backup",
  "db:restore": "cli/restore",
  "db:carry-over": "cli/carry-over",
  "db:grants": "cli/grants",
  "mcp:stdio": "mcp/stdio",
};
const USAGE = `usage: uedu <command> [arguments]   (uedu <command> --help for its own usage)

commands: ${Object.keys(ENTRIES).join(", ")}`;

const [command, ...args] = process.argv.slice(2);
if (command === "--help" || command === "-h") {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const entry = ENTRIES[command ?? ""];
if (!entry) {
  process.stderr.write(`uedu: ${command ? `unknown command ${JSON.stringify(command)}` : "give a command"}\n${USAGE}\n`);
  process.exit(2);
}
const old = tooOld(process.version);
if (old) {
  process.stderr.write(`uedu ${command}: ${old}\n`);
  process.exit(1);
}
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const built = join(root, "dist", "src", `${entry}.js`);
process.argv = [process.argv[0], built, ...args];
if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(join(root, "src", `${entry}.ts`)).href);
}
