/** The committed example answers (rest/examples.json, written by `npm run openapi:examples`; see src/cli/rest-examples.ts). */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const EXAMPLES_FILE = join(dirname(fileURLToPath(import.meta.url)), "examples.json");

/** One operation's example: the request it answers, and the answer's body. */
export interface Example {
  request: string;
  body: unknown;
}

/** The committed examples, by operation document name. */
export function committedExamples(): Record<string, Example> {
  return JSON.parse(readFileSync(EXAMPLES_FILE, "utf8")) as Record<string, Example>;
}
