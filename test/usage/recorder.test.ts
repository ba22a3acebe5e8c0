/**
 * UsageRecorder (src/usage/recorder.ts) on a real database: batches added to
 * the same rows, a batch the primary refused kept for the next write, a
 * batch sent again after its reply was lost counted once, UTC days, the bound
 * on what is held, the last write at close tried again, and what is kept.
 */
import pg from "pg";
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
beforeEach(() => db.exec("DELETE FROM usage_day; DELETE FROM usage_batch"));

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

  it("counts a batch once when its reply is lost after the commit (a client-side timeout), and sends it again before newer counts", async () => {
    let lose = 1;
    const adds: string[] = [];
    // The statement runs and commits on the server; the client then gives up on its reply, as pg's query_timeout does.
    const late: Pick<Database, "query"> = {
      query: async <Row>(sql: string, params?: unknown[]) => {
        const result = await db.query<Row>(sql, params);
        if (sql.includes("INSERT INTO usage_day")) {
          adds.push(String(params?.[5]));
          if (lose-- > 0) throw new Error("Query read timeout");
        }
        return result;
      },
    };
    const warnings: string[] = [];
    const usage = new UsageRecorder({ db: late, now: clock, log: { warn: (_: unknown, m?: string) => void warnings.push(m ?? "") } });
    at("2026-11-29T10:00:00.000Z");
    usage.record(1, ["/graphql", "Query.universities"]);
    await usage.flush();
    expect(warnings).toEqual(["writing the usage counts failed; they are kept for the next write"]);
    at("2026-11-29T10:00:05.000Z");
    usage.record(1, ["/graphql"]);
    await usage.flush();
    // The lost batch went again with its id (and added nothing), then the newer counts in a batch of their own.
    expect(adds).toHaveLength(3);
    expect(adds[1]).toBe(adds[0]);
    expect(adds[2]).not.toBe(adds[0]);
    expect((await rows()).map((r) => [r.coordinate, r.requests, r.lastAt])).toEqual([
      ["/graphql", 2, "2026-11-29T10:00:05.000Z"],
      ["Query.universities", 1, "2026-11-29T10:00:00.000Z"],
    ]);
    expect(await db.query("SELECT id FROM usage_batch ORDER BY written_at")).toHaveLength(2);
  });

  it("a second try of a batch whose first is still running on the server waits for it, and adds nothing once it commits", async () => {
    // The first try: the client gives up on it at once, while its statement runs on in a transaction of its own.
    let first: { sql: string; params: unknown[] } | undefined;
    const recorderDb: Pick<Database, "query"> = {
      query: (sql, params) => {
        if (!first && sql.includes("INSERT INTO usage_day")) {
          first = { sql, params: params ?? [] };
          return Promise.reject(new Error("Query read timeout"));
        }
        return db.query(sql, params);
      },
    };
    const usage = new UsageRecorder({ db: recorderDb, now: clock });
    at("2026-11-29T10:00:00.000Z");
    usage.record(3, ["/graphql"]);
    await usage.flush();
    const running = new pg.Client({ connectionString: db.url });
    await running.connect();
    try {
      await running.query("BEGIN");
      await running.query(first!.sql, first!.params);
      let settled = false;
      const second = usage.flush().then(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false);
      await running.query("COMMIT");
      await second;
    } finally {
      await running.end();
    }
    expect((await rows()).map((r) => r.requests)).toEqual([1]);
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

  it("close tries the last write again until the primary takes it, within closeMs; past it, says so and ends", async () => {
    let refusals = 3;
    const flaky: Pick<Database, "query"> = {
      query: (sql, params) =>
        refusals-- > 0 ? Promise.reject(new Error("timeout exceeded when trying to connect")) : db.query(sql, params),
    };
    const usage = new UsageRecorder({ db: flaky, now: clock, flushMs: 3_600_000, closeMs: 5_000 });
    usage.start();
    at("2026-11-29T10:00:00.000Z");
    usage.record(5, ["/api/v1/courses"]);
    await usage.close();
    expect((await rows()).map((r) => [r.coordinate, r.requests])).toEqual([["/api/v1/courses", 1]]);

    const warnings: string[] = [];
    const away = new UsageRecorder({
      db: { query: () => Promise.reject(new Error("connect ECONNREFUSED")) },
      now: clock,
      closeMs: 400,
      log: { warn: (_: unknown, m?: string) => void warnings.push(m ?? "") },
    });
    away.record(5, ["/api/v1/courses"]);
    const started = Date.now();
    await away.close();
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(warnings).toContain("the last usage counts could not be written");
  });

  it("deletes the days older than 400, and the batch ids older than 7", async () => {
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
    await db.query(
      `INSERT INTO usage_batch (id, written_at) VALUES (gen_random_uuid(), '2026-11-22T09:59:59Z'), (gen_random_uuid(), '2026-11-22T10:00:01Z')`,
    );
    await new UsageRecorder({ db, now: clock }).sweep();
    expect((await rows()).map((r) => r.day)).toEqual(["2025-10-25", "2026-11-29"]);
    // A batch's id is kept 7 days.
    expect(await db.query("SELECT to_char(written_at AT TIME ZONE 'UTC', 'HH24:MI:SS') AS at FROM usage_batch")).toEqual([
      { at: "10:00:01" },
    ]);
  });
});
