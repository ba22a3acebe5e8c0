/**
 * UsageRecorder (src/usage/recorder.ts) on a real database: batches added to
 * the same rows, a batch the primary refused kept for the next write, UTC
 * days, the bound on what is held, and the 400 days kept.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { UsageRecorder } from "../../src/usage/recorder.js";
import { freshDatabase } from "../support/databases.js";
import { putUsage, usageRows } from "../support/usage.js";

let db: Database & { url: string };
let now = 0;
const clock = () => now;
const at = (iso: string) => {
  now = Date.parse(iso);
};

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db?.close());
beforeEach(() => db.exec("DELETE FROM usage_day"));

const rows = () => usageRows(db);

describe("UsageRecorder", () => {
  it("adds each batch to the same rows, by UTC day, with the last use", async () => {
    const usage = new UsageRecorder({ db, now: clock });
    at("2026-11-28T23:59:59.500Z");
    usage.record(1, ["/graphql", "Query.universities"]);
    usage.record(1, ["/graphql"]);
    usage.record(2, ["/graphql"]);
    at("2026-11-29T00:00:00.250Z");
    usage.record(1, ["/graphql"]);
    await usage.flush();
    at("2026-11-29T08:00:00.000Z");
    usage.record(1, ["/graphql"]);
    await usage.flush();
    expect(await rows()).toEqual([
      { day: "2026-11-28", keyId: 1, coordinate: "/graphql", requests: 2, lastAt: "2026-11-28T23:59:59.500Z" },
      { day: "2026-11-28", keyId: 1, coordinate: "Query.universities", requests: 1, lastAt: "2026-11-28T23:59:59.500Z" },
      { day: "2026-11-28", keyId: 2, coordinate: "/graphql", requests: 1, lastAt: "2026-11-28T23:59:59.500Z" },
      { day: "2026-11-29", keyId: 1, coordinate: "/graphql", requests: 2, lastAt: "2026-11-29T08:00:00.000Z" },
    ]);
  });

  it("keeps a batch the primary refused and adds it with the next; nothing is written twice", async () => {
    let refuse = true;
    const flaky: Pick<Database, "query"> = {
      query: (sql, params) =>
        refuse ? Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })) : db.query(sql, params),
    };
    const warnings: string[] = [];
    const usage = new UsageRecorder({
      db: flaky,
      now: clock,
      log: { warn: (_: unknown, message?: string) => void warnings.push(message ?? "") },
    });
    at("2026-11-29T10:00:00.000Z");
    usage.record(1, ["/graphql"]);
    await usage.flush();
    usage.record(1, ["/graphql"]);
    await usage.flush();
    expect(await rows()).toEqual([]);
    expect(warnings).toEqual(["writing the usage counts failed; they are kept for the next write"]);
    refuse = false;
    usage.record(1, ["/graphql"]);
    await usage.flush();
    await usage.flush();
    expect((await rows()).map((r) => r.requests)).toEqual([3]);
  });

  it("holds at most maxPending counts while the primary refuses them, and says it dropped some, once", async () => {
    const refused: Pick<Database, "query"> = { query: () => Promise.reject(new Error("down")) };
    const warnings: string[] = [];
    const usage = new UsageRecorder({
      db: refused,
      maxPending: 2,
      now: clock,
      log: { warn: (_: unknown, m?: string) => void warnings.push(m ?? "") },
    });
    at("2026-11-29T10:00:00.000Z");
    usage.record(1, ["/graphql", "Query.a", "Query.b", "Query.c"]);
    usage.record(1, ["/graphql", "Query.a"]);
    await usage.flush();
    expect(warnings).toContain("usage counts dropped: the primary has not taken them for a while");
    expect(warnings.filter((w) => w.startsWith("usage counts dropped"))).toHaveLength(1);
  });

  it("close writes what was counted since the last write, and counts nothing after", async () => {
    const usage = new UsageRecorder({ db, now: clock, flushMs: 3_600_000 });
    usage.start();
    at("2026-11-29T10:00:00.000Z");
    usage.record(5, ["/mcp (modern)", "MCP list_courses"]);
    await usage.close();
    usage.record(5, ["/mcp (modern)"]);
    await usage.flush();
    expect((await rows()).map((r) => [r.coordinate, r.requests])).toEqual([
      ["/mcp (modern)", 1],
      ["MCP list_courses", 1],
    ]);
  });

  it("deletes the days older than 400", async () => {
    await putUsage(
      db,
      ["2025-10-24", "2025-10-25", "2026-11-29"].map((day) => ({
        day,
        keyId: 1,
        coordinate: "/graphql",
        requests: 1,
        lastAt: `${day}T12:00:00.000Z`,
      })),
    );
    at("2026-11-29T10:00:00.000Z");
    await new UsageRecorder({ db, now: clock }).sweep();
    expect((await rows()).map((r) => r.day)).toEqual(["2025-10-25", "2026-11-29"]);
  });
});
