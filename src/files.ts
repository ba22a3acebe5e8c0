/**
 * Where the files the code reads at run time are (the GraphQL operations and
 * printed schema, the migrations, the OpenAPI document): the repository's
 * root when run from the sources, the build's folder when run from a build,
 * which copies them there at the same places (scripts/build.mjs). It is found
 * from this module's place upwards, so it holds wherever a bundle puts the
 * module.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function rootAbove(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "graphql", "operations"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no graphql/operations above ${from}: the build is incomplete`);
  }
}

/** The folder that holds graphql/, prisma/migrations and rest/openapi.json. */
export const FILES_ROOT = rootAbove(dirname(fileURLToPath(import.meta.url)));
