/** The printed SDL of the schema and where it is committed. */
import { join } from "node:path";
import { lexicographicSortSchema, printSchema } from "graphql";
import { schema } from "./index.js";
import { FILES_ROOT } from "../files.js";

export const SCHEMA_FILE = join(FILES_ROOT, "graphql", "schema.graphql");

export function schemaSDL(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
