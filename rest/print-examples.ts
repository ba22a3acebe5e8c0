/** Writes rest/examples.json from the demo data (`npm run openapi:examples`); then `npm run openapi:print`. */
import { writeFileSync } from "node:fs";
import { commandLine } from "../src/cli/args.js";
import { EXAMPLES_FILE } from "./example-file.js";
import { collectExamples } from "./examples.js";

commandLine({
  name: "openapi:examples",
  usage: `usage: npm run openapi:examples\n\nWrites an example answer of each REST operation, from the demo data, to ${EXAMPLES_FILE}.`,
  options: {},
});

writeFileSync(EXAMPLES_FILE, `${JSON.stringify(await collectExamples(), null, 2)}\n`);
console.log(`wrote ${EXAMPLES_FILE}`);
