// `npm run build`: compiles src/ and rest/ to dist/ (tsconfig.build.json),
// and copies beside them the files they read at run time, at the same
// relative places: the migrations, the GraphQL operations and printed schema,
// and the OpenAPI document. `node dist/src/main.js` then needs no TypeScript.
import { spawnSync } from "node:child_process";
import { cpSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const USAGE = `usage: npm run build

Compiles src/ and rest/ to dist/ with the files they read at run time;
then node dist/src/main.js serves with no TypeScript tooling.`;
// As every command (src/cli/args.ts): --help answers, anything else is a usage error.
const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
try {
  parseArgs({ args, options: {}, strict: true });
} catch (error) {
  process.stderr.write(`build: ${error.message}\n${USAGE}\n`);
  process.exit(2);
}

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const compiled = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { stdio: "inherit" });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
for (const asset of ["prisma/migrations", "graphql", "rest/openapi.json"]) {
  cpSync(join(root, asset), join(dist, asset), { recursive: true });
}
process.stdout.write(`built ${dist}\n`);
