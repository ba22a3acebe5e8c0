/**
 * Issue 8, findings 2 and 3: the gateway process ended when PostgreSQL
 * restarted, and nothing timed out while it was frozen. Here `npm start`'s
 * process runs on a private PostgreSQL that the test restarts under load,
 * stops and freezes. The process must stay up; while the database cannot
 * answer, every surface says 503 in its own shape (with `Retry-After`),
 * `/readyz` says so within 1 s, and service comes back by itself within 2 s
 * of the database's return.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyStore } from "../../src/keys/store.js";
import { UNAVAILABLE_MESSAGE } from "../../src/db/availability.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { type Answer, type GatewayProcess, request, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";
import { type PrivateServer, startPostgres } from "../support/servers.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const GRAPHQL = JSON.stringify({ query: "{ universities(first: 1) { totalCount } }" });
const MCP_CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "list_universities", arguments: {} },
});
/** Tight limits, so that the test waits little (the defaults are documented in the README). */
const LIMITS = {
  DB_STATEMENT_TIMEOUT_MS: "1000",
  DB_ACQUIRE_TIMEOUT_MS: "500",
  REQUEST_TIMEOUT_MS: "1500",
  RATE_LIMIT_PER_MINUTE: "1000000", // the load below is one key's
};

let server: PrivateServer;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let gateway: GatewayProcess;
let store: KeyStore;
/** A key verified less than 3 s ago, so cached: its requests reach the operations without a lookup. */
let warm: string;

beforeAll(async () => {
  server = await startPostgres();
  db = await freshDatabase(server.url);
  await importObject(db, canaryExport());
  store = new KeyStore(db);
  warm = (await store.create({ name: "warm" })).key;
  // The answer cache is on (its listening connection must survive the faults too), but holds
  // answers 1 ms: every request here must reach the database, which is what is under test.
  gateway = await startGateway("gateway on a private PostgreSQL", {
    DATABASE_URL: db.url,
    LOG_LEVEL: "warn",
    RESPONSE_CACHE_MS: "1",
    ...LIMITS,
  });
  await waitReady(gateway);
  listeners = await listening();
  // The keys', the answer cache's and the environment snapshots' LISTENs, on one connection (src/db/listening.ts).
  expect(listeners).toBe(1);
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  await db?.close().catch(() => undefined);
  await server?.destroy();
});

/** The gateway's LISTEN connections once it is ready: each one that resumes after a fault empties the key cache. */
let listeners: number;
const listening = async () =>
  (
    await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`,
    )
  )[0]!.n;
/** Waits until every LISTEN connection the gateway had is back. */
async function listenersBack(within = 60_000): Promise<void> {
  const deadline = Date.now() + within;
  while ((await listening()) < listeners) {
    if (Date.now() > deadline) throw new Error(`the gateway's ${listeners} LISTEN connections did not come back:\n${gateway.output()}`);
    await sleep(100);
  }
}

/** A key the gateway has not seen: checking it needs the database (create it while the database is up). */
const freshKey = async () => (await store.create({ name: "fresh" })).key;

const rest = (k = warm) => request(gateway, "/api/v1/universities", { key: k, timeoutMs: 10_000 });
/** POSTs JSON to `path` with key `k`, accepting `accept`. */
const post =
  (path: string, body: string, accept: string) =>
  (k: string = warm) =>
    request(gateway, path, { key: k, method: "POST", headers: { "content-type": "application/json", accept }, body, timeoutMs: 10_000 });
const graphql = post("/graphql", GRAPHQL, "application/json");
const mcp = post("/mcp", MCP_CALL, "application/json, text/event-stream");

/** A REST answer is either the data or the 503 of docs/contract.md §2: nothing else. */
function expectRestShape(answer: Answer): void {
  expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
  if (answer.status === 200) {
    expect(answer.json).toMatchObject({ success: true, total: expect.any(Number) });
    return;
  }
  expect(answer.status, answer.text).toBe(503);
  expect(answer.json).toEqual({ success: false, error: UNAVAILABLE_MESSAGE });
  expect(answer.headers.get("retry-after")).toMatch(/^\d+$/);
}

function expectGraphQLUnavailable(answer: Answer): void {
  expect(answer.status, answer.text).toBe(503);
  expect(answer.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(answer.json.errors[0]).toMatchObject({ message: UNAVAILABLE_MESSAGE, extensions: { code: "SERVICE_UNAVAILABLE" } });
}

/** Polls until a REST request succeeds; returns how long it took. */
async function recovery(within = 10_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < within) {
    const answer = await rest();
    expectRestShape(answer);
    if (answer.status === 200) return Date.now() - started;
    await sleep(50);
  }
  throw new Error(`no recovery within ${within} ms:\n${gateway.output()}`);
}

describe("PostgreSQL restarted under load", () => {
  it("the process stays up, every answer is data or a 503 in shape, and service returns within 2 s", async () => {
    expect((await rest()).status).toBe(200);
    let loading = true;
    const answers: Answer[] = [];
    const failures: string[] = [];
    const load = Array.from({ length: 4 }, async (_, i) => {
      while (loading) {
        try {
          answers.push(await [rest, graphql, mcp, rest][i]!());
        } catch (error) {
          failures.push(String((error as Error).cause ?? error)); // a dropped connection, a timeout
        }
      }
    });
    let back: number;
    try {
      await sleep(300);
      await server.restart();
      back = await recovery();
    } finally {
      loading = false;
      await Promise.all(load);
    }

    expect(failures).toEqual([]);
    expect(gateway.alive, gateway.output()).toBe(true);
    expect(back).toBeLessThan(2_000);
    expect(answers.length).toBeGreaterThan(10);
    for (const answer of answers) {
      expect(answer.status, answer.text).not.toBe(500);
      expect(answer.text).not.toMatch(/node_modules|at \w+ \(|Error:/);
    }
  });
});

describe("PostgreSQL stopped", () => {
  it("REST, GraphQL, MCP and the key check answer 503 in their own shapes, and /readyz within 1 s", async () => {
    const unseen = await Promise.all([freshKey(), freshKey(), freshKey()]);
    expect((await rest(warm)).status).toBe(200);
    await server.stop();
    const stoppedAt = Date.now();
    try {
      // A key verified just now (cached) reaches the operation itself.
      const operation = await rest(warm);
      expectRestShape(operation);
      expect(operation.status).toBe(503);

      // A key not seen yet needs the database to be checked: 503, not 401 or 500.
      const check = await rest(unseen[0]);
      expectRestShape(check);
      expect(check.status).toBe(503);
      expectGraphQLUnavailable(await graphql(unseen[1]));
      const mcpRefused = await mcp(unseen[2]);
      expect(mcpRefused.status).toBe(503);
      expect(mcpRefused.json).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32000, message: UNAVAILABLE_MESSAGE } });

      // Readiness is reused for 1 s: within 1 s of the stop it must say so, and quickly.
      await sleep(Math.max(0, stoppedAt + 1_000 - Date.now()));
      const ready = await request(gateway, "/readyz");
      expect(ready.ms).toBeLessThan(1_000);
      expect(ready.status).toBe(503);
      expect((await request(gateway, "/healthz")).status).toBe(200);
      expect(gateway.alive, gateway.output()).toBe(true);
    } finally {
      await server.start();
    }
    expect(await recovery()).toBeLessThan(2_000);
  });
});

describe("PostgreSQL frozen", () => {
  it("requests end in 503 within the time limit instead of hanging, /readyz within 1 s; it recovers on thaw", async () => {
    const k = warm;
    const unseen = await freshKey();
    expect((await rest(k)).status).toBe(200);
    server.freeze();
    const frozenAt = Date.now();
    try {
      const [restAnswer, graphqlAnswer, ready] = await Promise.all([
        rest(k),
        graphql(k),
        // Readiness is reused for 1 s: within 1 s of the freeze it must say so, and quickly.
        sleep(1_000).then(() => request(gateway, "/readyz")),
      ]);
      expectRestShape(restAnswer);
      expect(restAnswer.status).toBe(503);
      expect(restAnswer.ms).toBeLessThan(2_500); // REQUEST_TIMEOUT_MS 1,500 and a margin
      expectGraphQLUnavailable(graphqlAnswer);
      expect(graphqlAnswer.ms).toBeLessThan(2_500);
      expect(ready.status).toBe(503);
      expect(ready.ms).toBeLessThan(1_000);
      expect(Date.now() - frozenAt).toBeLessThan(2_500);
      // Nothing waits without a limit: a new key's check ends too.
      const fresh = await rest(unseen);
      expect(fresh.status).toBe(503);
      expect(fresh.ms).toBeLessThan(2_500);
      expect(gateway.alive).toBe(true);
    } finally {
      server.thaw();
    }
    expect(await recovery()).toBeLessThan(2_000);
  });

  it("an MCP tool call with a key checked just before is a tool error carrying the REST 503 body", async () => {
    // The key's check must come from the gateway's cache (3 s), so the test holds the cache still: every
    // LISTEN connection of the gateway is back (one that resumes empties the cache, and the test above
    // dropped them all), the key is new (so it is looked up now, not 2.9 s ago), and PostgreSQL is
    // frozen rather than stopped (its connections stay open, so nothing resumes during the call).
    await listenersBack();
    const k = await freshKey();
    expect((await mcp(k)).status).toBe(200);
    server.freeze();
    let answer: Answer;
    try {
      answer = await mcp(k);
    } finally {
      server.thaw();
    }
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.result).toMatchObject({
      isError: true,
      structuredContent: { success: false, error: UNAVAILABLE_MESSAGE },
    });
    expect(await recovery()).toBeLessThan(2_000);
  });
});
