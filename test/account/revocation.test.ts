/**
 * A key revoked on "My API Keys" is refused everywhere within a second: two
 * gateway processes on one PostgreSQL database, each having verified (and
 * cached) the key; the holder revokes it on the first one's page, and the
 * second refuses it within 1 s. So does a revocation by the operator's
 * command, which runs in a process of its own. A key rolled by the command
 * keeps its old secret through the overlap on both, and both stop it within
 * 1 s of the overlap's end.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { KeyStore } from "../../src/keys/store.js";
import { signInAt } from "../support/account.js";
import { canaryExport } from "../support/canary.js";
import { cli } from "../support/cli.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let a: GatewayProcess;
let b: GatewayProcess;

beforeAll(async () => {
  db = await freshDatabase();
  await importObject(db, canaryExport()); // not empty: no demo import at start
  a = await startGateway("gateway A", { DATABASE_URL: db.url });
  b = await startGateway("gateway B", { DATABASE_URL: db.url });
  await Promise.all([waitReady(a), waitReady(b)]);
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  await db?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long after `since` each gateway first refuses `key` (polling every 20 ms, up to 30 s). */
function refusedAfter(gateways: GatewayProcess[], key: string, since: () => number): Promise<number[]> {
  return Promise.all(
    gateways.map(async (gateway) => {
      for (let start = Date.now(); Date.now() - start < 30_000; ) {
        const answer = await request(gateway, "/api/v1/universities", { key });
        if (answer.status === 401) return Date.now() - since();
        expect(answer.status).toBe(200);
        await sleep(20);
      }
      return Number.POSITIVE_INFINITY;
    }),
  );
}

it("revoked on one process's page, refused by the other within 1 s", async () => {
  // Its own per-minute limit is high: the polling must meet the revocation, not the limit.
  const { key, id } = await new KeyStore(db).create({ name: "shared", owner: "holder", perMinute: 100_000 });
  for (const gateway of [a, b]) expect((await request(gateway, "/api/v1/universities", { key })).status).toBe(200);

  const holder = await signInAt(a.base, db, "holder");

  let revokedAt = 0;
  const watching = refusedAfter([b], key, () => revokedAt);
  revokedAt = Date.now();
  const revoked = await holder.revoke(id);
  expect(revoked.status).toBe(303);
  const [elapsed] = await watching;
  expect(elapsed).toBeLessThan(1_000);
  expect((await request(a, "/api/v1/universities", { key })).status).toBe(401);
}, 60_000);

it("revoked by the operator's command, refused by both processes within 1 s", async () => {
  const { key, id } = await new KeyStore(db).create({ name: "by the operator", perMinute: 100_000 });
  for (const gateway of [a, b]) expect((await request(gateway, "/api/v1/universities", { key })).status).toBe(200);
  // The command's own start (tsx, migrations) is not the revocation: time from its exit.
  const done = await cli("unused", "keys", ["revoke", String(id)], { env: { DATABASE_URL: db.url } });
  const revokedAt = Date.now();
  expect(done.code, done.stderr).toBe(0);
  for (const elapsed of await refusedAfter([a, b], key, () => revokedAt)) expect(elapsed).toBeLessThan(1_000);
}, 60_000);

it("a rolled key's old secret works on both processes through the overlap, and stops on both within 1 s of its end", async () => {
  const { key, id } = await new KeyStore(db).create({ name: "rolled", perMinute: 100_000 });
  for (const gateway of [a, b]) expect((await request(gateway, "/api/v1/universities", { key })).status).toBe(200);
  const rolled = await cli("unused", "keys", ["roll", String(id), "--overlap", "5s", "--json"], { env: { DATABASE_URL: db.url } });
  expect(rolled.code, rolled.stderr).toBe(0);
  const { key: fresh, previous_until } = JSON.parse(rolled.stdout.trim().split("\n").at(-1)!) as { key: string; previous_until: string };
  const until = Date.parse(previous_until);
  for (const gateway of [a, b]) expect((await request(gateway, "/api/v1/universities", { key: fresh })).status).toBe(200);
  // Each process: the old secret is served until the overlap ends, and refused as rolled within 1 s after.
  const stops = await Promise.all(
    [a, b].map(async (gateway) => {
      for (let served = 0; ; served++) {
        const sentAt = Date.now();
        const answer = await request(gateway, "/api/v1/universities", { key });
        if (answer.status === 401) {
          expect(answer.text).toContain("was replaced by a new one (rolled)");
          // It was served for a while first: the overlap was not cut short.
          expect(served).toBeGreaterThan(0);
          return sentAt;
        }
        expect(answer.status).toBe(200);
        // Served only while the overlap lasts (the answer may be read after it ends, never sent after).
        expect(sentAt).toBeLessThan(until);
        if (Date.now() - until > 5_000) return Number.POSITIVE_INFINITY;
        await sleep(20);
      }
    }),
  );
  for (const stop of stops) expect(stop - until).toBeLessThan(1_000);
  for (const gateway of [a, b]) expect((await request(gateway, "/api/v1/universities", { key: fresh })).status).toBe(200);
}, 60_000);
