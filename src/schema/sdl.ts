/** The printed SDL of the schema and where it is committed. */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { lexicographicSortSchema, printSchema } from "graphql";
import { schema } from "./index.js";

export const SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "graphql", "schema.graphql");

export function schemaSDL(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
