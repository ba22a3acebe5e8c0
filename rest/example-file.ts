/** The committed example answers (rest/examples.json, written by `npm run openapi:examples`; see src/cli/rest-examples.ts). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FILES_ROOT } from "../src/files.js";

export const EXAMPLES_FILE = join(FILES_ROOT, "rest", "examples.json");

/** One operation's example: the request it answers, and the answer's body. */
export interface Example {
  request: string;
  body: unknown;
}

/** The committed examples, by operation document name. */
export function committedExamples(): Record<string, Example> {
  return JSON.parse(readFileSync(EXAMPLES_FILE, "utf8")) as Record<string, Example>;
}
