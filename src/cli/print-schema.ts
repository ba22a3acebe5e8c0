/** Prints the schema's SDL to graphql/schema.graphql (`npm run schema:print`). */
import { writeFileSync } from "node:fs";
import { SCHEMA_FILE, schemaSDL } from "../schema/sdl.js";
import { commandLine } from "./args.js";

commandLine({
  name: "schema:print",
  usage: `usage: npm run schema:print\n\nWrites the GraphQL schema's SDL to ${SCHEMA_FILE}.`,
  options: {},
});

writeFileSync(SCHEMA_FILE, schemaSDL());
console.log(`wrote ${SCHEMA_FILE}`);
