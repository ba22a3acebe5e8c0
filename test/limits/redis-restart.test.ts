/**
 * Issue 32, item 3, as it was found: a key limited to 5 a minute made 5
 * requests through two gateway processes, the 6th got 429; Redis (private,
 * `--save ""`, so it comes back empty) was restarted, and in the same clock
 * minute 5 more were answered. Now each process adds again what it counted
 * in the Redis it lost, so at most one request per process gets through
 * before its points are back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { KeyStore } from "../../src/keys/store.js";
import { canaryExport } from "../support/canary.js";
import { inOneClockMinute } from "../support/clock.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";
import { findRedisServer, type PrivateServer, startRedis } from "../support/servers.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LIMIT = 5;

let db: Database & { url: string };
let redis: PrivateServer;
let gateways: GatewayProcess[];
let key: string;

beforeAll(async () => {
  if (!findRedisServer()) return;
  redis = await startRedis();
  db = await freshDatabase();
  await importObject(db, canaryExport());
  key = (await new KeyStore(db).create({ name: "restart", perMinute: LIMIT })).key;
  gateways = [
    await startGateway("gateway A", { DATABASE_URL: db.url, REDIS_URL: redis.url, LOG_LEVEL: "info" }),
    await startGateway("gateway B", { DATABASE_URL: db.url, REDIS_URL: redis.url, LOG_LEVEL: "info" }),
  ];
  await Promise.all(gateways.map((g) => waitReady(g)));
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  await redis?.destroy();
  await db?.close();
}, 30_000);

/** Waits until every process has logged `text` more times than `before` counted. */
async function logged(text: string, before: number[]): Promise<void> {
  const count = (g: GatewayProcess) => g.output().split(text).length - 1;
  const deadline = Date.now() + 15_000;
  while (!gateways.every((g, i) => count(g) > before[i]!)) {
    if (Date.now() > deadline) throw new Error(`not every process logged ${JSON.stringify(text)}`);
    await sleep(50);
  }
}

/** Statuses of `n` requests with `key`, alternating between the two processes. */
async function statuses(key: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await request(gateways[i % 2]!, "/api/v1/universities", { key })).status);
  return out;
}

describe.skipIf(!findRedisServer())("a Redis restart, with two gateway processes", () => {
  it("hands out no fresh budget in the same minute: at most one more request per process", async () => {
    // Everything below must fall in one clock minute: if it did not, once more with a fresh key.
    await inOneClockMinute(async (attempt) => {
      const used = attempt === 1 ? key : (await new KeyStore(db).create({ name: "restart again", perMinute: LIMIT })).key;
      expect(await statuses(used, LIMIT)).toEqual(Array(LIMIT).fill(200));
      expect(await statuses(used, 2)).toEqual([429, 429]);

      const BACK = "Redis reachable again: limits are shared";
      const before = gateways.map((g) => g.output().split(BACK).length - 1);
      await redis.restart(); // empty: nothing was saved
      await logged(BACK, before);

      const after = await statuses(used, LIMIT);
      expect(after.filter((s) => s === 200).length).toBeLessThanOrEqual(2);
      expect(after.every((s) => s === 200 || s === 429)).toBe(true);
      // Once both have added their points again, nothing more in this minute.
      expect(await statuses(used, 4)).toEqual([429, 429, 429, 429]);
    });
  }, 90_000);
});
