/**
 * The Redis command timeout measures Redis, not the gateway's own event loop.
 * CI once saw a burst of 200 across two processes admit 72, not 60: a process
 * held up past ioredis's plain 500 ms timer took the replies already waiting
 * on its socket for timeouts, fell back to counting alone, and handed out its
 * own budget. Here the process is held up on purpose (a busy loop after the
 * command is sent) against a private redis-server, and then Redis is frozen
 * for the case the timeout exists for.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { connectRedis } from "../../src/limits/redis.js";
import { findRedisServer, type PrivateServer, startRedis } from "../support/servers.js";

/** Holds the event loop, as a busy or paused process does. */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // spin
  }
}

let server: PrivateServer;
let redis: Redis;
let nextKey = 1;

beforeAll(async () => {
  if (!findRedisServer()) return;
  server = await startRedis();
  redis = await connectRedis(server.url, undefined, 5_000);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.destroy();
});

describe.skipIf(!findRedisServer())("the Redis command timeout", () => {
  it("takes a reply that waited on the socket while the process was busy past the timeout", async () => {
    const reply = redis.incr(`uedu-test-busy-${nextKey++}`);
    busy(900);
    await expect(reply).resolves.toBe(1);
  });

  it("a busy process keeps counting in Redis: no fallback, one shared count", async () => {
    const fallbacks: unknown[] = [];
    const midMinute = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
    const limits = new RateLimits({
      defaults: { perMinute: 2, perDay: 1_000 },
      redis,
      onFallback: (error) => fallbacks.push(error),
      // One clock in the middle of a minute: the three requests fall in one window.
      now: () => midMinute,
    });
    const key = 1_000_000 + nextKey++;
    const decisions = [limits.take(key, { perMinute: null, perDay: null })];
    busy(900);
    decisions.push(limits.take(key, { perMinute: null, perDay: null }));
    busy(900);
    decisions.push(limits.take(key, { perMinute: null, perDay: null }));
    expect((await Promise.all(decisions)).map((d) => d.allowed)).toEqual([true, true, false]);
    expect(fallbacks).toEqual([]);
  });

  it("still gives up on a frozen Redis after about half a second", async () => {
    server.freeze();
    try {
      const started = Date.now();
      await expect(redis.incr(`uedu-test-frozen-${nextKey++}`)).rejects.toThrow("Command timed out");
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(450);
      expect(waited).toBeLessThan(3_000);
    } finally {
      server.thaw();
    }
  });
});
