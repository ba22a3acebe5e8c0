/**
 * Keys and limits on REST as the OpenAPI document describes them: 401 with
 * WWW-Authenticate, 429 with Retry-After, the limit headers on keyed answers
 * (their formats are checked by ./support.ts against components.headers),
 * and no key needed for the root, the document and the health checks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKey } from "../../src/keys/secret.js";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { canaryExport } from "../support/canary.js";
import { MID_MINUTE } from "../support/clock.js";
import { freshDatabase } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { restClient, type RestClient } from "./support.js";

let t: TestGateway;
let rest: RestClient;
const keys = { main: "", limited: "" };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

beforeAll(async () => {
  const db = await freshDatabase();
  const store = new KeyStore(db);
  keys.main = (await store.create({ name: "rest-main" })).key;
  keys.limited = (await store.create({ name: "rest-limited", perMinute: 1 })).key;
  const limits = new RateLimits({ defaults: { perMinute: 60, perDay: 10_000 }, now: () => MID_MINUTE });
  t = await testGateway(canaryExport(), { db, gateway: { auth: { keys: store, limits } } });
  rest = restClient(t.gateway);
});
afterAll(() => t.close());

describe("keys and limits on /api/v1 (as documented)", () => {
  it("a valid key: 200 with every limit header", async () => {
    const response = await rest.fetch("/api/v1/courses", { headers: bearer(keys.main) });
    expect(response.status).toBe(200);
    for (const name of ["ratelimit-policy", "ratelimit", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
      expect(response.headers.get(name), name).not.toBeNull();
    }
    expect(response.headers.get("x-ratelimit-reset")).toBe(String(Date.parse("2026-11-20T12:01:00Z") / 1000));
    // Keyed 400 and 404 carry them too.
    expect((await rest.fetch("/api/v1/courses?page=0", { headers: bearer(keys.main) })).headers.get("x-ratelimit-limit")).toBe("60");
    expect((await rest.fetch("/api/v1/courses/2", { headers: bearer(keys.main) })).headers.get("x-ratelimit-limit")).toBe("60");
  });

  it("a missing, malformed or unknown key: 401 with WWW-Authenticate: Bearer", async () => {
    for (const headers of [{}, { authorization: "Basic abc" }, { authorization: "Bearer" }, bearer(generateKey())]) {
      const response = await rest.fetch("/api/v1/courses", { headers });
      expect(response.status, JSON.stringify(headers)).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(response.body.success).toBe(false);
    }
  });

  it("a 401 says how to send the key and where to get one", async () => {
    expect((await rest.fetch("/api/v1/courses")).body.error).toBe(
      "an API key is required: send Authorization: Bearer <API_KEY>; how to get a key: http://gateway.test/",
    );
    expect((await rest.fetch("/api/v1/courses", { headers: bearer(generateKey()) })).body.error).toBe(
      "invalid or revoked API key; how to get a key: http://gateway.test/",
    );
  });

  it("over the limit: 429 with Retry-After in whole seconds, before any parameter check", async () => {
    expect((await rest.fetch("/api/v1/papers", { headers: bearer(keys.limited) })).status).toBe(200);
    const refused = await rest.fetch("/api/v1/papers?year=abc", { headers: bearer(keys.limited) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(refused.body.success).toBe(false);
    // Which limit, and when to retry.
    expect(refused.body.error).toMatch(/^rate limit exceeded: \d+ requests per (minute|day); retry in 30 s$/);
  });

  it("404 and 405 come before 401; the root, the document and health checks need no key", async () => {
    expect((await rest.get("/api/v1/nope")).status).toBe(404);
    expect((await rest.fetch("/api/v1/courses", { method: "POST" })).status).toBe(405);
    for (const path of ["/api/v1", "/api/v1/", "/openapi.json", "/healthz", "/readyz"])
      expect((await rest.get(path)).status, path).toBe(200);
  });

  it("no key appears in any response", () => {
    const all = rest.bodies.join("\n");
    expect(all).not.toContain(keys.main);
    expect(all).not.toContain(keys.limited);
  });
});
