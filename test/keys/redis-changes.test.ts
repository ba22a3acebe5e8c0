/**
 * Key changes through Redis, where REDIS_URL is set (src/keys/redis-changes.ts),
 * against a private redis-server so that restarting it disturbs nobody:
 * - a subscriber hears every publication, and hears of its own resumption
 *   after Redis came back (a change may have been missed meanwhile);
 * - a one-off publication reports a Redis that is not there, in time;
 * - a gateway on PostgreSQL with REDIS_URL refuses, within 1 s, a key that was
 *   revoked with no database notice at all, once Redis says so; its page's
 *   revocation and the `keys revoke` command both publish.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followKeyChangesOnRedis, publishKeyChange, publishKeyChangeOnce, REDIS_KEYS_CHANGED } from "../../src/keys/redis-changes.js";
import { KeyStore } from "../../src/keys/store.js";
import { signInAt } from "../support/account.js";
import { canaryExport } from "../support/canary.js";
import { cli } from "../support/cli.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";
import { findRedisServer, freePorts, type PrivateServer, startRedis } from "../support/servers.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when `count()` has grown past `from`, or fails after `ms`. */
async function grows(count: () => number, from: number, ms = 5_000): Promise<number> {
  const started = Date.now();
  while (count() <= from) {
    if (Date.now() - started > ms) throw new Error(`still ${count()} after ${ms} ms`);
    await sleep(10);
  }
  return Date.now() - started;
}

let server: PrivateServer;

beforeAll(async () => {
  if (findRedisServer()) server = await startRedis();
}, 60_000);
afterAll(async () => {
  await stopAllGateways();
  await server?.destroy();
});

describe.skipIf(!findRedisServer())("key changes on Redis", () => {
  it("a subscriber hears each publication, and its own resumption after Redis restarts", async () => {
    let heard = 0;
    const following = followKeyChangesOnRedis(server.url, () => heard++);
    const publisher = new Redis(server.url, { maxRetriesPerRequest: 1 });
    publisher.on("error", () => undefined);
    try {
      // Subscribed once a publication reaches someone.
      for (let start = Date.now(); (await publisher.publish(REDIS_KEYS_CHANGED, "")) === 0; ) {
        if (Date.now() - start > 5_000) throw new Error("the subscriber never subscribed");
        await sleep(20);
      }
      await grows(() => heard, 0);
      const before = heard;
      await publishKeyChange(publisher);
      await grows(() => heard, before, 1_000);

      const beforeRestart = heard;
      await server.restart();
      // Nothing was published: the resumption itself is heard.
      await grows(() => heard, beforeRestart, 10_000);
      const after = heard;
      expect(await publishKeyChangeOnce(server.url)).toBe(true);
      await grows(() => heard, after, 1_000);
    } finally {
      following.close();
      publisher.disconnect();
    }
  }, 30_000);

  it("a one-off publication to a Redis that is not there answers false within its time limit", async () => {
    const [port] = await freePorts(1);
    const started = Date.now();
    expect(await publishKeyChangeOnce(`redis://127.0.0.1:${port}`)).toBe(false);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe.skipIf(!findRedisServer())("a gateway with REDIS_URL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let gateway: GatewayProcess;
  let listener: Redis;
  let published = 0;

  beforeAll(async () => {
    db = await freshDatabase();
    await importObject(db, canaryExport()); // not empty: no demo import at start
    gateway = await startGateway("redis keys", { DATABASE_URL: db.url, REDIS_URL: server.url });
    listener = new Redis(server.url, { maxRetriesPerRequest: null });
    listener.on("error", () => undefined);
    listener.on("message", (channel: string) => {
      if (channel === REDIS_KEYS_CHANGED) published++;
    });
    await listener.subscribe(REDIS_KEYS_CHANGED);
    await waitReady(gateway);
  }, 120_000);
  /** Asks with `key` until the gateway refuses it (every answer before is a 200); the ms from `since`. */
  async function refusedAfter(key: string, since: number): Promise<number> {
    for (;;) {
      const answer = await request(gateway, "/api/v1/universities", { key });
      if (answer.status === 401) return Date.now() - since;
      expect(answer.status).toBe(200);
      await sleep(20);
    }
  }

  afterAll(async () => {
    listener?.disconnect();
    await stopAllGateways();
    await db?.close();
  });

  it("refuses within 1 s a key revoked with no database notice, once Redis says so", async () => {
    const { key, id } = await new KeyStore(db).create({ name: "quiet", perMinute: 100_000 });
    expect((await request(gateway, "/api/v1/universities", { key })).status).toBe(200); // now cached
    // Revoked behind the gateway's back: no NOTIFY, so only its cache (3 s) would end the key.
    await db.query(`UPDATE api_key SET revoked_at = now() WHERE id = $1`, [id]);
    expect((await request(gateway, "/api/v1/universities", { key })).status).toBe(200);
    const toldAt = Date.now();
    expect(await publishKeyChangeOnce(server.url)).toBe(true);
    expect(await refusedAfter(key, toldAt)).toBeLessThan(1_000);
  }, 60_000);

  it("publishes a revocation on its page, and so does the keys command", async () => {
    const { id } = await new KeyStore(db).create({ name: "paged", owner: "holder" });
    const holder = await signInAt(gateway.base, db, "holder");

    const before = published;
    const revoked = await holder.revoke(id);
    expect(revoked.status).toBe(303);
    await grows(() => published, before, 2_000);

    const { id: other } = await new KeyStore(db).create({ name: "by the operator" });
    const beforeCommand = published;
    const done = await cli("unused", "keys", ["revoke", String(other)], { env: { DATABASE_URL: db.url, REDIS_URL: server.url } });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toBe("");
    await grows(() => published, beforeCommand, 2_000);
  }, 60_000);

  it("the keys command still revokes when Redis is not there, and says it could not tell it", async () => {
    const { key, id } = await new KeyStore(db).create({ name: "no redis", perMinute: 100_000 });
    expect((await request(gateway, "/api/v1/universities", { key })).status).toBe(200); // now cached
    const [port] = await freePorts(1);
    const done = await cli("unused", "keys", ["revoke", String(id)], {
      env: { DATABASE_URL: db.url, REDIS_URL: `redis://127.0.0.1:${port}` },
    });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/^revoked: /);
    expect(done.stderr).toBe("keys: Redis could not be told of the change; the gateways hear of it through the database\n");
    // The database's notice still reaches the gateway.
    expect(await refusedAfter(key, Date.now())).toBeLessThan(1_000);
  }, 60_000);
});
