/**
 * Issue 8, finding 9: CORS reflected any Origin with credentials and exposed
 * no limit header; there were no security headers; `/mcp` did not check
 * `Origin` (DNS rebinding). Now: any origin may read without credentials (or
 * only the configured ones), browser code may read the limit headers, a
 * preflight is 204 and any other OPTIONS a 405, every answer is `nosniff`,
 * and `/mcp` refuses foreign origins and, on a loopback-only service,
 * foreign `Host`s with 403.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { type ListeningGateway, listen } from "../support/socket.js";

const PAGE = "https://app.example.org";
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "origins-test", version: "1" } },
});

let open: TestGateway; // defaults: any origin may read; keys checked
let listed: TestGateway; // CORS_ORIGINS=https://app.example.org, loopback-only
let socket: ListeningGateway;
let key: string;

beforeAll(async () => {
  const db = await freshDatabase();
  const store = new KeyStore(db);
  key = (await store.create({ name: "origins" })).key;
  const auth = { keys: store, limits: new RateLimits({ defaults: { perMinute: 1_000, perDay: 10_000 } }) };
  open = await testGateway(canaryExport(), { db, gateway: { auth } });
  listed = await testGateway(canaryExport(), { gateway: { corsOrigins: [PAGE], loopback: true } });
  socket = await listen(listed.gateway);
});
afterAll(async () => {
  await socket?.close();
  await open?.close();
  await listed?.close();
});

const call = (t: TestGateway, path: string, init: RequestInit = {}) => t.gateway.fetch(`http://127.0.0.1:4000${path}`, init);

describe("CORS", () => {
  it("by default any page may read, without credentials, and browser code sees the limit headers", async () => {
    const response = await call(open, "/api/v1/universities", {
      headers: { origin: "https://anyone.example", authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    const exposed = response.headers.get("access-control-expose-headers")!.split(", ");
    for (const name of [
      "RateLimit",
      "RateLimit-Policy",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
      "Retry-After",
      "X-Request-Id",
    ]) {
      expect(exposed).toContain(name);
    }
    expect(response.headers.get("ratelimit")).toMatch(/^"minute";r=\d+;t=\d+, "day";r=\d+;t=\d+$/);
  });

  it("a preflight is 204 before any key check, on every surface", async () => {
    for (const [path, methods] of [
      ["/api/v1/courses", "GET, HEAD"],
      ["/graphql", "GET, POST"],
      ["/mcp", "GET, POST, DELETE"],
    ] as const) {
      const response = await call(open, path, {
        method: "OPTIONS",
        headers: {
          origin: "https://anyone.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization",
        },
      });
      expect(response.status, path).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("access-control-allow-methods")).toBe(methods);
      expect(response.headers.get("access-control-allow-headers")).toContain("Authorization");
      expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    }
  });

  it("any other OPTIONS is a 405 with Allow, in the surface's shape", async () => {
    const rest = await call(open, "/api/v1/courses", { method: "OPTIONS" });
    expect(rest.status).toBe(405);
    expect(rest.headers.get("allow")).toBe("GET, HEAD");
    expect(await rest.json()).toEqual({ success: false, error: "method not allowed" });
    const graphql = await call(open, "/graphql", { method: "OPTIONS", headers: { origin: PAGE } });
    expect(graphql.status).toBe(405);
    expect(graphql.headers.get("allow")).toBe("GET, POST");
    expect((await graphql.json()).errors[0].extensions.code).toBe("METHOD_NOT_ALLOWED");
    const mcp = await call(open, "/mcp", { method: "OPTIONS" });
    expect(mcp.status).toBe(405);
    expect((await mcp.json()).error.code).toBe(-32600);
  });

  it("with CORS_ORIGINS, only those pages may read", async () => {
    const mine = await call(listed, "/api/v1/universities", { headers: { origin: PAGE } });
    expect(mine.headers.get("access-control-allow-origin")).toBe(PAGE);
    expect(mine.headers.get("vary")).toContain("Origin");
    expect(mine.headers.get("access-control-allow-credentials")).toBeNull();
    const other = await call(listed, "/api/v1/universities", { headers: { origin: "https://other.example" } });
    expect(other.status).toBe(200); // a server answers; the browser keeps it from the page
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await call(listed, "/graphql", {
      method: "OPTIONS",
      headers: { origin: "https://other.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("security headers", () => {
  it("nosniff on every answer, and no framing of HTML pages", async () => {
    for (const [path, init] of [
      ["/api/v1", {}],
      ["/api/v1/nope", {}],
      ["/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: '{"query":"{ __typename }"}' }],
      ["/healthz", {}],
      ["/nowhere", {}],
    ] as const) {
      const response = await call(listed, path, init as RequestInit);
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
    }
    const page = await call(listed, "/graphql", { headers: { accept: "text/html" } });
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const refused = await socket.raw("GET /api/v1\u0001 HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n");
    expect(refused.headers["x-content-type-options"]).toBe("nosniff");
  });
});

describe("/mcp against DNS rebinding", () => {
  const post = (host: string, headers = "") =>
    socket.raw(
      `POST /mcp HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n${headers}` +
        `content-length: ${Buffer.byteLength(INITIALIZE)}\r\nconnection: close\r\n\r\n${INITIALIZE}`,
    );

  it("on a loopback-only service, a foreign Host is 403 and a loopback one is served", async () => {
    const attacked = await post("evil.example.com");
    expect(attacked.status).toBe(403);
    expect(JSON.parse(attacked.body)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "forbidden host: evil.example.com" },
    });
    for (const host of [`127.0.0.1:${socket.port}`, `localhost:${socket.port}`, `[::1]:${socket.port}`]) {
      const served = await post(host);
      expect(served.status, host).toBe(200);
      expect(JSON.parse(served.body).result.serverInfo.name).toBe("public-data-api");
    }
  });

  it("a foreign Origin is 403; the service's own, a loopback page or a listed one is served", async () => {
    const host = `127.0.0.1:${socket.port}`;
    expect((await post(host, "origin: https://evil.example\r\n")).status).toBe(403);
    expect((await post(host, "origin: null\r\n")).status).toBe(403);
    expect((await post(host, `origin: http://${host}\r\n`)).status).toBe(200);
    expect((await post(host, "origin: http://localhost:5173\r\n")).status).toBe(200);
    expect((await post(host, `origin: ${PAGE}\r\n`)).status).toBe(200);
  });

  it("the origin is checked before the key: a foreign page learns nothing", async () => {
    const response = await call(open, "/mcp", {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: INITIALIZE,
    });
    expect(response.status).toBe(403);
  });
});
