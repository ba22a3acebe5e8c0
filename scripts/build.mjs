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
