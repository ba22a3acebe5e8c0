/**
 * `npm run usage` (src/cli/commands/usage.ts) on a database whose usage_day
 * holds known rows: what it lists, for whom, since when, and in JSON; and the
 * usage commands the pages show (README.md, docs/usage.md), run as written.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { KeyStore } from "../../src/keys/store.js";
import { daysBefore } from "../../src/usage/report.js";
import { cli } from "../support/cli.js";
import { freshDatabase } from "../support/databases.js";
import { tempDir } from "../support/temp.js";
import { putUsage } from "../support/usage.js";

let db: Database;
let ids: { app: number; script: number };
const today = daysBefore(new Date(), 0);
const longAgo = daysBefore(new Date(), 45);
const usage = (args: string[]) => cli(tempDir("usage-cli-"), "usage", args, { env: { DATABASE_URL: db.url } });

beforeAll(async () => {
  db = await freshDatabase();
  const keys = new KeyStore(db);
  ids = { app: (await keys.create({ name: "web app", owner: "frontend" })).id, script: (await keys.create({ name: "nightly script" })).id };
  const row = (day: string, keyId: number, coordinate: string, requests: number, time: string) => ({
    day,
    keyId,
    coordinate,
    requests,
    lastAt: `${day}T${time}:00.000Z`,
  });
  await putUsage(db, [
    row(today, ids.app, "/graphql", 7, "10:00"),
    row(today, ids.app, "EnvironmentDay.dateTaipei", 5, "10:00"),
    row(today, ids.script, "/api/v1/courses", 2, "09:00"),
    row(today, ids.script, "/api/v1/courses?q", 1, "08:00"),
    row(longAgo, ids.script, "EnvironmentDay.dateTaipei", 40, "12:00"),
    row(longAgo, ids.script, "Query.papers", 3, "12:00"),
  ]);
}, 60_000);
afterAll(() => db?.close());

describe("npm run usage", () => {
  it("lists the coordinates used in the last 30 days, most requests first, the deprecated ones said", async () => {
    const run = await usage([]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n").filter((l) => /^\s+\d/.test(l));
    expect(lines.map((l) => l.trim().split(/\s+/).slice(0, 2).concat(l.trim().split(/\s+/).slice(3)).join(" "))).toEqual([
      "7 1 /graphql",
      "5 1 EnvironmentDay.dateTaipei (deprecated)",
      "2 1 /api/v1/courses",
      "1 1 /api/v1/courses?q",
    ]);
    expect(run.stdout).not.toContain("Query.papers");
  });

  it("--deprecated: every deprecated coordinate, with the keys that used it and its last use; --since reaches further back", async () => {
    const recent = await usage(["--deprecated", "--json"]);
    expect(JSON.parse(recent.stdout).deprecated).toContainEqual({
      coordinate: "EnvironmentDay.dateTaipei",
      reason: "Use dateLocal.",
      requests: 5,
      lastUsed: `${today}T10:00:00.000Z`,
      keys: [{ keyId: ids.app, name: "web app", owner: "frontend", requests: 5, lastUsed: `${today}T10:00:00.000Z` }],
    });
    const text = await usage(["--deprecated", "--since", longAgo]);
    expect(text.stdout).toContain(`EnvironmentDay.dateTaipei: Use dateLocal.\n  45 requests by 2 keys, last ${today}T10:00:00.000Z\n`);
    expect(text.stdout).toContain(`  key ${ids.script} "nightly script": 40 requests, last ${longAgo}T12:00:00.000Z\n`);
  });

  it("--key and --coordinate narrow it; --json is one document", async () => {
    const mine = JSON.parse((await usage(["--key", String(ids.script), "--json"])).stdout);
    expect(mine.coordinates.map((c: { coordinate: string }) => c.coordinate)).toEqual(["/api/v1/courses", "/api/v1/courses?q"]);
    const one = JSON.parse((await usage(["--coordinate", "EnvironmentDay.dateTaipei", "--days", "400", "--json"])).stdout);
    expect(one.coordinates).toEqual([
      { coordinate: "EnvironmentDay.dateTaipei", requests: 45, keys: 2, lastUsed: `${today}T10:00:00.000Z`, deprecated: true },
    ]);
    expect(one.keys.map((k: { keyId: number; requests: number }) => [k.keyId, k.requests])).toEqual([
      [ids.script, 40],
      [ids.app, 5],
    ]);
  });

  it.each([
    [["--since", "2026-02-30"], /--since must be a date like/],
    [["--days", "0"], /--days must be an integer from 1 to 400/],
    [["--since", "2026-01-01", "--days", "3"], /give --since or --days, not both/],
    [["--key", "abc"], /--key must be a key's id/],
  ])("refuses %j with exit 2, the problem and the usage", async (args, problem) => {
    const run = await usage(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(problem);
    expect(run.stderr).toContain("usage: npm run usage");
  });
});

/** The `npm run usage` and `npm run contracts:check` lines of the pages' sh blocks (test/docs.test.ts leaves them here). */
const DOCUMENTED = ["README.md", "docs/usage.md"].flatMap((page) =>
  [...readFileSync(join(import.meta.dirname, "..", "..", page), "utf8").matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((block) =>
    block[1]!
      .split("\n")
      .filter((line) => /^npm run (usage|contracts:check) -- /.test(line))
      .map((line) => [page, line] as const),
  ),
);

describe("the usage commands the pages show", () => {
  it("are there", () => {
    expect(DOCUMENTED.map(([, line]) => line)).toEqual(
      expect.arrayContaining(["npm run usage -- --deprecated", "npm run contracts:check -- --usage"]),
    );
  });

  it.each(DOCUMENTED)("%s: %s runs as written, and says what it found", async (_page, line) => {
    const [, script, rest] = /^npm run (\S+) -- (.*)$/.exec(line)!;
    const args = rest!.split(" ");
    if (script === "usage") {
      const run = await usage(args);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/EnvironmentDay\.dateTaipei|requests|nothing used/);
      return;
    }
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/contracts/check.ts", ...args], {
      cwd: join(import.meta.dirname, "..", ".."),
      env: { ...process.env, DATABASE_URL: db.url },
      timeout: 60_000,
    });
    expect(stdout).toMatch(/none refused, against the use since/);
  });
});
