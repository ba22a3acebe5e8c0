// `npm run build`: compiles src/ and rest/ to dist/ (tsconfig.build.json),
// and copies beside them the files they read at run time, at the same
// relative places: the migrations, the GraphQL operations and printed schema,
// and the OpenAPI document. `node dist/src/main.js` then needs no TypeScript.
// `--out DIR` builds into another folder of the repository instead (the test
// run's global setup builds its own, test/support/built.ts).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const USAGE = `usage: npm run build [-- --out DIR] [--no-check]

Compiles src/ and rest/ to dist/ with the files they read at run time;
then node dist/src/main.js serves with no TypeScript tooling.

  --out DIR   build into DIR instead of dist/: a folder inside the repository
              (the compiled code finds node_modules above it), replaced whole
  --no-check  emit without checking types (in a third of the time), for a
              build whose sources were just checked: npm test's own`;
// As every command (src/cli/args.ts): --help answers, anything else is a usage error.
const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const usageError = (message) => {
  process.stderr.write(`build: ${message}\n${USAGE}\n`);
  process.exit(2);
};
let out = "dist";
let check = true;
try {
  const { values } = parseArgs({ args, options: { out: { type: "string" }, "no-check": { type: "boolean" } }, strict: true });
  out = values.out ?? out;
  check = !values["no-check"];
} catch (error) {
  usageError(error.message);
}

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = resolve(root, out);
// Replaced whole: a folder inside the repository that is dist/, new, or an earlier build (it has MARKER).
const MARKER = ".built-by-npm-run-build";
const inside = relative(root, dist);
if (!inside || inside.startsWith("..") || isAbsolute(inside)) usageError(`--out ${out} is not a folder inside the repository`);
if (inside !== "dist" && existsSync(dist) && readdirSync(dist).length > 0 && !existsSync(join(dist, MARKER))) {
  usageError(`--out ${out} holds files that no build wrote; name a new folder`);
}
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const compiled = spawnSync(
  process.execPath,
  [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", dist, ...(check ? [] : ["--noCheck"])],
  { stdio: "inherit" },
);
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
for (const asset of ["prisma/migrations", "graphql", "rest/openapi.json"]) {
  cpSync(join(root, asset), join(dist, asset), { recursive: true });
}
writeFileSync(join(dist, MARKER), "");
process.stdout.write(`built ${dist}\n`);
