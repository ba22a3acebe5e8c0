/**
 * Keys and limits on every surface of one gateway (auth on, canary export,
 * in-memory limits on a fixed clock): REST `/api/v1/*`, `/graphql` (POST and
 * GET) and `/mcp`. Refusals in each surface's own shape, the open paths, the
 * status precedence of docs/contract.md §2, the limit headers, one budget per key
 * across surfaces, and no key in any response or log line.
 */
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKey } from "../../src/keys/secret.js";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { useApiKeys } from "../../src/plugins/api-keys.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

const NOW = Date.parse("2026-11-20T12:00:30.000Z");
const MINUTE_RESET = String(Date.parse("2026-11-20T12:01:00Z") / 1000);
const POLICY = '"minute";q=60;w=60, "day";q=10000;w=86400';
const LIMIT_HEADERS = ["ratelimit-policy", "ratelimit", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"];
const JSON_TYPE = "application/json; charset=utf-8";
const QUERY = "{ universities(first: 2) { totalCount nodes { code } } }";

interface Answer {
  url: string;
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

let t: TestGateway;
const logLines: string[] = [];
const collected: Answer[] = [];
const keys: Record<
  "main" | "headers" | "mcpCount" | "revoked" | "expired" | "rolledOld" | "rolledNew" | "budget" | "limited" | "graphqlLimited",
  string
> = {} as never;
const EXPIRED_AT = new Date(Date.now() - 86_400_000);
const unknownKey = generateKey();

beforeAll(async () => {
  const db = await freshDatabase();
  const store = new KeyStore(db);
  keys.main = (await store.create({ name: "main" })).key;
  keys.revoked = (await store.create({ name: "revoked" })).key;
  keys.budget = (await store.create({ name: "budget", perMinute: 5 })).key;
  keys.limited = (await store.create({ name: "limited", perMinute: 1 })).key;
  keys.graphqlLimited = (await store.create({ name: "graphql-limited", perMinute: 1 })).key;
  keys.headers = (await store.create({ name: "headers" })).key;
  keys.mcpCount = (await store.create({ name: "mcp-count" })).key;
  await store.revoke("2");
  // Made by a store whose clock is two days back, so that its expiry could be set then.
  keys.expired = (
    await new KeyStore(db, { now: () => EXPIRED_AT.getTime() - 86_400_000 }).create({ name: "expired", expiresAt: EXPIRED_AT })
  ).key;
  const rolled = await store.create({ name: "rolled" });
  keys.rolledOld = rolled.key;
  keys.rolledNew = (await store.roll(String(rolled.id), 0)).key;
  const limits = new RateLimits({ defaults: { perMinute: 60, perDay: 10_000 }, now: () => NOW });
  const log = pino({ level: "trace" }, { write: (line: string) => void logLines.push(line) });
  t = await testGateway(canaryExport(), {
    db,
    gateway: { auth: { keys: store, limits }, limits: { perMinute: 60, perDay: 10_000 }, log },
  });
});
afterAll(() => t?.close());

/** One request through the gateway; every answer is kept for the leak checks. */
async function call(
  path: string,
  init: { method?: string; key?: string; authorization?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.authorization !== undefined) headers.authorization = init.authorization;
  const response = await t.gateway.fetch(`http://gateway.test${path}`, {
    method: init.method ?? "GET",
    headers,
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const answer = { url: path, status: response.status, headers: response.headers, text, json };
  collected.push(answer);
  return answer;
}

const rest = (path: string, key?: string, authorization?: string) =>
  call(path, { ...(key ? { key } : {}), ...(authorization !== undefined ? { authorization } : {}) });
const graphqlPost = (key?: string, authorization?: string, query = QUERY) =>
  call("/graphql", {
    method: "POST",
    ...(key ? { key } : {}),
    ...(authorization !== undefined ? { authorization } : {}),
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query }),
  });
const graphqlGet = (key?: string, authorization?: string, query = QUERY) =>
  call(`/graphql?query=${encodeURIComponent(query)}`, {
    ...(key ? { key } : {}),
    ...(authorization !== undefined ? { authorization } : {}),
    headers: { accept: "application/json" },
  });
const mcp = (key?: string, authorization?: string) =>
  call("/mcp", {
    method: "POST",
    ...(key ? { key } : {}),
    ...(authorization !== undefined ? { authorization } : {}),
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1.0.0" } },
    }),
  });

type Surface = "rest" | "graphql-post" | "graphql-get" | "mcp";
const SURFACES: Record<Surface, (key?: string, authorization?: string) => Promise<Answer>> = {
  rest: (key, authorization) => rest("/api/v1/universities", key, authorization),
  "graphql-post": graphqlPost,
  "graphql-get": graphqlGet,
  mcp,
};

function expectRefusalShape(surface: Surface, answer: Answer, code: "UNAUTHENTICATED" | "RATE_LIMITED") {
  expect(answer.headers.get("content-type"), answer.url).toBe(JSON_TYPE);
  switch (surface) {
    case "rest":
      expect(answer.json).toEqual({ success: false, error: expect.any(String) });
      break;
    case "graphql-post":
    case "graphql-get":
      expect(answer.json).toEqual({ errors: [{ message: expect.any(String), extensions: { code } }] });
      break;
    case "mcp":
      expect(answer.json).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32001, message: expect.any(String) } });
      break;
  }
  const message: string = answer.json.error?.message ?? answer.json.error ?? answer.json.errors[0].message;
  expect(message.length).toBeGreaterThan(10);
  return message;
}

describe("401 on every surface, in its own shape", () => {
  // RFC 6750's challenge, with the refusal's own message as error_description: an MCP client reads a
  // 401 as an OAuth challenge and shows what the header says, not the body.
  const cases: [string, { key?: string; authorization?: string }, string, string][] = [
    ["missing key", {}, "invalid_token", "an API key is required"],
    ["malformed header (Basic)", { authorization: "Basic dXNlcjpwYXNz" }, "invalid_request", "malformed"],
    ["malformed header (short key)", { authorization: "Bearer uedu_short" }, "invalid_request", "malformed"],
    ["unknown key", { key: unknownKey }, "invalid_token", "invalid or revoked"],
    ["revoked key", { key: "revoked" }, "invalid_token", "invalid or revoked"],
    [
      "expired key",
      { key: "expired" },
      "invalid_token",
      `this API key expired at ${EXPIRED_AT.toISOString()}; its holder can set a later expiry`,
    ],
    [
      "a rolled key's old secret",
      { key: "rolledOld" },
      "invalid_token",
      "secret was replaced by a new one (rolled) and stopped working at",
    ],
  ];
  for (const surface of Object.keys(SURFACES) as Surface[]) {
    for (const [name, init, error, words] of cases) {
      it(`${surface}: ${name}`, async () => {
        const key = init.key && init.key in keys ? keys[init.key as keyof typeof keys] : init.key;
        const answer = await SURFACES[surface](key, init.authorization);
        expect(answer.status, answer.text).toBe(401);
        const challenge = /^Bearer realm="[^"]+", error="(\w+)", error_description="([^"\\]+)"$/.exec(
          answer.headers.get("www-authenticate") ?? "",
        );
        const message = expectRefusalShape(surface, answer, "UNAUTHENTICATED");
        expect(message).toContain(words);
        expect(challenge?.slice(1)).toEqual([error, message]);
        // A refused request carries no limit headers: nothing was counted.
        for (const header of LIMIT_HEADERS) expect(answer.headers.get(header)).toBeNull();
      });
    }
  }

  it("a rolled key's new secret works on every surface", async () => {
    for (const surface of Object.keys(SURFACES) as Surface[]) {
      const answer = await SURFACES[surface](keys.rolledNew);
      expect(answer.status, `${surface}: ${answer.text}`).toBe(200);
    }
  });

  it("a missing resource without a key is 401, not 404", async () => {
    const answer = await rest("/api/v1/courses/99999");
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ success: false, error: expect.any(String) });
  });

  it("GraphiQL's own page needs no key, and a keyless browser GET with a query gets only that page, no data", async () => {
    const page = await call("/graphql", { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).toMatch(/graphiql/i);
    // yoga renders GraphiQL for any GET that accepts text/html; the query
    // runs from the page, with the key the user gives it.
    const browser = await call(`/graphql?query=${encodeURIComponent(QUERY)}`, {
      headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
    });
    expect(browser.headers.get("content-type")).toMatch(/^text\/html/);
    expect(browser.text).not.toContain("NTHU");
    expect(browser.text).not.toContain('"totalCount"');
    // Without text/html the same query needs a key.
    expect((await call(`/graphql?query=${encodeURIComponent(QUERY)}`, { headers: { accept: "*/*" } })).status).toBe(401);
  });
});

describe("paths that need no key", () => {
  for (const path of ["/api/v1", "/api/v1/", "/healthz", "/readyz", "/openapi.json"]) {
    it(`GET ${path}`, async () => {
      const answer = await rest(path);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json).toBeTypeOf("object");
    });
  }
});

describe("status precedence (docs/contract.md §2)", () => {
  it("an unknown path without a key is 404, not 401", async () => {
    const answer = await rest("/api/v1/nope");
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ success: false, error: expect.any(String) });
    expect((await rest("/api/v1/nope", unknownKey)).status).toBe(404);
  });

  it("a POST to an operation without a key is 405, not 401", async () => {
    const answer = await call("/api/v1/universities", { method: "POST", body: "{}" });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("GET, HEAD");
    expect(answer.json).toEqual({ success: false, error: expect.any(String) });
  });

  it("a bad parameter without a key is 401 (the key before 400); with a key it is 400", async () => {
    expect((await rest("/api/v1/courses?page_size=0")).status).toBe(401);
    expect((await rest("/api/v1/courses?page_size=0", unknownKey)).status).toBe(401);
    const keyed = await rest("/api/v1/courses?page_size=0", keys.main);
    expect(keyed.status).toBe(400);
    expect(keyed.json).toEqual({ success: false, error: "page_size must be an integer from 1 to 100" });
  });

  it("over the limit with a bad parameter is 429 (limits before 400), with Retry-After", async () => {
    expect((await rest("/api/v1/universities", keys.limited)).status).toBe(200);
    const answer = await rest("/api/v1/courses?page_size=0", keys.limited);
    expect(answer.status).toBe(429);
    expect(answer.headers.get("retry-after")).toBe("30");
    const message = expectRefusalShape("rest", answer, "RATE_LIMITED");
    expect(message).toBe("rate limit exceeded: 1 requests per minute; retry in 30 s");
    expect(answer.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(answer.headers.get("ratelimit")).toBe('"minute";r=0;t=30');
  });

  it("a 429 on /graphql has the GraphQL shape and Retry-After", async () => {
    expect((await graphqlPost(keys.graphqlLimited)).status).toBe(200);
    const answer = await graphqlPost(keys.graphqlLimited);
    expect(answer.status).toBe(429);
    expect(answer.headers.get("retry-after")).toBe("30");
    expectRefusalShape("graphql-post", answer, "RATE_LIMITED");
  });
});

describe("limit headers", () => {
  it("every keyed 200 carries the five limit headers, counting across surfaces", async () => {
    const answers = [
      await rest("/api/v1/universities", keys.headers),
      await graphqlPost(keys.headers),
      await graphqlGet(keys.headers),
      await rest("/api/v1/courses?page_size=1", keys.headers),
    ];
    for (const [i, answer] of answers.entries()) {
      const left = 59 - i;
      expect(answer.status, answer.text).toBe(200);
      for (const header of LIMIT_HEADERS) expect(answer.headers.get(header), `${answer.url} ${header}`).not.toBeNull();
      expect(answer.headers.get("ratelimit-policy")).toBe(POLICY);
      expect(answer.headers.get("x-ratelimit-limit")).toBe("60");
      expect(answer.headers.get("x-ratelimit-remaining")).toBe(String(left));
      expect(answer.headers.get("x-ratelimit-reset")).toBe(MINUTE_RESET);
      expect(answer.headers.get("ratelimit")).toBe(`"minute";r=${left};t=30, "day";r=${9940 + left};t=43170`);
      expect(answer.headers.get("retry-after")).toBeNull();
    }
    expect(answers[1]!.json.data.universities.totalCount).toBe(3);
    expect(answers[2]!.json.data.universities.totalCount).toBe(3);
    expect(answers[0]!.json.total).toBe(3);
  });

  it("a keyed 400 and a keyed 404 carry them too (the request counted)", async () => {
    const bad = await rest("/api/v1/courses?page_size=101", keys.main);
    expect(bad.status).toBe(400);
    const missing = await rest("/api/v1/courses/99999", keys.main);
    expect(missing.status).toBe(404);
    expect(Number(missing.headers.get("x-ratelimit-remaining"))).toBe(Number(bad.headers.get("x-ratelimit-remaining")) - 1);
  });
});

describe("one budget per key across surfaces", () => {
  it("limit 5: 2 REST + 2 GraphQL + 1 REST, then the 6th is 429 on every surface", async () => {
    const admitted = [
      await rest("/api/v1/universities", keys.budget),
      await graphqlPost(keys.budget),
      await rest("/api/v1/papers", keys.budget),
      await graphqlGet(keys.budget),
      await rest("/api/v1/conferences", keys.budget),
    ];
    expect(admitted.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(admitted.map((a) => a.headers.get("x-ratelimit-remaining"))).toEqual(["4", "3", "2", "1", "0"]);
    expect(admitted.map((a) => a.headers.get("x-ratelimit-limit"))).toEqual(["5", "5", "5", "5", "5"]);

    for (const surface of Object.keys(SURFACES) as Surface[]) {
      const answer = await SURFACES[surface](keys.budget);
      expect(answer.status, `${surface}: ${answer.text}`).toBe(429);
      expect(answer.headers.get("retry-after")).toBe("30");
      expect(answer.headers.get("x-ratelimit-remaining")).toBe("0");
      if (surface !== "mcp") expectRefusalShape(surface, answer, "RATE_LIMITED");
      else expect(answer.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32001 } });
    }
  });
});

describe("every keyed request counts once, /mcp included (docs/contract.md §8)", () => {
  it("a request to /mcp with a valid key, a notification included, uses one point of the shared budget", async () => {
    expect((await rest("/api/v1/universities", keys.mcpCount)).headers.get("x-ratelimit-remaining")).toBe("59");
    const viaMcp = await mcp(keys.mcpCount);
    expect(viaMcp.status, viaMcp.text).toBe(200);
    expect(viaMcp.json).toMatchObject({ jsonrpc: "2.0", id: 1, result: { protocolVersion: expect.any(String) } });
    expect(viaMcp.headers.get("x-ratelimit-remaining")).toBe("58");
    expect(viaMcp.headers.get("ratelimit-policy")).toBe(POLICY);
    const notification = await call("/mcp", {
      method: "POST",
      key: keys.mcpCount,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    expect(notification.status).toBe(202);
    expect(notification.headers.get("x-ratelimit-remaining")).toBe("57");
    expect((await rest("/api/v1/universities", keys.mcpCount)).headers.get("x-ratelimit-remaining")).toBe("56");
  });
});

describe("the headers of one refusal agree with each other", () => {
  it("Retry-After, the refusing window's t in RateLimit and the message name the same wait, even when time passes during the count", async () => {
    // One clock for the limits and the guard, as in a running gateway, that
    // moves on 700 ms each time it is read (a slow Redis round trip).
    let clock = Date.parse("2026-11-20T12:00:30.500Z");
    const now = () => {
      const at = clock;
      clock += 700;
      return at;
    };
    const store = new KeyStore(t.db);
    const { key } = await store.create({ name: "slow clock", perMinute: 1 });
    const guard = useApiKeys({ keys: store, limits: new RateLimits({ defaults: { perMinute: 60, perDay: 10_000 }, now }) });
    const request = () => new Request("http://gateway.test/api/v1/universities", { headers: { authorization: `Bearer ${key}` } });
    expect(await guard.authorize(request(), "rest")).toBeUndefined();
    const refusal = (await guard.authorize(request(), "rest"))!;
    expect(refusal.status).toBe(429);
    const retryAfter = refusal.headers.get("retry-after");
    const body = (await refusal.json()) as { error: string };
    expect(refusal.headers.get("ratelimit")).toBe(`"minute";r=0;t=${retryAfter}`);
    expect(body.error).toBe(`rate limit exceeded: 1 requests per minute; retry in ${retryAfter} s`);
  });
});

describe("the key is never shown", () => {
  it("no response body or header contains a key", () => {
    expect(collected.length).toBeGreaterThan(50);
    const secrets = [...Object.values(keys), unknownKey];
    for (const answer of collected) {
      const everything = `${answer.text}\n${[...answer.headers].map(([n, v]) => `${n}: ${v}`).join("\n")}`;
      for (const secret of secrets) {
        expect(everything, answer.url).not.toContain(secret);
        expect(everything, answer.url).not.toContain(secret.slice(13));
      }
    }
  });

  it("no log line contains a key", async () => {
    // A failing request or two more, then the logs.
    await graphqlPost(keys.main, undefined, "{ nope }");
    await graphqlPost(keys.main, undefined, "{");
    expect(logLines.length).toBeGreaterThan(0);
    const logs = logLines.join("");
    for (const secret of [...Object.values(keys), unknownKey]) {
      expect(logs).not.toContain(secret);
      expect(logs).not.toContain(secret.slice(13));
    }
  });
});
