/**
 * Property-based fuzzing (fast-check, fixed seeds) of every surface over a
 * real socket, since Node's HTTP parser is part of the surface: REST paths
 * and query strings, raw request targets and headers, GraphQL documents,
 * variables and bodies, MCP messages. For every answer: the process is up,
 * no 5xx (nothing here is the server's fault), the body is JSON in the
 * surface's shape with no stack or file path, and it came within a bound.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../rest/routes.js";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { type ListeningGateway, parseResponse, listen } from "../support/socket.js";
import { connect } from "node:net";

const RUNS = 300;
const SLOWEST_MS = 2_000;
const LEAKS = /node_modules|\.ts:\d+|\.js:\d+|\n\s+at |graphql-yoga|@modelcontextprotocol|prisma|zod|pglite/i;

let t: TestGateway;
let socket: ListeningGateway;
let key: string;
let slowest = 0;
let answers = 0;

beforeAll(async () => {
  const db = await freshDatabase();
  const store = new KeyStore(db);
  key = (await store.create({ name: "fuzz" })).key;
  const limits = new RateLimits({ defaults: { perMinute: 1_000_000, perDay: 10_000_000 } });
  t = await testGateway(canaryExport(), { db, gateway: { auth: { keys: store, limits, failedChecksPerMinute: 1_000_000 } } });
  socket = await listen(t.gateway);
});
afterAll(async () => {
  await socket?.close();
  await t?.close();
});

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** One HTTP request through fetch (which encodes what it must). */
async function send(path: string, init: RequestInit = {}): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${socket.base}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
  const body = await response.text();
  slowest = Math.max(slowest, performance.now() - started);
  answers++;
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", body };
}

/** Raw bytes on a socket; the answer, or null when the server closed without one (allowed only for garbage). */
function sendRaw(bytes: Buffer): Promise<Answer | null> {
  return new Promise((resolve) => {
    const started = performance.now();
    const client = connect({ host: "127.0.0.1", port: socket.port });
    const chunks: Buffer[] = [];
    client.setTimeout(10_000, () => client.destroy());
    client.on("data", (chunk) => chunks.push(chunk));
    client.on("error", () => undefined);
    client.on("close", () => {
      slowest = Math.max(slowest, performance.now() - started);
      answers++;
      if (chunks.length === 0) return resolve(null);
      const answer = parseResponse(Buffer.concat(chunks));
      resolve({ status: answer.status, contentType: answer.headers["content-type"] ?? "", body: answer.body });
    });
    client.end(bytes);
  });
}

/** A request target whose path is the landing page's, once normalised as the gateway normalises it. */
function landing(requestTarget: string): boolean {
  try {
    return new URL(requestTarget, "http://127.0.0.1").pathname === "/";
  } catch {
    return false;
  }
}

function expectJson(answer: Answer, context: string): any {
  expect(answer.status, `${context} -> ${answer.status} ${answer.body.slice(0, 300)}`).toBeLessThan(500);
  expect(answer.body, context).not.toMatch(LEAKS);
  expect(answer.contentType, `${context}: ${answer.body.slice(0, 100)}`).toMatch(/^application\/(json|graphql-response\+json)/);
  return JSON.parse(answer.body);
}

/** Text a hostile client might send: any code points, controls, percent signs, huge runs. */
const hostileText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom(
    "%00",
    "%",
    "%zz",
    "%ED%A0%80",
    "..",
    "../..",
    "%2e%2e",
    "'; DROP TABLE course; --",
    "\u0000",
    "程式",
    "-1",
    "1e309",
    "9".repeat(30),
  ),
  fc.nat({ max: 300 }).map((n) => "x".repeat(n)),
);

describe("REST", () => {
  const route = fc.constantFrom(...ROUTES);
  const pathOf = (template: string, values: string[]) => {
    let i = 0;
    return template.replace(/\{\w+\}/g, () => encodeURIComponent(values[i++] ?? ""));
  };

  it("any parameters: an envelope, never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        route,
        fc.array(hostileText, { minLength: 1, maxLength: 2 }),
        fc.array(fc.tuple(fc.constantFrom(...new Set(ROUTES.flatMap((r) => Object.keys(r.query))), "x"), hostileText), { maxLength: 4 }),
        async (r, pathValues, query) => {
          const search = new URLSearchParams(query.map(([k, v]) => [k, v.replace(/[\ud800-\udfff]/g, "")]));
          const path = `${pathOf(r.path, pathValues)}?${search}`;
          const body = expectJson(await send(path, { headers: { authorization: `Bearer ${key}` } }), path);
          expect(typeof body.success).toBe("boolean");
          if (!body.success) expect(typeof body.error).toBe("string");
        },
      ),
      { numRuns: RUNS, seed: 8_001 },
    );
  });

  it("any Authorization header and method: a refusal in the envelope, never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"),
        fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.constant(`Bearer ${key}`),
          fc.string({ maxLength: 60 }).map((s) => `Bearer ${s}`),
        ),
        async (method, authorization) => {
          const safe = authorization.replace(/[^\x20-\x7e]/g, "");
          const answer = await send("/api/v1/courses?page_size=1", { method, headers: { authorization: safe } });
          if (method === "HEAD" || (method === "OPTIONS" && answer.status === 204)) {
            expect(answer.status).toBeLessThan(500);
            return;
          }
          expect(expectJson(answer, `${method} ${safe}`).success).toBeTypeOf("boolean");
        },
      ),
      { numRuns: RUNS, seed: 8_002 },
    );
  });

  it("any bytes as the request target, the Host or a header: an answer in JSON (the landing page's HTML at /), or the connection closed", async () => {
    const text = fc.string({ unit: "binary", maxLength: 60 });
    const target = fc.oneof(
      text.map((s) => `/api/v1/courses?q=${s}`),
      text.map((s) => `/${s}`),
      // Absolute form (RFC 9112 §3.2.2), with any authority, path and scheme.
      fc
        .tuple(fc.constantFrom("http", "https", "HTTP", "ftp", "x"), text, text)
        .map(([scheme, host, path]) => `${scheme}://${host}/${path}`),
      text.map((s) => `http://evil.example/api/v1/${s}`),
      // Authority form, asterisk form, malformed IPv6, overlong.
      fc.constantFrom("*", "127.0.0.1:80", "evil.example:443", "http://[::1/x", "http://[::1]:99999/", "http://[zz]/graphql"),
      fc.nat({ max: 20_000 }).map((n) => `/api/v1/courses?q=${"x".repeat(n)}`),
      fc.constantFrom("http://evil.example/graphql", "//graphql", "/graphql/", "/api/v1/%2e%2e/graphql"),
    );
    const host = fc.oneof(
      fc.constantFrom("127.0.0.1", `127.0.0.1:${socket.port}`, "[::1]", "evil.example:8080", "", "a b", "x/y", "[::1", "h:99999"),
      text,
    );
    await fc.assert(
      fc.asyncProperty(target, host, text, async (requestTarget, hostValue, headerValue) => {
        const bytes = Buffer.from(
          `GET ${requestTarget} HTTP/1.1\r\nhost: ${hostValue}\r\nauthorization: Bearer ${key}\r\nx-fuzz: ${headerValue}\r\nconnection: close\r\n\r\n`,
        );
        const answer = await sendRaw(bytes);
        if (answer === null) return; // Node dropped a request it could not even frame
        if (landing(requestTarget) && answer.status === 200) {
          expect(answer.contentType).toBe("text/html; charset=utf-8");
          expect(answer.body).not.toMatch(LEAKS);
          return;
        }
        const body = expectJson(answer, `${JSON.stringify(requestTarget)} host ${JSON.stringify(hostValue)}`);
        expect(body.errors ?? body.success ?? body.error).toBeDefined();
      }),
      { numRuns: RUNS, seed: 8_003 },
    );
  });
});

describe("GraphQL", () => {
  const FIELDS = [
    "universities(first: 2) { totalCount nodes { code } }",
    "courses(first: 1, q: $q) { totalCount }",
    "university(ref: $q) { code }",
    "hubPacks(first: 1) { totalCount }",
    "node(id: $q) { id }",
    "__typename",
  ];
  const document = fc.oneof(
    fc.array(fc.constantFrom(...FIELDS), { minLength: 1, maxLength: 4 }).map((fields) => `query($q: String!) { ${fields.join(" ")} }`),
    fc.string({ maxLength: 200 }),
    fc
      .array(fc.constantFrom("{", "}", "(", ")", "query", "...", "on", "universities", "$q", ":", "@skip", '"', "#", "fragment", "1"), {
        maxLength: 60,
      })
      .map((t) => t.join(" ")),
  );

  it("any document and variables: GraphQL JSON, never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        document,
        fc.oneof(fc.record({ q: hostileText }), fc.jsonValue(), fc.constant(undefined)),
        async (query, variables) => {
          const answer = await send("/graphql", {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${key}` },
            body: JSON.stringify({ query, variables }),
          });
          const body = expectJson(answer, query);
          expect(body.data !== undefined || Array.isArray(body.errors)).toBe(true);
        },
      ),
      { numRuns: RUNS, seed: 8_004 },
    );
  });

  it("any body and content type: GraphQL JSON, never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        fc.constantFrom("application/json", "application/graphql", "text/plain", "multipart/form-data", ""),
        fc.constantFrom("GET", "POST"),
        async (body, contentType, method) => {
          const answer =
            method === "GET"
              ? await send(`/graphql?query=${encodeURIComponent(body)}&variables=${encodeURIComponent(body)}`, {
                  headers: { accept: "application/json", authorization: `Bearer ${key}` },
                })
              : await send("/graphql", {
                  method,
                  headers: { "content-type": contentType, accept: "application/json", authorization: `Bearer ${key}` },
                  body,
                });
          const parsed = expectJson(answer, `${method} ${contentType} ${body.slice(0, 80)}`);
          expect(parsed.data !== undefined || Array.isArray(parsed.errors)).toBe(true);
        },
      ),
      { numRuns: RUNS, seed: 8_005 },
    );
  });
});

describe("MCP", () => {
  const method = fc.constantFrom(
    "initialize",
    "tools/list",
    "tools/call",
    "ping",
    "notifications/initialized",
    "resources/list",
    "nope",
    "",
  );
  const params = fc.oneof(
    fc.record({
      name: fc.constantFrom(...ROUTES.map((r) => r.tool), "nope"),
      arguments: fc.oneof(
        fc.dictionary(
          fc.constantFrom("q", "page", "page_size", "school_ref", "course_id", "pack_id", "days", "limit"),
          fc.oneof(hostileText, fc.integer(), fc.double(), fc.boolean(), fc.constant(null)),
        ),
        fc.jsonValue(),
      ),
    }),
    fc.jsonValue(),
  );

  it("any message: a JSON-RPC answer (or 202 for a notification), never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(method, params, fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(undefined)), async (m, p, id) => {
        const message = { jsonrpc: "2.0", method: m, params: p, ...(id === undefined ? {} : { id }) };
        const answer = await send("/mcp", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${key}` },
          body: JSON.stringify(message),
        });
        if (answer.status === 202) return;
        const body = expectJson(answer, JSON.stringify(message).slice(0, 200));
        expect(body.jsonrpc).toBe("2.0");
        expect(body.result !== undefined || body.error !== undefined).toBe(true);
        if (body.error) expect(typeof body.error.message).toBe("string");
      }),
      { numRuns: RUNS, seed: 8_006 },
    );
  });
});

describe("afterwards", () => {
  it("every answer came within the bound, and the gateway still serves", async () => {
    expect(answers).toBeGreaterThanOrEqual(6 * RUNS);
    expect(slowest).toBeLessThan(SLOWEST_MS);
    const body = expectJson(await send("/api/v1/universities", { headers: { authorization: `Bearer ${key}` } }), "after");
    expect(body.success).toBe(true);
  });
});
