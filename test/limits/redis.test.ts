/**
 * Shared limits across gateway processes (`npm start` as child processes)
 * over one PostgreSQL database and the run's Redis: one budget per key
 * whichever process answers, revocations seen by every process within 1 s,
 * the day limit across processes, the per-process fallback when Redis
 * cannot be reached, and automatic persisted queries registered on one
 * process run by their hash on the others. Skipped, with the reason in the titles, where the run
 * has no Redis (see `test/support/global-setup.ts`).
 */
import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { KeyStore } from "../../src/keys/store.js";
import { windowAt } from "../../src/limits/windows.js";
import { canaryExport } from "../support/canary.js";
import { awayFromMinuteBoundary, inOneClockMinute } from "../support/clock.js";
import { freshDatabase, importObject } from "../support/databases.js";
import {
  type Answer,
  type GatewayProcess,
  outputWith,
  request,
  startGateway,
  stopAllGateways,
  waitReady,
} from "../support/gateway-process.js";
import { freePorts } from "../support/servers.js";

const REDIS_URL = inject("redisUrl");
const skipped = REDIS_URL ? "" : ` (skipped: ${inject("redisMissing")})`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let db: Database & { url: string };
let store: KeyStore;
let redis: Redis;
let a: GatewayProcess;
let b: GatewayProcess;
let alone: GatewayProcess;
const ids: number[] = [];
const created: Record<"warmup" | "burst" | "revoked" | "daily" | "fallback" | "documents", { id: number; key: string }> = {} as never;

async function get(gateway: GatewayProcess, path: string, key?: string): Promise<Answer> {
  const answer = await request(gateway, path, { ...(key ? { key } : {}) });
  if (answer.json === undefined) throw new Error(`${gateway.name}: not JSON: ${answer.text}`);
  return answer;
}

/** Deletes the Redis counters of this file's keys (their ids are unique to this run). */
async function forgetCounters(): Promise<void> {
  for (const id of ids) {
    for (const window of ["minute", "day"]) {
      const found = await redis.keys(`uedu-rl-${window}:${id}:*`);
      if (found.length) await redis.del(...found);
    }
  }
}

beforeAll(async () => {
  if (!REDIS_URL) return;
  redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on("error", () => undefined); // a failed command rejects; the event must not go unhandled
  await redis.connect();
  db = await freshDatabase();
  // A small export, so that `npm start` does not import the demo data.
  await importObject(db, canaryExport());
  // Each fresh database numbers keys from 1 and the counters in Redis are
  // `<window>:<key id>:<window index>`: start this run's ids somewhere of their own.
  await db.query(`SELECT setval('api_key_id_seq', $1)`, [1_000_000 + Math.floor(Math.random() * 1_000_000_000)]);
  store = new KeyStore(db);
  created.warmup = await store.create({ name: "warmup" });
  created.burst = await store.create({ name: "burst" });
  created.revoked = await store.create({ name: "revoked" });
  created.daily = await store.create({ name: "daily", perDay: 5 });
  created.fallback = await store.create({ name: "fallback", perMinute: 3 });
  created.documents = await store.create({ name: "documents" });
  ids.push(...Object.values(created).map((c) => c.id));
  await forgetCounters();

  const [closed] = (await freePorts(1)) as [number];
  const env = { DATABASE_URL: db.url };
  a = await startGateway("gateway A", { ...env, REDIS_URL });
  b = await startGateway("gateway B", { ...env, REDIS_URL });
  alone = await startGateway("gateway C (no Redis)", { ...env, REDIS_URL: `redis://127.0.0.1:${closed}`, LOG_LEVEL: "warn" });
  await Promise.all([waitReady(a), waitReady(b), waitReady(alone)]);
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  if (redis) {
    await forgetCounters().catch(() => undefined);
    await redis.quit().catch(() => redis.disconnect());
  }
  await db?.close();
}, 30_000);

describe.skipIf(!REDIS_URL)(`limits shared through Redis${skipped}`, () => {
  it("a burst of 200 across two processes: exactly 60 succeed, 140 get 429", async () => {
    // Compiled and connected: the burst measures the limits, not a cold start.
    await Promise.all(
      [a, b].flatMap((gateway) => Array.from({ length: 3 }, () => get(gateway, "/api/v1/universities", created.warmup.key))),
    );
    let key = created.burst;
    let answers: Answer[] = [];
    let started = 0;
    // A burst that straddled two minutes proves nothing: once more with a fresh key.
    await inOneClockMinute(async (attempt) => {
      if (attempt === 2) {
        key = await store.create({ name: "burst again" });
        ids.push(key.id);
      }
      started = Date.now();
      answers = await Promise.all(Array.from({ length: 200 }, (_, i) => get(i % 2 ? b : a, "/api/v1/universities", key.key)));
    });
    const ok = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    // Neither process fell back to counting alone (a busy process once took
    // replies waiting on its socket for timeouts: see redis-timeout.test.ts).
    for (const gateway of [a, b]) expect(gateway.output()).not.toContain("rate limits answered by this process alone");
    expect(ok).toHaveLength(60);
    expect(refused).toHaveLength(140);

    // Each success saw its own place in the one shared count.
    expect(ok.map((r) => Number(r.headers.get("x-ratelimit-remaining"))).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
    for (const r of ok) {
      expect(r.json.total).toBe(3);
      expect(r.headers.get("x-ratelimit-limit")).toBe("60");
      expect(r.headers.get("retry-after")).toBeNull();
    }
    for (const r of refused) {
      const retryAfter = r.headers.get("retry-after");
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
      const t = /^"minute";r=0;t=(\d+)$/.exec(r.headers.get("ratelimit") ?? "")?.[1];
      expect(t, r.headers.get("ratelimit") ?? "no RateLimit").toBeDefined();
      // Read at slightly different instants today (see the guard test in surfaces.test.ts).
      expect(Math.abs(Number(t) - Number(retryAfter))).toBeLessThanOrEqual(1);
      expect(r.headers.get("ratelimit-policy")).toBe('"minute";q=60;w=60, "day";q=10000;w=86400');
      expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(r.json).toEqual({ success: false, error: `rate limit exceeded: 60 requests per minute; retry in ${retryAfter} s` });
    }

    // Refusals gave their points back: the shared counters hold exactly 60.
    const minute = windowAt("minute", started).index;
    const day = windowAt("day", started).index;
    expect(await redis.get(`uedu-rl-minute:${key.id}:${minute}`)).toBe("60");
    expect(await redis.get(`uedu-rl-day:${key.id}:${day}`)).toBe("60");
  });

  it("the daily limit holds across processes", async () => {
    await awayFromMinuteBoundary();
    const order = [a, b, a, b, a];
    for (const [i, gateway] of order.entries()) {
      const r = await get(gateway, "/api/v1/papers", created.daily.key);
      expect(r.status, `${gateway.name}: ${JSON.stringify(r.json)}`).toBe(200);
      expect(r.headers.get("x-ratelimit-limit")).toBe("5");
      expect(r.headers.get("x-ratelimit-remaining")).toBe(String(4 - i));
    }
    const midnight = windowAt("day", Date.now()).resetsAt;
    for (const gateway of [b, a]) {
      const r = await get(gateway, "/api/v1/papers", created.daily.key);
      expect(r.status).toBe(429);
      expect(r.json.success).toBe(false);
      expect(r.json.error).toMatch(/^rate limit exceeded: 5 requests per day; retry in \d+ s$/);
      const retryAfter = Number(r.headers.get("retry-after"));
      expect(Math.abs(retryAfter - (midnight - Date.now()) / 1000)).toBeLessThan(5);
      expect(r.headers.get("x-ratelimit-reset")).toBe(String(midnight / 1000));
    }
    expect(await redis.get(`uedu-rl-day:${created.daily.id}:${windowAt("day", Date.now()).index}`)).toBe("5");
  });

  it("a revoked key is refused by both processes within 1 s", async () => {
    for (const gateway of [a, b]) expect((await get(gateway, "/api/v1/conferences", created.revoked.key)).status).toBe(200);
    await store.revoke(String(created.revoked.id));
    const revokedAt = Date.now();
    const refusedAfter = await Promise.all(
      [a, b].map(async (gateway) => {
        while (Date.now() - revokedAt < 6_000) {
          const r = await get(gateway, "/api/v1/conferences", created.revoked.key);
          if (r.status === 401) {
            expect(r.json).toEqual({ success: false, error: expect.stringMatching(/^invalid or revoked API key; how to get a key: http/) });
            expect(r.headers.get("www-authenticate")).toMatch(/^Bearer .*error="invalid_token"/);
            return Date.now() - revokedAt;
          }
          expect(r.status).toBe(200);
          await sleep(20);
        }
        return Number.POSITIVE_INFINITY;
      }),
    );
    for (const elapsed of refusedAfter) expect(elapsed).toBeLessThan(1_000);
  });
});

describe.skipIf(!REDIS_URL)(`persisted queries across processes${skipped}`, () => {
  it("a document registered on one process runs by its hash on another; one without Redis asks for it", async () => {
    const query = `{ universities(first: ${1 + Math.floor(Math.random() * 50)}) { nodes { code } } }`;
    const extensions = { persistedQuery: { version: 1, sha256Hash: createHash("sha256").update(query).digest("hex") } };
    const byHash = (gateway: GatewayProcess) =>
      get(gateway, `/graphql?extensions=${encodeURIComponent(JSON.stringify(extensions))}`, created.documents.key);
    const registered = await request(a, "/graphql", {
      key: created.documents.key,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query, extensions }),
    });
    expect(registered.status).toBe(200);
    // The registration reaches Redis without holding up its answer.
    const deadline = Date.now() + 10_000;
    while ((await redis.exists(`uedu:apq:${extensions.persistedQuery.sha256Hash}`)) === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const fromB = await byHash(b);
    expect(fromB.status).toBe(200);
    expect(fromB.json).toEqual(registered.json);
    const fromAlone = await byHash(alone);
    expect(fromAlone.status).toBe(404);
    expect(fromAlone.json.errors[0].message).toBe("PersistedQueryNotFound");
  });
});

describe.skipIf(!REDIS_URL)(`Redis unreachable${skipped}`, () => {
  it("the gateway still serves and counts per process, and says so in its log", async () => {
    await awayFromMinuteBoundary();
    for (let i = 0; i < 3; i++) {
      const r = await get(alone, "/api/v1/universities", created.fallback.key);
      expect(r.status).toBe(200);
      expect(r.headers.get("x-ratelimit-remaining")).toBe(String(2 - i));
    }
    const over = await get(alone, "/api/v1/universities", created.fallback.key);
    expect(over.status).toBe(429);
    expect(over.json.error).toMatch(/^rate limit exceeded: 3 requests per minute; retry in \d+ s$/);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Counted in the process, not in Redis.
    expect(await redis.keys(`uedu-rl-*:${created.fallback.id}:*`)).toEqual([]);
    expect((await get(alone, "/readyz")).status).toBe(200);

    const log = await outputWith(alone, ["Redis unreachable", "rate limits answered by this process alone"]);
    expect(log).toContain("Redis unreachable");
    expect(log).toContain("rate limits answered by this process alone");
    for (const { key } of Object.values(created)) expect(log).not.toContain(key);
  });
});
