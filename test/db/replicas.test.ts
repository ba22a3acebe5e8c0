/**
 * Read replicas (src/db/replicas.ts) on real servers: a private primary and
 * two streaming replicas made by `pg_basebackup`, one of them held behind
 * with `recovery_min_apply_delay`. Reads land on the replicas; after a data
 * change, no read begun once the notice was heard sees the old data, however
 * far behind a replica is; a replica that goes away, lags or is no replica
 * leaves the rotation within 2 s and costs no read; with none left, the
 * primary serves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnswerCache } from "../../src/cache/answers.js";
import { DATA_CHANGED } from "../../src/db/changes.js";
import { createReadClient, type ReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { GuardViolation } from "../../src/db/guards.js";
import { parseLsn, primaryAmong, ReadRouter, type ReplicaStatus, replicaName } from "../../src/db/replicas.js";
import { readTargets } from "../../src/observe/metrics.js";
import { createGateway } from "../../src/server.js";
import { CANARIES, canaryExport, EVERYTHING } from "../support/canary.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { type PrivateServer, startPostgres, startReplica } from "../support/servers.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How far behind the delayed replica replays. */
const DELAY_MS = 1_500;

let primary: PrivateServer & { binaries: Parameters<typeof startReplica>[0]["binaries"] };
let near: PrivateServer;
let behind: PrivateServer;
let db: Database;
/** The test database's URL on a server (the throwaway database exists on the replicas too, by replication). */
let on: (server: PrivateServer) => string;
const routers: ReadRouter[] = [];
const clients: ReadClient[] = [];

/** A router over `urls`, started; closed after the file. */
async function router(urls: string[], options: { maxLagMs?: number } = {}): Promise<{ router: ReadRouter; prisma: ReadClient }> {
  const r = new ReadRouter(db, { urls, maxLagMs: options.maxLagMs ?? 5_000, pollMs: 200, checkTimeoutMs: 500 });
  routers.push(r);
  await r.start();
  const prisma = createReadClient(r);
  clients.push(prisma);
  return { router: r, prisma };
}

/** Waits until `test` holds, up to `ms`; returns how long it took. */
async function until(test: () => boolean, ms: number, what: string): Promise<number> {
  const started = Date.now();
  while (!test()) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(20);
  }
  return Date.now() - started;
}

/** Every replica in the rotation and past the fence: each may serve the next read. */
const ready = (r: ReadRouter) =>
  !r.fenceStatus().pending && r.status().every((s) => s.state === "healthy" && s.replay >= r.fenceStatus().fence);

const stateOf = (r: ReadRouter, server: PrivateServer): ReplicaStatus["state"] | undefined =>
  r.status().find((s) => s.name === `127.0.0.1:${server.port}`)?.state;

/** Reads counted for each target so far. */
async function reads(): Promise<Record<string, number>> {
  const { values } = await readTargets.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.target), v.value]));
}

/** The reads each target took while `work` ran. */
async function readsDuring(work: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await reads();
  await work();
  const after = await reads();
  return Object.fromEntries(
    Object.entries(after)
      .map(([target, n]) => [target, n - (before[target] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
}

beforeAll(async () => {
  primary = await startPostgres();
  [near, behind] = await Promise.all([startReplica(primary), startReplica(primary, { delayMs: DELAY_MS })]);
  db = await freshDatabase(primary.url);
  const name = new URL(db.url).pathname;
  on = (server) => `postgresql://postgres@127.0.0.1:${server.port}${name}`;
  await importObject(db, canaryExport());
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.$disconnect().catch(() => undefined)));
  await Promise.all(routers.map((r) => r.close()));
  await db?.close();
  await Promise.all([near?.destroy(), behind?.destroy()]);
  await primary?.destroy();
});

describe("read replicas", () => {
  it("reads land on the replicas in turn, with the guards of the primary (canaries and all)", async () => {
    const { router: r, prisma } = await router([on(near), on(behind)]);
    // The delayed replica has the test database only once it has replayed its creation.
    await until(() => ready(r), 10_000, "both replicas in the rotation, past the fence");
    const gateway = createGateway({ db, prisma, auth: false, queryLimits: { maxCost: 10_000_000 } });
    const graphql = async (query: string) =>
      (await (
        await gateway.fetch("http://gateway.test/graphql", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query }),
        })
      ).json()) as { data?: Record<string, any>; errors?: unknown };
    let body: Awaited<ReturnType<typeof graphql>> | undefined;
    const counted = await readsDuring(async () => {
      body = await graphql(EVERYTHING);
    });
    expect(body?.errors).toBeUndefined();
    const text = JSON.stringify(body);
    for (const canary of CANARIES) expect(text).not.toContain(canary);
    expect(text).toContain("公開課程1");
    expect(body?.data?.courses.totalCount).toBe(4);
    expect(body?.data?.private).toBeNull();
    expect(counted.primary ?? 0).toBe(0);
    expect(counted[replicaName(on(near), 0)]).toBeGreaterThan(2);
    expect(counted[replicaName(on(behind), 1)]).toBeGreaterThan(2);
    // The read client over the replicas refuses what the primary's refuses.
    await expect(prisma.course.findMany({ select: { joinCode: true } as never })).rejects.toBeInstanceOf(GuardViolation);
    expect(() => prisma.$transaction).toThrow(GuardViolation);
    expect(await prisma.course.findUnique({ where: { id: 2 } })).toBeNull();
    // A write through it reaches a replica, which refuses it.
    await expect(prisma.$executeRawUnsafe("DELETE FROM university WHERE false")).rejects.toThrow(/read-only transaction/);
  });

  it("after a data change, no read begun once the notice was heard sees the old data, however far behind a replica is", async () => {
    const { router: r, prisma } = await router([on(near), on(behind)]);
    await until(() => ready(r), 10_000, "both replicas in the rotation, past the fence");
    // An answer cache following the router's LISTEN, as the gateway's does.
    const answers = new AnswerCache({ ttlMs: 60_000 });
    await answers.follow(r.fenced(db));
    let heardAt = Number.POSITIVE_INFINITY;
    const heard = await r.fenced(db).listen(DATA_CHANGED, () => {
      heardAt = Math.min(heardAt, performance.now());
    });
    const generation = answers.generation;
    const seen: { startedAt: number; name: string; target: string }[] = [];
    let reading = true;
    const loop = (async () => {
      while (reading) {
        const startedAt = performance.now();
        const before = await reads();
        const [university] = await prisma.university.findMany({ where: { id: 1 }, select: { nameEn: true } });
        const after = await reads();
        const target = Object.keys(after).find((k) => after[k] !== (before[k] ?? 0)) ?? "?";
        seen.push({ startedAt, name: university!.nameEn!, target });
        await sleep(5);
      }
    })();
    await sleep(300);
    const changed = canaryExport();
    changed.universities[0]!.name_en = "National Taiwan University (renamed)";
    await importObject(db, changed);
    // Until the delayed replica has replayed the change, and a while more.
    await sleep(DELAY_MS + 1_000);
    reading = false;
    await loop;
    await heard.close();
    await answers.close();

    expect(answers.generation).toBeGreaterThan(generation);
    expect(Number.isFinite(heardAt)).toBe(true);
    const afterNotice = seen.filter((s) => s.startedAt > heardAt);
    expect(afterNotice.length).toBeGreaterThan(20);
    expect(afterNotice.filter((s) => s.name !== "National Taiwan University (renamed)")).toEqual([]);
    // Before the change, reads took turns on both replicas; after it, the delayed one served again once past the fence.
    const behindName = replicaName(on(behind), 1);
    expect(seen.filter((s) => s.startedAt < heardAt && s.target === behindName).length).toBeGreaterThan(0);
    expect(afterNotice.filter((s) => s.target === behindName).length).toBeGreaterThan(0);
    // The fence is the primary's WAL position after the change, which the delayed replica has now replayed.
    const [{ lsn }] = (await db.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn")) as [{ lsn: string }];
    expect(r.fenceStatus().fence).toBeLessThanOrEqual(parseLsn(lsn));
    expect(r.status().find((s) => s.name === behindName)!.replay).toBeGreaterThanOrEqual(r.fenceStatus().fence);
  }, 30_000);

  it("a replica stopped under load costs no read, leaves the rotation within 2 s, and returns when started", async () => {
    const { router: r, prisma } = await router([on(near), on(behind)]);
    await until(() => ready(r), 10_000, "both replicas in the rotation, past the fence");
    const failures: unknown[] = [];
    let done = 0;
    let reading = true;
    const workers = Array.from({ length: 4 }, async () => {
      while (reading) {
        try {
          expect(await prisma.course.count()).toBe(4);
          done++;
        } catch (error) {
          failures.push(error);
        }
      }
    });
    await sleep(300);
    await near.stop();
    const left = await until(() => stateOf(r, near) === "down", 2_000, "the stopped replica leaves");
    const doneWhenLeft = done;
    await sleep(500);
    expect(done).toBeGreaterThan(doneWhenLeft);
    await near.start();
    await until(() => stateOf(r, near) === "healthy", 5_000, "the started replica returns");
    const back = await readsDuring(() => sleep(300));
    reading = false;
    await Promise.all(workers);
    expect(failures).toEqual([]);
    expect(left).toBeLessThan(2_000);
    expect(back[replicaName(on(near), 0)]).toBeGreaterThan(0);
  }, 30_000);

  it("a replica that lags more than the limit leaves the rotation, and returns once caught up", async () => {
    const { router: r } = await router([on(behind)], { maxLagMs: 500 });
    await until(() => stateOf(r, behind) === "healthy", 10_000, "the delayed replica in the rotation while nothing is written");
    // Writes on the primary: the delayed replica replays each 1.5 s late.
    let writing = true;
    const writer = (async () => {
      await db.exec("CREATE TABLE IF NOT EXISTS lag_probe (at timestamptz)");
      while (writing) {
        await db.exec("INSERT INTO lag_probe VALUES (now())");
        await sleep(50);
      }
    })();
    const left = await until(() => stateOf(r, behind) === "lagging", 2_000 + 500, "the lagging replica leaves");
    expect(r.pick()).toBeUndefined();
    writing = false;
    await writer;
    await until(() => stateOf(r, behind) === "healthy", DELAY_MS + 2_000, "the replica returns once caught up");
    expect(left).toBeLessThan(2_500);
    expect(r.pick()?.name).toBe(replicaName(on(behind), 0));
  }, 20_000);

  it("with every replica out (unreachable, or the primary under another name), the primary serves", async () => {
    const unreachable = `postgresql://postgres@127.0.0.1:1${new URL(db.url).pathname}`;
    const itself = `postgresql://postgres@localhost:${primary.port}${new URL(db.url).pathname}`;
    const { router: r, prisma } = await router([unreachable, itself]);
    expect(r.status().map((s) => s.state)).toEqual(["down", "not_in_recovery"]);
    const counted = await readsDuring(async () => expect(await prisma.course.count()).toBe(4));
    expect(counted).toEqual({ primary: 1 });
    // The start refuses the primary under another name, and no real replica or unreachable server.
    expect(await primaryAmong(db.url, [on(near), unreachable, itself])).toBe(2);
    expect(await primaryAmong(db.url, [on(near), unreachable])).toBeUndefined();
  });
});
