/** Prints the OpenAPI document of the v1 contract to rest/openapi.json (`npm run openapi:print`). */
import { writeFileSync } from "node:fs";
import { commandLine } from "./args.js";
import { buildOpenApi, OPENAPI_FILE } from "../../rest/openapi.js";

commandLine({
  name: "openapi:print",
  usage: `usage: npm run openapi:print\n\nWrites the OpenAPI document of the v1 contract to ${OPENAPI_FILE}.`,
  options: {},
});

writeFileSync(OPENAPI_FILE, `${JSON.stringify(buildOpenApi(), null, 2)}\n`);
console.log(`wrote ${OPENAPI_FILE}`);
