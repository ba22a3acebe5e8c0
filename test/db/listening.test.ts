/**
 * A process's LISTENs share one connection (src/db/listening.ts), on the
 * run's PostgreSQL: each subscriber hears its own channel, the connection
 * comes back after the server drops it (listening on every channel again and
 * calling every subscriber once), and it closes with the last subscriber.
 * (That a gateway process holds one: test/hostile/database-faults.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { Listening } from "../../src/db/listening.js";
import { freshDatabase } from "../support/databases.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let db: Database;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.close();
});

/** How many of this database's connections listen: those whose last statement was a LISTEN or UNLISTEN. */
const listeningConnections = async () =>
  (
    await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ~ '^(UN)?LISTEN '`,
    )
  )[0]!.n;

/** Retries `check` (its expectations) every 25 ms until they hold, or fails after `timeout` ms with the last one. */
const eventually = (check: () => unknown, timeout = 10_000) => vi.waitFor(check, { timeout, interval: 25 });

/** Counts the calls of each named subscriber. */
function counters() {
  const calls: Record<string, number> = {};
  return { calls, on: (name: string) => () => void (calls[name] = (calls[name] ?? 0) + 1) };
}

describe("one listening connection for a process", () => {
  it("hears each channel's notices in its own subscribers only, on one connection", async () => {
    const errors: Error[] = [];
    const listening = new Listening(db.url, (error) => errors.push(error));
    const { calls, on } = counters();
    const [keysA, dataA, dataB] = await Promise.all([
      listening.listen("test_keys", on("keys")),
      listening.listen("test_data", on("data 1")),
      listening.listen("test_data", on("data 2")),
    ]);
    try {
      expect(await listeningConnections()).toBe(1);
      await db.exec(`NOTIFY "test_data"`);
      await eventually(() => expect([calls["data 1"], calls["data 2"]]).toEqual([1, 1]));
      await db.exec(`NOTIFY "test_keys"`);
      await eventually(() => expect(calls.keys).toBe(1));
      // A channel added later is listened on the same connection.
      const later = await listening.listen("test_later", on("later"));
      await db.exec(`NOTIFY "test_later"`);
      await eventually(() => expect(calls.later).toBe(1));
      expect(await listeningConnections()).toBe(1);
      await later.close();
      expect(calls).toEqual({ "data 1": 1, "data 2": 1, keys: 1, later: 1 });
      expect(errors).toEqual([]);
    } finally {
      await Promise.all([keysA.close(), dataA.close(), dataB.close()]);
    }
    await eventually(async () => expect(await listeningConnections()).toBe(0));
  });

  it("closing one subscriber leaves the others; the channel's last one ends its LISTEN, the very last the connection", async () => {
    const listening = new Listening(db.url, () => undefined);
    const { calls, on } = counters();
    const same = on("same");
    // The same function twice is two subscribers.
    const first = await listening.listen("test_one", same);
    const second = await listening.listen("test_one", same);
    const other = await listening.listen("test_two", on("two"));
    await first.close();
    await db.exec(`NOTIFY "test_one"; NOTIFY "test_two"`);
    await eventually(() => expect([calls.same, calls.two]).toEqual([1, 1]));
    await second.close();
    // Nobody listens on test_one now: its notice reaches no one, test_two's still does.
    await db.exec(`NOTIFY "test_one"; NOTIFY "test_two"`);
    await eventually(() => expect(calls.two).toBe(2));
    await sleep(200);
    expect(calls).toEqual({ same: 1, two: 2 });
    expect(await listeningConnections()).toBe(1);
    await other.close();
    await eventually(async () => expect(await listeningConnections()).toBe(0));
    // Closing again changes nothing.
    await other.close();
  });

  it("comes back after the server drops it: every channel again, every subscriber called once, the error told", async () => {
    const errors: Error[] = [];
    const listening = new Listening(db.url, (error) => errors.push(error));
    const { calls, on } = counters();
    const subscriptions = await Promise.all([
      listening.listen("test_a", on("a")),
      listening.listen("test_b", on("b 1")),
      listening.listen("test_b", on("b 2")),
    ]);
    try {
      const [{ n }] = (await db.query<{ n: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN %'`,
      )) as [{ n: number }];
      expect(n).toBe(1);
      await eventually(() => expect([calls.a, calls["b 1"], calls["b 2"]]).toEqual([1, 1, 1]));
      expect(errors.length).toBe(1);
      expect(await listeningConnections()).toBe(1);
      // It listens on both channels again.
      await db.exec(`NOTIFY "test_a"; NOTIFY "test_b"`);
      await eventually(() => expect([calls.a, calls["b 1"], calls["b 2"]]).toEqual([2, 2, 2]));
    } finally {
      await Promise.all(subscriptions.map((s) => s.close()));
    }
    await eventually(async () => expect(await listeningConnections()).toBe(0));
  });

  it("keeps trying while the server refuses it, and listens once it can", async () => {
    const errors: Error[] = [];
    // A database that does not exist yet: every attempt fails until it is there.
    const url = new URL(db.url);
    const name = `${url.pathname.slice(1)}_later`;
    url.pathname = `/${name}`;
    const listening = new Listening(url.toString(), (error) => errors.push(error));
    const { calls, on } = counters();
    const subscription = await listening.listen("test_late", on("late"));
    try {
      expect(errors.length).toBe(1);
      expect(errors[0]!.message).toMatch(/does not exist/);
      await db.exec(`CREATE DATABASE "${name}"`);
      // The next attempt (after 0.5 s, then 1 s) succeeds, and calls the subscriber once: a notice may have been missed.
      await eventually(() => expect(calls.late).toBe(1), 15_000);
    } finally {
      await subscription.close();
      await db.exec(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  });
});
