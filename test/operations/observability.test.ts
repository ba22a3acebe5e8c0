/**
 * What an operator sees of a running gateway (`npm start`'s entry in a
 * process of its own, on a private PostgreSQL, its log captured): one JSON
 * line per request with its id, outcome and key id (never the key, never the
 * value of `q`); an `X-Request-Id` on every kind of answer; counters that
 * move at `/metrics` (or on METRICS_PORT alone); compression and 304s. (A
 * SIGTERM under load: test/operations/shutdown.test.ts.)
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyStore } from "../../src/keys/store.js";
import { awayFromMinuteBoundary } from "../support/clock.js";
import { freshDatabase } from "../support/databases.js";
import { freePorts } from "../support/servers.js";
import {
  type GatewayProcess,
  request,
  settledOutput,
  startGateway,
  stopAllGateways,
  stopGateway,
  waitReady,
} from "../support/gateway-process.js";
import { parseResponse } from "../support/socket.js";

let gateway: GatewayProcess;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let key: string;
let tightKey: string;

beforeAll(async () => {
  db = await freshDatabase();
  gateway = await startGateway("observed", {
    DATABASE_URL: db.url,
    LOG_LEVEL: "info",
    RATE_LIMIT_PER_MINUTE: "100000",
    RATE_LIMIT_PER_DAY: "1000000",
  });
  await waitReady(gateway, 180_000);
  const keys = new KeyStore(db);
  key = (await keys.create({ name: "observed", owner: "test" })).key;
  tightKey = (await keys.create({ name: "tight", owner: "test", perMinute: 1 })).key;
}, 240_000);

afterAll(async () => {
  await stopAllGateways();
  await db?.close();
});

/** The request lines of the log so far, by request id. */
function logLines(): Map<string, Record<string, unknown>[]> {
  const lines = new Map<string, Record<string, unknown>[]>();
  for (const text of gateway.output().split("\n")) {
    if (!text.startsWith("{")) continue;
    const line = JSON.parse(text) as Record<string, unknown>;
    if (typeof line.requestId !== "string" || !String(line.msg).startsWith("request")) continue;
    lines.set(line.requestId, [...(lines.get(line.requestId) ?? []), line]);
  }
  return lines;
}

/**
 * The request lines so far, once those of `ids` are there: the line is
 * written as the answer goes out, and reaches the test's pipe a moment after
 * the answer may have reached the test.
 */
async function logLinesOf(ids: (string | null | undefined)[]): Promise<Map<string, Record<string, unknown>[]>> {
  const deadline = Date.now() + 5_000;
  let lines = logLines();
  while (!ids.every((id) => id && lines.has(id)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    lines = logLines();
  }
  return lines;
}

/** Sends bytes on a socket of their own and reads the answer. */
function raw(base: string, bytes: string): Promise<ReturnType<typeof parseResponse>> {
  const port = Number(new URL(base).port);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(parseResponse(Buffer.concat(chunks))));
    socket.end(bytes);
  });
}

/** One counter's value in the Prometheus text at `url`. */
async function counter(url: string, name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(url)).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
  return line ? Number(line.split(" ").pop()) : 0;
}

describe("the access log and request ids", () => {
  it("writes one line per request, with its fields, under the id the answer carries; never a key or a q value", async () => {
    const answers = [
      await request(gateway, "/api/v1/courses?q=SECRET-SEARCH-TERM", { key }),
      await request(gateway, "/api/v1/courses"),
      await request(gateway, "/api/v1/courses", { key: "sk_live_NOT_A_REAL_KEY_0123456789abcdef" }),
      await request(gateway, "/api/v1/nowhere", { key }),
      await request(gateway, "/api/v1/courses/999999999", { key }),
      await request(gateway, "/graphql", {
        key,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "{ universities(first: 1) { totalCount } }" }),
      }),
      await request(gateway, "/mcp", {
        key,
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
      await request(gateway, "/healthz"),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 401, 401, 404, 404, 200, 200, 200]);
    const lines = await logLinesOf(answers.map((a) => a.headers.get("x-request-id")));
    const surfaces = ["rest", "rest", "rest", "rest", "rest", "graphql", "mcp", "page"];
    answers.forEach((answer, i) => {
      const id = answer.headers.get("x-request-id");
      expect(id, `answer ${i}`).toMatch(/^[0-9a-f-]{36}$/);
      const mine = lines.get(id!) ?? [];
      expect(mine, `log lines of answer ${i}`).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        level: 30,
        method: answer === answers[5] || answer === answers[6] ? "POST" : "GET",
        status: answer.status,
      });
      expect(mine[0]).toMatchObject({ surface: surfaces[i], address: "127.0.0.1" });
      expect(typeof mine[0]!.ms).toBe("number");
      expect(typeof mine[0]!.route).toBe("string");
      // The body's bytes before compression, refusals included (a refusal once went out chunked, with no length).
      expect(mine[0]!.bytes, `bytes of answer ${i}`).toBe(Buffer.byteLength(answer.text));
      expect(answer.headers.get("content-encoding") ?? answer.headers.get("content-length"), `length of answer ${i}`).not.toBeNull();
    });
    expect(lines.get(answers[0]!.headers.get("x-request-id")!)![0]).toMatchObject({
      route: "/api/v1/courses",
      path: "/api/v1/courses",
      keyId: expect.any(Number),
    });
    expect(lines.get(answers[0]!.headers.get("x-request-id")!)![0]!.bytes).toBe(Buffer.byteLength(answers[0]!.text));
    expect(lines.get(answers[4]!.headers.get("x-request-id")!)![0]).toMatchObject({ route: "/api/v1/courses/{course_id}" });
    expect(lines.get(answers[3]!.headers.get("x-request-id")!)![0]).toMatchObject({ route: "(unknown)" });
    expect(lines.get(answers[1]!.headers.get("x-request-id")!)![0]!.keyId).toBeUndefined();
    const output = await settledOutput(gateway);
    expect(output).not.toContain(key);
    expect(output).not.toContain("NOT_A_REAL_KEY");
    expect(output).not.toContain("SECRET-SEARCH-TERM");
  });

  it("echoes a sane incoming id and replaces one that is not", async () => {
    const echoed = await request(gateway, "/api/v1/universities", { key, headers: { "x-request-id": "lb-7f3a.42:abc" } });
    expect(echoed.headers.get("x-request-id")).toBe("lb-7f3a.42:abc");
    expect((await logLinesOf(["lb-7f3a.42:abc"])).get("lb-7f3a.42:abc")).toHaveLength(1);
    for (const insane of ["has space", "x".repeat(200), 'quote"d']) {
      const answer = await request(gateway, "/api/v1/universities", { key, headers: { "x-request-id": insane } });
      expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("puts an id on a 429, a 405, a 5xx-free refusal of the HTTP parser, and logs each", async () => {
    await request(gateway, "/api/v1/universities", { key: tightKey });
    const limited = await request(gateway, "/api/v1/universities", { key: tightKey });
    expect(limited.status).toBe(429);
    const wrongMethod = await request(gateway, "/api/v1/universities", { key, method: "DELETE" });
    expect(wrongMethod.status).toBe(405);
    const malformed = await raw(gateway.base, "GET /api/v1/caf\xe9 HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(malformed.status).toBe(400);
    const oversized = await raw(gateway.base, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(oversized.status).toBe(431);
    const lines = await logLinesOf([
      limited.headers.get("x-request-id"),
      wrongMethod.headers.get("x-request-id"),
      malformed.headers["x-request-id"],
      oversized.headers["x-request-id"],
    ]);
    for (const id of [
      limited.headers.get("x-request-id"),
      wrongMethod.headers.get("x-request-id"),
      malformed.headers["x-request-id"],
      oversized.headers["x-request-id"],
    ]) {
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(lines.get(id!), `log line of ${id}`).toHaveLength(1);
    }
    expect(lines.get(limited.headers.get("x-request-id")!)![0]!.bytes).toBe(Buffer.byteLength(limited.text));
  });
});

describe("/metrics", () => {
  it("answers without a key, and its counters move with requests, refusals and failed keys", async () => {
    const metrics = `${gateway.base}/metrics`;
    const ok = { surface: "rest", route: "/api/v1/papers", status: "200" };
    const before = {
      ok: await counter(metrics, "gateway_http_requests_total", ok),
      auth: await counter(metrics, "gateway_auth_failures_total", { surface: "graphql", reason: "missing" }),
      limited: await counter(metrics, "gateway_rate_limit_refusals_total", { surface: "rest", limit: "minute" }),
    };
    await request(gateway, "/api/v1/papers", { key });
    await request(gateway, "/api/v1/papers", { key });
    await request(gateway, "/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"query":"{__typename}"}',
    });
    await request(gateway, "/api/v1/papers", { key: tightKey });
    const response = await fetch(metrics);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    for (const name of [
      "gateway_http_request_duration_seconds_bucket",
      "gateway_db_pool_connections",
      "gateway_import_rows_total",
      "gateway_process_cpu_seconds_total",
    ]) {
      expect(text).toContain(name);
    }
    expect(await counter(metrics, "gateway_http_requests_total", ok)).toBe(before.ok + 2);
    expect(await counter(metrics, "gateway_auth_failures_total", { surface: "graphql", reason: "missing" })).toBe(before.auth + 1);
    expect(await counter(metrics, "gateway_rate_limit_refusals_total", { surface: "rest", limit: "minute" })).toBe(before.limited + 1);
    // The demo data was imported by this process at its first start.
    expect(await counter(metrics, "gateway_import_rows_total", { section: "universities" })).toBeGreaterThan(0);
  });

  it("with METRICS_PORT, is served on that port alone; with PORT=0, the start announces the port it got", async () => {
    const [port] = await freePorts(1);
    const second = await startGateway("metrics port", { DATABASE_URL: db.url, PORT: "0", METRICS_PORT: String(port) });
    try {
      await waitReady(second, 120_000);
      expect(second.base).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
      expect(second.output()).toContain(`GraphiQL:  ${second.base}/graphql\n`);
      expect(second.output()).toContain(`Metrics:   http://127.0.0.1:${port}/metrics\n`);
      expect((await request(second, "/metrics")).status).toBe(404);
      const own = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(own.status).toBe(200);
      expect(await own.text()).toContain("gateway_http_requests_total");
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/universities`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/graphql`)).status).toBe(404);
    } finally {
      await stopGateway(second);
    }
  }, 150_000);
});

describe("compression and conditional requests", () => {
  it("compresses a large answer for a client that accepts it, to the same JSON", async () => {
    const plain = await request(gateway, "/api/v1/courses?page_size=100", { key, headers: { "accept-encoding": "identity" } });
    const gzipped = await request(gateway, "/api/v1/courses?page_size=100", { key, headers: { "accept-encoding": "gzip" } });
    const brotli = await request(gateway, "/api/v1/courses?page_size=100", { key, headers: { "accept-encoding": "br" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(brotli.headers.get("content-encoding")).toBe("br");
    expect(gzipped.headers.get("vary")).toMatch(/accept-encoding/i);
    expect(gzipped.json).toEqual(plain.json);
    expect(brotli.json).toEqual(plain.json);
  });

  it("tags every GET and answers a matching If-None-Match with 304, still counted against the key", async () => {
    // The two counts compared in one clock minute (the process's limits read the real clock).
    await awayFromMinuteBoundary();
    const first = await request(gateway, "/api/v1/universities", { key });
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    const again = await request(gateway, "/api/v1/universities", { key, headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect(Number(again.headers.get("x-ratelimit-remaining"))).toBe(Number(first.headers.get("x-ratelimit-remaining")) - 1);
    const other = await request(gateway, "/api/v1/universities", { key, headers: { "if-none-match": 'W/"something-else"' } });
    expect(other.status).toBe(200);
    expect(other.json).toEqual(first.json);
    const graphql = await request(gateway, `/graphql?query=${encodeURIComponent("{ universities(first: 1) { totalCount } }")}`, { key });
    expect(graphql.headers.get("etag")).toMatch(/^W\//);
  });
});
