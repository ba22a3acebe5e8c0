/**
 * Issue 8, finding 1: GraphQL ran without a key, and uncounted, on any path
 * that ended in `/graphql`. GraphQL is served at exactly `/graphql`; every
 * other unknown path is a 404 in JSON, whether it arrives through
 * `gateway.fetch` or as raw bytes on a socket, and no such request is counted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { canaryExport } from "../support/canary.js";
import { MID_MINUTE } from "../support/clock.js";
import { freshDatabase } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { type ListeningGateway, listen } from "../support/socket.js";

const QUERY = JSON.stringify({ query: "{ courses(first: 1) { totalCount } }" });
const JSON_TYPE = "application/json; charset=utf-8";

/** Request targets that normalise to, or end in, `/graphql` without being it. */
const LOOKALIKES = [
  "/graphql/",
  "/x/graphql",
  "/api/v1/%2e%2e/graphql",
  "/api/v1/../graphql/",
  "/api/graphql",
  "//graphql",
  "/GRAPHQL",
  "/graphql;x",
  "/graphql%2f",
  "/graphql/graphql",
  "/mcp/",
  "/x/mcp",
];

let t: TestGateway;
let socket: ListeningGateway;
let store: KeyStore;
let limits: RateLimits;
let key: { id: number; key: string };

beforeAll(async () => {
  const db = await freshDatabase();
  store = new KeyStore(db);
  key = await store.create({ name: "paths" });
  limits = new RateLimits({ defaults: { perMinute: 1_000, perDay: 10_000 }, now: () => MID_MINUTE });
  t = await testGateway(canaryExport(), { db, gateway: { auth: { keys: store, limits } } });
  socket = await listen(t.gateway);
});
afterAll(async () => {
  await socket?.close();
  await t?.close();
});

/**
 * How many requests the key has been counted for this minute, this probe
 * included: between two probes with nothing counted, it grows by exactly one.
 */
async function counted(): Promise<number> {
  const probe = await limits.take(key.id, { perMinute: null, perDay: null });
  const minute = probe.windows.find((w) => w.name === "minute")!;
  return minute.limit - minute.remaining;
}

describe("GraphQL and MCP answer at exactly their paths", () => {
  it.each(LOOKALIKES)("POST %s through gateway.fetch: 404 in JSON, with or without a key", async (path) => {
    for (const headers of [{}, { authorization: `Bearer ${key.key}` }]) {
      const response = await t.gateway.fetch(`http://gateway.test${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", ...headers },
        body: QUERY,
      });
      const normalised = new URL(`http://gateway.test${path}`).pathname;
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type")).toBe(JSON_TYPE);
      expect(await response.json()).toEqual({ success: false, error: `no such path: ${normalised}` });
    }
  });

  it.each(LOOKALIKES)("POST %s as raw bytes on a socket: 404 in JSON, nothing counted", async (path) => {
    const before = await counted();
    for (const authorization of ["", `authorization: Bearer ${key.key}\r\n`]) {
      const answer = await socket.raw(
        `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${authorization}` +
          `content-length: ${Buffer.byteLength(QUERY)}\r\nconnection: close\r\n\r\n${QUERY}`,
      );
      expect(answer.status, path).toBe(404);
      expect(answer.headers["content-type"]).toBe(JSON_TYPE);
      expect(JSON.parse(answer.body)).toMatchObject({ success: false });
      expect(answer.body).not.toContain("totalCount");
    }
    expect(await counted()).toBe(before + 1);
  });

  it("GET lookalikes with a query string are 404 too, not executed", async () => {
    for (const path of ["/graphql/", "/x/graphql"]) {
      const response = await t.gateway.fetch(`http://gateway.test${path}?query=${encodeURIComponent("{ universities { totalCount } }")}`, {
        headers: { accept: "application/json" },
      });
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain("totalCount");
    }
  });

  it("unknown paths elsewhere are 404 in JSON (HEAD without a body)", async () => {
    for (const path of ["/nope", "/api", "/api/v2/universities", "/healthz/", "/openapi.json/x", "/assets", "/index.html"]) {
      const response = await t.gateway.fetch(`http://gateway.test${path}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type")).toBe(JSON_TYPE);
      expect((await response.json()).success).toBe(false);
    }
    const head = await t.gateway.fetch("http://gateway.test/nope", { method: "HEAD" });
    expect(head.status).toBe(404);
    expect(await head.text()).toBe("");
  });

  it("exactly /graphql still needs the key, and counts it", async () => {
    const refused = await socket.raw(
      `POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(QUERY)}\r\nconnection: close\r\n\r\n${QUERY}`,
    );
    expect(refused.status).toBe(401);
    const before = await counted();
    const answered = await socket.raw(
      `POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nauthorization: Bearer ${key.key}\r\n` +
        `content-length: ${Buffer.byteLength(QUERY)}\r\nconnection: close\r\n\r\n${QUERY}`,
    );
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body).data.courses.totalCount).toBeGreaterThan(0);
    expect(await counted()).toBe(before + 2);
  });
});

/**
 * Issue 32, item 2: an absolute-form target with a Host carrying a port
 * answered 500 with a stack trace (the layers above Node glued the Host and
 * the target into one URL). The target is read as RFC 9112 §3.2 says: an
 * absolute form by its path, whatever could not be read is a 400 in JSON.
 */
describe("request-target forms and Host headers, on a socket", () => {
  const get = (target: string, host: string | null, method = "GET") =>
    socket.raw(
      `${method} ${target} HTTP/1.1\r\n${host === null ? "" : `host: ${host}\r\n`}authorization: Bearer ${key.key}\r\nconnection: close\r\n\r\n`,
    );
  const own = () => `127.0.0.1:${socket.port}`;

  it("reads an absolute-form target by its path and query, for any host in it, whatever the Host header", async () => {
    const origin = await get("/api/v1/universities?q=NTU", own());
    expect(origin.status).toBe(200);
    for (const target of [
      "http://evil.example/api/v1/universities?q=NTU",
      `http://${own()}/api/v1/universities?q=NTU`,
      "HTTPS://Example.COM:8443/api/v1/universities?q=NTU",
      "http://[::1]/api/v1/universities?q=NTU",
    ]) {
      for (const host of [own(), "127.0.0.1", "other.example"]) {
        const answer = await get(target, host);
        expect({ target, host, status: answer.status }).toEqual({ target, host, status: 200 });
        expect(answer.body).toBe(origin.body);
      }
    }
    const graphql = await get(`http://evil.example/graphql?query=${encodeURIComponent("{ courses(first: 1) { totalCount } }")}`, own());
    expect(graphql.status).toBe(200);
    expect(JSON.parse(graphql.body).data.courses.totalCount).toBeGreaterThan(0);
    const unknown = await get("http://evil.example/nope", own());
    expect([unknown.status, JSON.parse(unknown.body)]).toEqual([404, { success: false, error: "no such path: /nope" }]);
  });

  it.each([
    ["http://[::1/x", "malformed request target: not a URL"],
    ["http://[::1/api/v1/universities", "malformed request target: not a URL"],
    ["ftp://evil.example/api/v1/universities", "malformed request target: only http and https URLs name a path here"],
    ["http://user:secret@evil.example/api/v1/universities", "malformed request target: its authority is not host[:port]"],
    ["http://evil.example:99999/api/v1/universities", "malformed request target: not a URL"],
    [
      "api/v1/universities",
      "malformed request target: expected a path, like /api/v1/universities, with every non-ASCII character percent-encoded",
    ],
    [
      "mailto:someone@example.com",
      "malformed request target: expected a path, like /api/v1/universities, with every non-ASCII character percent-encoded",
    ],
  ])("answers a target it cannot read (%s) with a 400 in JSON, whatever the Host", async (target, error) => {
    for (const host of [own(), "127.0.0.1"]) {
      const answer = await get(target, host);
      expect({ target, host, status: answer.status }).toEqual({ target, host, status: 400 });
      expect(answer.headers["content-type"]).toBe(JSON_TYPE);
      expect(answer.headers["x-request-id"]).toBeTruthy();
      expect(JSON.parse(answer.body)).toEqual({ success: false, error });
    }
  });

  it("answers the asterisk form with a 404 in JSON, with or without a port in the Host, and the authority form with a 400", async () => {
    for (const host of [own(), "127.0.0.1"]) {
      for (const method of ["GET", "OPTIONS", "HEAD"]) {
        const answer = await get("*", host, method);
        expect({ host, method, status: answer.status }).toEqual({ host, method, status: 404 });
        expect(answer.body).toBe(method === "HEAD" ? "" : JSON.stringify({ success: false, error: "no such path: *" }));
      }
      const authority = await get(own(), host);
      expect(authority.status).toBe(400);
      expect(JSON.parse(authority.body).success).toBe(false);
    }
  });

  it("answers an overlong target with a 4xx in JSON, and the gateway still serves", async () => {
    for (const target of [`/api/v1/universities?q=${"x".repeat(20_000)}`, `http://evil.example/${"x".repeat(20_000)}`]) {
      const answer = await get(target, own());
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(JSON.parse(answer.body).success).toBe(false);
    }
    expect((await get("/api/v1/universities", own())).status).toBe(200);
  });

  it.each([
    ["gateway test", 400],
    ["a/api/v1/universities?", 400],
    ["evil.example/../graphql", 400],
    ["user@evil.example", 400],
    ["127.0.0.1:99999", 400],
    ["127.0.0.1:x", 400],
    ["[::1", 400],
    ["[::1]", 200],
    ["EXAMPLE.com", 200],
    ["example.com:8080", 200],
  ] as const)("reads the Host %j as a host, or refuses it with a 400 in JSON", async (host, status) => {
    const answer = await get("/api/v1/universities?q=NTU", host);
    expect(answer.status).toBe(status);
    if (status === 400) expect(JSON.parse(answer.body)).toEqual({ success: false, error: "malformed Host header: expected host[:port]" });
    else expect(JSON.parse(answer.body).success).toBe(true);
  });
});
