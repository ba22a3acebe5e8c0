/**
 * REDIS_URL naming a master that Redis Sentinel manages
 * (`redis+sentinel://…/mymaster`, src/limits/redis-url.ts): a private master,
 * its replica and a Sentinel, and two gateway processes (`npm start`'s
 * entry). The master is stopped; the Sentinel promotes the replica; the
 * gateways follow it and answer every request meanwhile. While there is no
 * master each process counts alone, as during any Redis outage, and a key's
 * minute limit holds per process: at most the limit plus one request; once
 * the new master answers, what each counted alone is added to it, and the
 * key is refused on every process for the rest of the minute.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { KeyStore } from "../../src/keys/store.js";
import { canaryExport } from "../support/canary.js";
import { awayFromMinuteBoundary } from "../support/clock.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";
import { findRedisServer, type PrivateServer, startRedis } from "../support/servers.js";

const available = findRedisServer() !== undefined;
const LIMIT = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let master: PrivateServer;
let replica: PrivateServer;
let sentinel: PrivateServer;
let db: Database;
let limited: { id: number; key: string };
let hosts: GatewayProcess[] = [];

/** Where the Sentinel says the master is (its port). */
async function masterPort(): Promise<number> {
  const client = new Redis(sentinel.url, { maxRetriesPerRequest: 1 });
  client.on("error", () => undefined);
  try {
    const [, port] = (await client.call("SENTINEL", "get-master-addr-by-name", "mymaster")) as [string, string];
    return Number(port);
  } finally {
    client.disconnect();
  }
}

beforeAll(async () => {
  if (!available) return;
  master = await startRedis();
  replica = await startRedis(undefined, { replicaOf: master.port });
  sentinel = await startRedis(undefined, { sentinelOf: master.port });
  db = await freshDatabase();
  await importObject(db, canaryExport());
  limited = await new KeyStore(db).create({ name: "across a failover", perMinute: LIMIT });
  const env = { DATABASE_URL: db.url, REDIS_URL: `redis+sentinel://127.0.0.1:${sentinel.port}/mymaster`, LOG_LEVEL: "warn" };
  hosts = await Promise.all([startGateway("A", env), startGateway("B", env)]);
  await Promise.all(hosts.map((h) => waitReady(h)));
  // The replica has caught up with its master before anything is counted.
  const look = new Redis(replica.url);
  for (let i = 0; i < 100 && !/master_link_status:up/.test(await look.info("replication")); i++) await sleep(50);
  look.disconnect();
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  await db?.close();
  await Promise.all([sentinel?.destroy(), replica?.destroy(), master?.destroy()]);
});

describe.skipIf(!available)("REDIS_URL through Sentinel", () => {
  it("the gateways follow a failover, answer every request, and a key's limit holds per process, then across them", async () => {
    expect(await masterPort()).toBe(master.port);
    await awayFromMinuteBoundary(15_000);
    const statuses: number[] = [];
    const byHost: number[][] = [[], []];
    const ask = async (i: number) => {
      const answer = await request(hosts[i % 2]!, "/api/v1/universities", { key: limited.key });
      statuses.push(answer.status);
      byHost[i % 2]!.push(answer.status);
    };
    for (let i = 0; i < 4; i++) await ask(i);
    expect(statuses).toEqual([200, 200, 200, 200]);

    await master.stop();
    // Through the failover: the Sentinel finds the master down after 1 s and promotes the replica.
    let i = 4;
    const started = Date.now();
    while ((await masterPort()) !== replica.port) {
      expect(Date.now() - started, "the Sentinel promotes the replica").toBeLessThan(15_000);
      await ask(i++);
      await sleep(100);
    }
    // And after it, until both processes count in the new master again.
    for (let n = 0; n < 30; n++) {
      await ask(i++);
      await sleep(50);
    }
    const served = statuses.filter((s) => s === 200).length;
    expect(
      statuses.filter((s) => s !== 200 && s !== 429),
      "every request answered",
    ).toEqual([]);
    expect(served).toBeGreaterThanOrEqual(LIMIT);
    for (const [n, host] of byHost.entries()) {
      expect(host.filter((s) => s === 200).length, `served by ${hosts[n]!.name}`).toBeLessThanOrEqual(LIMIT + 1);
    }
    expect(statuses.slice(-10)).toEqual(Array(10).fill(429));
    // The counter lives in the promoted replica, now the master.
    const promoted = new Redis(replica.url);
    try {
      expect(await promoted.call("ROLE").then((role) => (role as string[])[0])).toBe("master");
      const [counter] = await promoted.keys(`uedu-rl-minute:${limited.id}:*`);
      // Every request served is counted there: before the failover by replication, during it added back by each process.
      expect(Number(await promoted.get(counter!))).toBeGreaterThanOrEqual(served);
    } finally {
      promoted.disconnect();
    }
  }, 60_000);
});
