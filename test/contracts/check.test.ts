/**
 * `npm run contracts:check` (scripts/contracts/check.ts): the guard as a
 * command, with usage exported by `npm run usage -- --json` and trusted
 * documents; its rules are test/contracts/contracts.test.ts's.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/sha256.js";
import { daysBefore } from "../../src/usage/report.js";
import { tempDir } from "../support/temp.js";

const ROOT = join(import.meta.dirname, "..", "..");
const dir = tempDir("contracts-check-");

async function check(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/contracts/check.ts", ...args], {
    cwd: ROOT,
    timeout: 60_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe("npm run contracts:check", () => {
  it("passes the current contracts, with usage exported by npm run usage -- --json", async () => {
    const file = join(dir, "usage.json");
    const since = daysBefore(new Date(), 29);
    const lastUsed = new Date().toISOString();
    writeFileSync(
      file,
      JSON.stringify({
        since,
        coordinates: [{ coordinate: "EnvironmentDay.dateTaipei", requests: 3, keys: 1, lastUsed, deprecated: true }],
      }),
    );
    const run = await check(["--usage-file", file]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(
      new RegExp(`^contracts:check: \\d+ change\\(s\\) since the released contracts, none refused, against the use since ${since}\\n$`),
    );
  });

  it("refuses, naming its hash and operation, a trusted document the current schema would not run: exit 1", async () => {
    const gone = "query Gone { universities { nodes { code wholeHistory } } }";
    const kept = "query Kept { universities { nodes { code } } }";
    const file = join(dir, "persisted.json");
    writeFileSync(file, JSON.stringify({ [sha256Hex(gone)]: gone, [sha256Hex(kept)]: kept }));
    const run = await check(["--trusted-documents", file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `trusted document ${sha256Hex(gone)} (query Gone): Cannot query field "wholeHistory" on type "University".\ncontracts:check: 1 refused\n`,
    );
  });

  it("refuses an export that starts after the window, in one line: exit 1", async () => {
    const file = join(dir, "late.json");
    writeFileSync(file, JSON.stringify({ since: daysBefore(new Date(), 0), coordinates: [] }));
    const run = await check(["--usage-file", file, "--days", "7"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^contracts:check failed: USAGE_FILE \S+ starts on \d{4}-\d\d-\d\d, after \d{4}-\d\d-\d\d: export it with --since \S+ or earlier\n$/,
    );
  });
});
