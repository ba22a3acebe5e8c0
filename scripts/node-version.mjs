#!/usr/bin/env node
// The Node.js lines this service runs on, checked before anything else is
// loaded: `npm start` (and `uedu`) on an older Node ends in one line, exit 1,
// instead of failing later on a missing API or flag. Plain JavaScript that
// an old Node still runs, so that the refusal itself works there.
import { pathToFileURL } from "node:url";

/** The oldest Node.js release it runs on. The suite runs on Node 20, 22, 24 and 26 (.ci/run). */
export const OLDEST = [20, 19, 0];

/**
 * Why `version` (as `process.version`, `v20.19.0`) cannot run the service,
 * or undefined when it can.
 */
export function tooOld(version) {
  const parts = version.replace(/^v/, "").split(".").map(Number);
  for (let i = 0; i < OLDEST.length; i++) {
    if (parts[i] > OLDEST[i]) return undefined;
    if (parts[i] < OLDEST[i]) {
      return `Node.js ${version} is too old: this service needs Node.js ${OLDEST.join(".")} or later (its tests run on 20, 22, 24 and 26)`;
    }
  }
  return undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const why = tooOld(process.version);
  if (why) {
    process.stderr.write(`npm start: ${why}\n`);
    process.exit(1);
  }
}
