/**
 * A key's restrictions on every surface of one gateway (`gateway.fetch`,
 * canary export): surfaces, origins, documents only (the gateway's trusted
 * documents, and a key's own set on a gateway without them), and a limit per
 * visitor. Each refusal is a 403 (a 429 for a visitor's limit) in its
 * surface's shape, naming which restriction; nothing is counted against the
 * key's limits; each is counted by restriction in the metrics and for the
 * key in its usage; and an unrestricted key is untouched.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReadClient } from "../../src/db/client.js";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { restrictionRefusals } from "../../src/observe/metrics.js";
import { createGateway, type Gateway } from "../../src/server.js";
import { UsageRecorder } from "../../src/usage/recorder.js";
import { canaryExport } from "../support/canary.js";
import { MID_MINUTE } from "../support/clock.js";
import { freshDatabase } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { type ListeningGateway, listen } from "../support/socket.js";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const TRUSTED_TEXT = "query Trusted { universities(first: 1) { totalCount } }";
const OWN_TEXT = "query Own { universities(first: 2) { nodes { code } } }";
const OTHER_TEXT = "{ universities(first: 3) { totalCount } }";
const APP = "https://app.example.org";

let trustedGateway: TestGateway;
let apqGateway: Gateway;
let prisma: ReturnType<typeof createReadClient>;
let direct: ListeningGateway;
let proxied: ListeningGateway;
let usage: UsageRecorder;
const keys: Record<string, { key: string; id: number }> = {};

beforeAll(async () => {
  const db = await freshDatabase();
  const store = new KeyStore(db);
  const make = async (name: string, restrictions: Parameters<KeyStore["create"]>[0]["restrictions"], perMinute = 1_000) => {
    keys[name] = await store.create({ name, perMinute, restrictions });
  };
  await make("open", undefined);
  await make("rest only", { surfaces: ["rest"] });
  await make("app page", { origins: [APP] });
  await make("documents only", { documentsOnly: true });
  await make("own documents", { documentsOnly: true });
  await store.setDocuments(String(keys["own documents"]!.id), new Map([[sha256(OWN_TEXT), OWN_TEXT]]));
  await make("visitors", { visitorPerMinute: 2 }, 5);
  await make("from 203.0.113.0/24", { addresses: ["203.0.113.0/24"] });
  const limits = new RateLimits({ defaults: { perMinute: 60, perDay: 10_000 }, now: () => MID_MINUTE });
  usage = new UsageRecorder({ db, flushMs: 3_600_000 });
  const trusted = new Map([[sha256(TRUSTED_TEXT), TRUSTED_TEXT]]);
  trustedGateway = await testGateway(canaryExport(), {
    db,
    gateway: {
      auth: { keys: store, limits, trustedDocuments: trusted },
      trustedDocuments: trusted,
      corsOrigins: [APP],
      usage,
    },
  });
  // A second gateway on the same database, without trusted documents (automatic persisted queries).
  prisma = createReadClient(db);
  apqGateway = createGateway({ db, prisma, auth: { keys: new KeyStore(db), limits } });
  // Over real sockets: the lean path reads the document itself; one gateway trusts the loopback proxy's X-Forwarded-For.
  direct = await listen(apqGateway);
  proxied = await listen(createGateway({ db, prisma, auth: { keys: new KeyStore(db), limits, trustedProxies: ["loopback"] } }));
});
afterAll(async () => {
  await direct?.close();
  await proxied?.close();
  await prisma?.$disconnect();
  await trustedGateway?.close();
});

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function send(
  t: { gateway: Gateway } | Gateway,
  path: string,
  key: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
) {
  const gateway = "gateway" in t ? t.gateway : t;
  const response = await gateway.fetch(`http://gateway.test${path}`, {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${key}`,
      ...(init.body !== undefined ? { "content-type": "application/json", accept: "application/json, text/event-stream" } : {}),
      ...init.headers,
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined } as Answer;
}

const rest = (key: string, headers: Record<string, string> = {}, t: TestGateway | Gateway = trustedGateway) =>
  send(t, "/api/v1/universities", key, { headers });
const graphql = (
  key: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  t: TestGateway | Gateway = trustedGateway,
) => send(t, "/graphql", key, { method: "POST", body, headers });
const mcp = (key: string, headers: Record<string, string> = {}) =>
  send(trustedGateway, "/mcp", key, {
    method: "POST",
    headers,
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_universities", arguments: {} } },
  });
const k = (name: string) => keys[name]!.key;

function expectForbidden(answer: Answer, surface: "rest" | "graphql" | "mcp", words: string) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(403);
  expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
  // Nothing was counted against the key: no limit headers.
  expect(answer.headers.get("x-ratelimit-remaining")).toBeNull();
  if (surface === "rest") expect(answer.body).toEqual({ success: false, error: expect.stringContaining(words) });
  if (surface === "graphql")
    expect(answer.body).toEqual({ errors: [{ message: expect.stringContaining(words), extensions: { code: "FORBIDDEN" } }] });
  if (surface === "mcp")
    expect(answer.body).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32001, message: expect.stringContaining(words) } });
}

describe("an unrestricted key", () => {
  it("works on every surface, from anywhere", async () => {
    expect((await rest(k("open"), { origin: "https://anywhere.test" })).status).toBe(200);
    expect((await graphql(k("open"), { query: TRUSTED_TEXT })).status).toBe(200);
    expect((await mcp(k("open"))).status).toBe(200);
  });
});

describe("surfaces", () => {
  it("a REST-only key: 200 on REST, 403 on GraphQL and MCP, each in its shape", async () => {
    expect((await rest(k("rest only"))).status).toBe(200);
    expectForbidden(
      await graphql(k("rest only"), { query: TRUSTED_TEXT }),
      "graphql",
      "may not be used on GraphQL: it is restricted to REST",
    );
    expectForbidden(await mcp(k("rest only")), "mcp", "may not be used on MCP: it is restricted to REST");
  });
});

describe("origins", () => {
  it("a page on its origin works on every surface; another origin, or none, is 403", async () => {
    expect((await rest(k("app page"), { origin: APP })).status).toBe(200);
    expect((await rest(k("app page"), { referer: `${APP}/courses` })).status).toBe(200);
    expect((await graphql(k("app page"), { query: TRUSTED_TEXT }, { origin: APP })).status).toBe(200);
    expect((await mcp(k("app page"), { origin: APP })).status).toBe(200);
    expectForbidden(await rest(k("app page"), { origin: "https://copier.test" }), "rest", "and this request came from https://copier.test");
    expectForbidden(await rest(k("app page")), "rest", "and this request named none (no Origin or Referer)");
    expectForbidden(await graphql(k("app page"), { query: TRUSTED_TEXT }, { origin: "https://copier.test" }), "graphql", "allowed origins");
  });
});

describe("documents only", () => {
  it("runs the gateway's trusted documents, by text or by id; refuses any other; REST is not bound", async () => {
    const trusted = await graphql(k("documents only"), { query: TRUSTED_TEXT });
    expect(trusted.status).toBe(200);
    expect(trusted.body.data.universities.totalCount).toBeGreaterThan(0);
    expect((await graphql(k("documents only"), { documentId: `sha256:${sha256(TRUSTED_TEXT)}` })).status).toBe(200);
    expectForbidden(await graphql(k("documents only"), { query: OTHER_TEXT }), "graphql", "runs only its trusted GraphQL documents");
    expect((await rest(k("documents only"))).status).toBe(200);
  });

  it("a key's own set, on a gateway without trusted documents: its documents by id or text, nothing else", async () => {
    const byId = await graphql(
      k("own documents"),
      { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(OWN_TEXT) } } },
      {},
      apqGateway,
    );
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    expect(byId.body.data.universities.nodes.length).toBeGreaterThan(0);
    expect((await graphql(k("own documents"), { query: OWN_TEXT }, {}, apqGateway)).status).toBe(200);
    expectForbidden(await graphql(k("own documents"), { query: TRUSTED_TEXT }, {}, apqGateway), "graphql", "trusted GraphQL documents");
    // Without a set of its own and without the gateway's, a documents-only key runs nothing.
    expectForbidden(await graphql(k("documents only"), { query: TRUSTED_TEXT }, {}, apqGateway), "graphql", "trusted GraphQL documents");
    // Any other key is not bound.
    expect((await graphql(k("open"), { query: OTHER_TEXT }, {}, apqGateway)).status).toBe(200);
  });
});

describe("a limit per visitor", () => {
  it("one visitor's third request in a minute is 429, naming the per-visitor limit; the headers show the tighter limit", async () => {
    const first = await rest(k("visitors"));
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-policy")).toBe('"minute";q=5;w=60, "day";q=10000;w=86400, "visitor-minute";q=2;w=60');
    expect(first.headers.get("x-ratelimit-limit")).toBe("2");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("1");
    expect((await rest(k("visitors"))).status).toBe(200);
    const refused = await rest(k("visitors"));
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(
      /^rate limit exceeded: 2 requests per minute from one address \(the key's per-visitor limit\); retry in \d+ s$/,
    );
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});

describe("over a socket", () => {
  const over = (base: string, key: string, headers: Record<string, string> = {}, body?: unknown) =>
    fetch(`${base}${body === undefined ? "/api/v1/universities" : "/graphql"}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  it("addresses: the socket's peer, X-Forwarded-For only from a trusted proxy, and then its nearest untrusted address", async () => {
    const key = k("from 203.0.113.0/24");
    // Not behind a trusted proxy: the header is not read, and the peer (127.0.0.1) is outside the range.
    const spoofed = await over(direct.base, key, { "x-forwarded-for": "203.0.113.5" });
    expect(spoofed.status).toBe(403);
    expect(spoofed.body.error).toBe("this API key may be used only from its allowed addresses, and this request came from 127.0.0.1");
    expect((await over(proxied.base, key, { "x-forwarded-for": "203.0.113.5" })).status).toBe(200);
    expect((await over(proxied.base, key, { "x-forwarded-for": "198.51.100.7" })).body.error).toContain("came from 198.51.100.7");
    // A client cannot hide behind an address it writes first: the proxy appended the one it saw.
    expect((await over(proxied.base, key, { "x-forwarded-for": "203.0.113.5, 198.51.100.7" })).status).toBe(403);
    expect((await over(proxied.base, key, { "x-forwarded-for": "198.51.100.7, 127.0.0.1" })).body.error).toContain(
      "came from 198.51.100.7",
    );
    expect((await over(proxied.base, key)).status).toBe(403);
  });

  it("documents only on the lean path: an answer it keeps or a document it planned for another key is refused all the same", async () => {
    for (let i = 0; i < 3; i++) expect((await over(direct.base, k("open"), {}, { query: OTHER_TEXT })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await over(direct.base, k("open"), {}, { query: OWN_TEXT })).status).toBe(200);
    const refused = await over(direct.base, k("own documents"), {}, { query: OTHER_TEXT });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].extensions.code).toBe("FORBIDDEN");
    expect((await over(direct.base, k("own documents"), {}, { query: OWN_TEXT })).status).toBe(200);
  });
});

describe("counted", () => {
  it("by restriction in the metrics, and for the key in its usage", async () => {
    const counted = (surface: string, restriction: string) =>
      restrictionRefusals
        .get()
        .then((m) => m.values.find((v) => v.labels.surface === surface && v.labels.restriction === restriction)?.value ?? 0);
    const before = await counted("rest", "origin");
    await rest(k("app page"), { origin: "https://copier.test" });
    expect(await counted("rest", "origin")).toBe(before + 1);
    expect(await counted("graphql", "surface")).toBeGreaterThan(0);
    expect(await counted("graphql", "document")).toBeGreaterThan(0);
    await usage.flush();
    const rows = await trustedGateway.db.query<{ key_id: number; coordinate: string; requests: number }>(
      `SELECT u.key_id, c.coordinate, u.requests::int AS requests FROM usage_day u JOIN usage_coordinate c ON c.id = u.coordinate_id
        WHERE c.coordinate LIKE '(refused: %' ORDER BY u.key_id, c.coordinate`,
    );
    const of = (name: string) => rows.filter((r) => r.key_id === keys[name]!.id).map((r) => [r.coordinate, r.requests]);
    expect(of("app page")).toEqual([["(refused: origin)", 4]]);
    expect(of("rest only")).toEqual([["(refused: surface)", 2]]);
    expect(of("documents only")).toEqual([["(refused: document)", 1]]);
    expect(of("open")).toEqual([]);
  });
});
