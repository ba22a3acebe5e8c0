#!/usr/bin/env node
// `npm start`: the gateway as production runs it, from the built JavaScript
// of dist/ (no TypeScript tooling in the process: under tsx it held about 90
// MiB more), built first when the sources changed since (scripts/built.mjs).
// Its settings are read by dist/src/main.js, in this process; a command line
// (`--help`, or a mistake) is answered from the sources without a build.
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ensureBuilt } from "./built.mjs";
import { tooOld } from "./node-version.mjs";

const why = tooOld(process.version);
if (why) {
  process.stderr.write(`npm start: ${why}\n`);
  process.exit(1);
}
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// `npm start` takes no arguments: any is `--help` or a mistake, which src/main.ts answers with its
// usage before it loads the gateway. It is read from the sources (through tsx), so that asking
// builds nothing.
if (process.argv.length > 2) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(join(root, "src", "main.ts")).href);
} else {
  try {
    ensureBuilt(root, (what) => process.stdout.write(`npm start: ${what}\n`));
  } catch (error) {
    process.stderr.write(`npm start: ${error.message}\n`);
    process.exit(error.exitCode ?? 1);
  }
  const main = join(root, "dist", "src", "main.js");
  process.argv = [process.argv[0], main];
  await import(pathToFileURL(main).href);
}
