/**
 * The gateway's connection pool (`postgresPool`, src/db/driver.ts) keeps an
 * idle connection for POOL_IDLE_MS, not `pg`'s 10 s: a burst after a pause of
 * a few seconds finds its backends (their catalog caches and prepared
 * statements) still there, instead of starting new ones.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { inject } from "vitest";
import { POOL_IDLE_MS, postgresPool } from "../../src/db/driver.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("postgresPool", () => {
  it("keeps an idle connection for POOL_IDLE_MS, then closes it", async () => {
    // Only the pool's own timers are faked: sockets run as they do.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const pool = postgresPool(inject("postgresUrl"), undefined);
    pool.on("error", () => undefined);
    try {
      const backend = async () => (await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
      const first = await backend();
      // Past pg's default idle time of 10 s: the same backend.
      await vi.advanceTimersByTimeAsync(60_000);
      expect(await backend()).toBe(first);
      expect(pool.totalCount).toBe(1);
      // Past POOL_IDLE_MS: closed.
      await vi.advanceTimersByTimeAsync(POOL_IDLE_MS + 1);
      expect(pool.totalCount).toBe(0);
      expect(await backend()).not.toBe(first);
    } finally {
      vi.useRealTimers();
      await pool.end();
    }
  });
});
