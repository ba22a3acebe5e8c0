/**
 * Usage recording (src/usage/recorder.ts) as operators run it: gateway
 * processes on one database, each counting what its requests used and adding
 * its counts to `usage_day` in batches. The counts must be exact across two
 * processes and a restart, the answers the lean path serves from memory
 * included; a SIGTERM loses nothing; a SIGKILL loses at most what came since
 * the last write (USAGE_FLUSH_MS).
 */
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { KeyStore } from "../../src/keys/store.js";
import { demoDatabase } from "../support/databases.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, stopGateway, waitReady } from "../support/gateway-process.js";
import { usageRows } from "../support/usage.js";

let db: Database & { url: string };
const keys: Record<"a" | "b", { id: number; key: string }> = {} as never;

beforeAll(async () => {
  db = await demoDatabase();
  const store = new KeyStore(db);
  for (const name of ["a", "b"] as const) {
    const made = await store.create({ name: `usage ${name}`, owner: "test", perMinute: 100_000, perDay: 1_000_000 });
    keys[name] = { id: made.id, key: made.key };
  }
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  await db?.close();
});

const DAYS = JSON.stringify({
  query: "query Days { universities(first: 2) { nodes { code environmentHistory(days: 3) { daily { dateLocal dateTaipei } } } } }",
});
const COURSES = `/graphql?query=${encodeURIComponent('{ courses(first: 2, q: "學") { nodes { databaseId } } }')}`;
const TOOL = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "list_universities", arguments: {} } });

/** What one round sends: REST and MCP with key a, GraphQL POST and GET with key b; each request the same every time (kept after its first). */
const ROUND = [
  (g: GatewayProcess) => request(g, "/api/v1/courses?q=%E5%AD%B8&page=1", { key: keys.a.key }),
  (g: GatewayProcess) =>
    request(g, "/mcp", {
      key: keys.a.key,
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: TOOL,
    }),
  (g: GatewayProcess) =>
    request(g, "/graphql", { key: keys.b.key, method: "POST", headers: { "content-type": "application/json" }, body: DAYS }),
  (g: GatewayProcess) => request(g, COURSES, { key: keys.b.key }),
];

/** What one round adds, by key and coordinate. */
const PER_ROUND: Record<string, number> = {
  "a /api/v1/courses": 1,
  "a /api/v1/courses?page": 1,
  "a /api/v1/courses?q": 1,
  "a /mcp (legacy)": 1,
  "a MCP list_universities": 1,
  "b /graphql": 2,
  "b Query.universities": 1,
  "b Query.universities(first:)": 1,
  "b QueryUniversitiesConnection.nodes": 1,
  "b University.code": 1,
  "b University.environmentHistory": 1,
  "b University.environmentHistory(days:)": 1,
  "b EnvironmentHistory.daily": 1,
  "b EnvironmentDay.dateLocal": 1,
  "b EnvironmentDay.dateTaipei": 1,
  "b Query.courses": 1,
  "b Query.courses(first:)": 1,
  "b Query.courses(q:)": 1,
  "b QueryCoursesConnection.nodes": 1,
  "b Course.databaseId": 1,
};

const times = (rounds: number) => Object.fromEntries(Object.entries(PER_ROUND).map(([k, n]) => [k, n * rounds]));

/** `rounds` rounds to each gateway, `concurrency` requests at a time; every answer must be a 200. */
async function load(gateways: GatewayProcess[], rounds: number, concurrency = 12): Promise<void> {
  const calls = gateways.flatMap((g) => Array.from({ length: rounds }, () => ROUND.map((send) => () => send(g))).flat());
  let next = 0;
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls.length) statuses.push((await calls[next++]!()).status);
    }),
  );
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
}

/** Every count in the table, by `key coordinate` (key a or b). */
async function counted(): Promise<Record<string, number>> {
  const sums: Record<string, number> = {};
  const name = (id: number) => (id === keys.a.id ? "a" : id === keys.b.id ? "b" : String(id));
  for (const row of await usageRows(db))
    sums[`${name(row.keyId)} ${row.coordinate}`] = (sums[`${name(row.keyId)} ${row.coordinate}`] ?? 0) + row.requests;
  return sums;
}

const start = async (name: string, env: Record<string, string>) => {
  const gateway = await startGateway(name, { DATABASE_URL: db.url, LOG_LEVEL: "warn", ...env });
  await waitReady(gateway, 180_000);
  return gateway;
};

describe("usage recording", () => {
  it("is exact across two processes and a restart under concurrent load, kept answers included; SIGTERM loses nothing", async () => {
    await db.exec("DELETE FROM usage_day");
    // One process that writes often, and one that writes only when it stops.
    let often = await start("often", { USAGE_FLUSH_MS: "200" });
    const seldom = await start("seldom", { USAGE_FLUSH_MS: "3600000" });
    await load([often, seldom], 15);
    // /metrics: operations by route, tool and root field only, whatever the document named; never a key.
    const odd = JSON.stringify({ query: "query MyOwnName { mine: courses(first: 1) { totalCount } nosuch }" });
    const refused = await request(often, "/graphql", {
      key: keys.b.key,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: odd,
    });
    expect(refused.json.errors[0].message).toMatch(/Cannot query field "nosuch"/);
    const metrics = (await request(often, "/metrics")).text;
    const operations = metrics.split("\n").filter((line) => line.startsWith("gateway_operation_uses_total{"));
    expect(operations.map((line) => line.replace(/ \d+$/, "")).sort()).toEqual([
      'gateway_operation_uses_total{surface="graphql",operation="Query.courses"}',
      'gateway_operation_uses_total{surface="graphql",operation="Query.universities"}',
      'gateway_operation_uses_total{surface="mcp",operation="MCP list_universities"}',
      'gateway_operation_uses_total{surface="rest",operation="/api/v1/courses"}',
    ]);
    expect(operations.find((line) => line.includes("/api/v1/courses"))).toMatch(/ 15$/);
    await Promise.all([stopGateway(often), stopGateway(seldom)]);
    // The refused document counted as a request of its key (its entry), and as nothing it named.
    expect(await counted()).toEqual({ ...times(30), "b /graphql": times(30)["b /graphql"]! + 1 });

    // A restart adds to the same rows.
    often = await start("often again", { USAGE_FLUSH_MS: "200" });
    await load([often], 10);
    await stopGateway(often);
    expect(await counted()).toEqual({ ...times(40), "b /graphql": times(40)["b /graphql"]! + 1 });
    const days = await db.query<{ day: string; last_at: Date }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, max(last_at) AS last_at FROM usage_day GROUP BY 1`,
    );
    expect(days).toHaveLength(1);
    expect(days[0]!.day).toBe(days[0]!.last_at.toISOString().slice(0, 10));
  }, 240_000);

  it("is exact when two processes stop at once on a machine whose every core is busy", async () => {
    await db.exec("DELETE FROM usage_day");
    const gateways = await Promise.all([start("one", { USAGE_FLUSH_MS: "100" }), start("two", { USAGE_FLUSH_MS: "100" })]);
    await load(gateways, 10);
    // Two busy processes per core, for as long as the two stop: their writes and replies wait for the CPU.
    const burners = Array.from({ length: 2 * availableParallelism() }, () =>
      spawn(process.execPath, ["-e", "for (;;);"], { stdio: "ignore" }),
    );
    try {
      await sleep(200);
      for (const gateway of gateways) process.kill(-gateway.child.pid!, "SIGTERM");
      // Each ends by itself (its own limits), however long that takes here.
      const codes = await Promise.all(gateways.map((gateway) => gateway.exited));
      expect(codes).toEqual([0, 0]);
    } finally {
      for (const burner of burners) burner.kill("SIGKILL");
    }
    expect(await counted()).toEqual(times(20));
  }, 240_000);

  it("a SIGKILL loses at most what came since the last write (USAGE_FLUSH_MS)", async () => {
    await db.exec("DELETE FROM usage_day");
    const gateway = await start("killed", { USAGE_FLUSH_MS: "300" });
    await load([gateway], 5);
    // Two intervals: the five rounds are written.
    await new Promise((resolve) => setTimeout(resolve, 700));
    await load([gateway], 3);
    process.kill(-gateway.child.pid!, "SIGKILL");
    await gateway.exited;
    const after = await counted();
    const entries = after["a /api/v1/courses"] ?? 0;
    expect(entries).toBeGreaterThanOrEqual(5);
    expect(entries).toBeLessThanOrEqual(8);
  }, 240_000);
});
