/** Prints the OpenAPI document of the v1 contract to rest/openapi.json (`npm run openapi:print`). */
import { writeFileSync } from "node:fs";
import { buildOpenApi, OPENAPI_FILE } from "./openapi.js";

writeFileSync(OPENAPI_FILE, `${JSON.stringify(buildOpenApi(), null, 2)}\n`);
console.log(`wrote ${OPENAPI_FILE}`);
