/** Prints the schema's SDL to graphql/schema.graphql (`npm run schema:print`). */
import { writeFileSync } from "node:fs";
import { SCHEMA_FILE, schemaSDL } from "../schema/sdl.js";

writeFileSync(SCHEMA_FILE, schemaSDL());
console.log(`wrote ${SCHEMA_FILE}`);
