// Runs `prisma generate` on a fresh clone, offline.
//
// Generation never executes Prisma's native schema engine, but the CLI insists
// that one exists and would try to download it, which these machines cannot.
// Pointing PRISMA_SCHEMA_ENGINE_BINARY at any existing file satisfies the check;
// an operator-provided value is kept.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY || !existsSync(env.PRISMA_SCHEMA_ENGINE_BINARY)) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
}
// Generators such as prisma-pothos-types are found through node_modules/.bin.
const bin = join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", ".bin");
env.PATH = [bin, env.PATH].filter(Boolean).join(delimiter);
const cli = require.resolve("prisma/build/index.js");
// Further arguments go to `prisma generate` (`--schema`, `--generator`).
const result = spawnSync(process.execPath, [cli, "generate", ...process.argv.slice(2)], { stdio: "inherit", env });
process.exit(result.status ?? 1);
