/**
 * Snapshots and past school days computed when the data changes
 * (src/environment/stored.ts): a request whose instant falls in a stored
 * snapshot's span reads them (a history: the stored days and the snapshot's
 * today), and gets to the byte what computing would have given; any other
 * instant computes.
 * Every change of the data empties the table in its own transaction, and a
 * refresh whose data changed under it stores nothing from the old data.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { announceChange } from "../../src/db/changes.js";
import { createReadClient, type ReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { SnapshotStore } from "../../src/environment/stored.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { HOUR, movableClock, NEXT_DAY, NOW, NOW_EDGE, NOW_LATE, taiwanExport } from "./fixtures.js";

const data = taiwanExport();
const SCHOOLS = data.universities.length;
const clock = movableClock(NOW);
let t: TestGateway;
let prisma: ReadClient;

beforeAll(async () => {
  t = await testGateway(data, { db: await freshDatabase(), gateway: { now: clock.now } });
  prisma = createReadClient(t.db);
});
afterAll(async () => {
  await prisma?.$disconnect();
  await t?.close();
});

const PATHS = [
  "/api/v1/environment/snapshot?limit=100",
  "/api/v1/environment/snapshot?region=north&limit=2",
  "/api/v1/environment/schools/NTU",
  "/api/v1/environment/schools/3",
  "/api/v1/environment/schools/NTU/history?days=1",
  "/api/v1/environment/schools/NTU/history?days=7",
  "/api/v1/environment/schools/NTHU/history?days=90",
];
const GRAPHQL = `{ environmentSnapshot(limit: 100) { totalCount nodes { school { code } realtime { aqi aqiStatus pm25Ugm3 observedAtUtc }
  daily { dateLocal tempCAvg aqiAvg } dataSources { id stationIds } } }
  universities(first: 5) { nodes { code environmentHistory(days: 30) { days daily { dateLocal tempCAvg tempCMin precipTotalMm pm25Avg aqiAvg }
  dataSources { id stationIds } } } } }`;

/** Every answer at the clock's instant, and whether the stored snapshots were read (no candidate stations were). */
async function answers(): Promise<{ bodies: string[]; stored: boolean; computed: boolean }> {
  t.statements.length = 0;
  const bodies: string[] = [];
  for (const path of PATHS) bodies.push(await (await t.gateway.fetch(`http://gateway.test${path}`)).text());
  const graph = await t.graphql(GRAPHQL);
  expect(graph.errors).toBeUndefined();
  bodies.push(JSON.stringify(graph));
  return {
    bodies,
    stored: t.statements.some((s) => s.includes("FROM school_snapshot")),
    computed: t.statements.some((s) => s.includes("FROM school_station")),
  };
}

const count = async (db: Database, table = "school_snapshot") =>
  Number((await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`))[0]!.n);
/** Forgets what is stored, as a change of the data does (but without changing it). */
const forget = () => t.db.exec(`DELETE FROM school_snapshot; DELETE FROM school_day; UPDATE data_version SET days_for = NULL`);
const version = async (db: Database) => (await db.query<{ version: number }>(`SELECT version FROM data_version`))[0]!.version;

describe("stored environment snapshots", () => {
  it.each([
    ["before the readings leave the window", NOW],
    ["late in the day", NOW_LATE],
    ["at a window's edge", NOW_EDGE],
    ["on the next day", NEXT_DAY],
  ])("answer %s exactly what computing answers", async (_when, at) => {
    await clock.at(at, async () => {
      await forget();
      const computed = await answers();
      expect(computed.stored && computed.computed).toBe(true);
      expect(await new SnapshotStore(t.db, prisma, { now: clock.now }).refresh()).toBe(SCHOOLS);
      const stored = await answers();
      expect(stored.computed).toBe(false);
      expect(stored.bodies).toEqual(computed.bodies);
      // The week's history holds past days (stored) and, but on the next day, today (the snapshot's).
      const week = JSON.parse(stored.bodies[PATHS.indexOf("/api/v1/environment/schools/NTU/history?days=7")]!).data.daily;
      expect(week.length).toBeGreaterThan(1);
    });
  });

  it("are read only within their span: an instant before it or at its end computes", async () => {
    await clock.at(NOW, () => new SnapshotStore(t.db, prisma, { now: clock.now }).refresh());
    const until = (await t.db.query<{ until: Date }>(`SELECT min(valid_until) AS until FROM school_snapshot`))[0]!.until;
    expect(until.getTime()).toBeGreaterThan(NOW.getTime());
    for (const at of [new Date(NOW.getTime() - HOUR), new Date(until.getTime())]) {
      const [stored, computed] = [
        await clock.at(at, answers),
        await clock.at(at, async () => {
          await forget();
          return answers();
        }),
      ];
      expect(stored.computed).toBe(true);
      expect(stored.bodies).toEqual(computed.bodies);
      await clock.at(NOW, () => new SnapshotStore(t.db, prisma, { now: clock.now }).refresh());
    }
    expect((await clock.at(new Date(until.getTime() - 1), answers)).computed).toBe(false);
  });

  it("go with the change of the data that made them, in its transaction; a refused import keeps them", async () => {
    await clock.at(NOW, () => new SnapshotStore(t.db, prisma, { now: clock.now }).refresh());
    const before = await version(t.db);
    expect(await count(t.db)).toBe(SCHOOLS);
    await expect(importObject(t.db, { ...data, universities: [{ id: "not a school" }] })).rejects.toThrow();
    expect([await count(t.db), await version(t.db)]).toEqual([SCHOOLS, before]);
    const days = await count(t.db, "school_day");
    expect(days).toBeGreaterThan(0);
    await importObject(t.db, data);
    expect([await count(t.db), await count(t.db, "school_day"), await version(t.db)]).toEqual([0, 0, before + 1]);
  });

  it("are refreshed by two processes at once, each storing in turn", async () => {
    for (let round = 0; round < 3; round++) {
      await forget();
      const both = [0, 1].map(() => {
        const other = createReadClient(t.db);
        return clock.at(NOW, () => new SnapshotStore(t.db, other, { now: clock.now }).refresh()).finally(() => other.$disconnect());
      });
      expect(await Promise.all(both)).toEqual([SCHOOLS, SCHOOLS]);
      expect(await count(t.db, "school_day")).toBeGreaterThan(0);
    }
  });

  it("are not stored from data that changed while they were computed", async () => {
    let changes = 0;
    const changing = (times: number): Pick<Database, "query" | "transaction"> => ({
      query: (sql, params) => t.db.query(sql, params),
      async transaction(work) {
        // Another writer commits between the computing and the storing.
        if (changes++ < times) await t.db.transaction((tx) => announceChange(tx));
        return t.db.transaction(work);
      },
    });
    const start = await version(t.db);
    expect(await clock.at(NOW, () => new SnapshotStore(changing(1), prisma, { now: clock.now }).refresh())).toBe(SCHOOLS);
    expect(await version(t.db)).toBe(start + 1);
    changes = 0;
    expect(await clock.at(NOW, () => new SnapshotStore(changing(3), prisma, { now: clock.now }).refresh())).toBeUndefined();
    expect(await count(t.db)).toBe(0);
  });

  it("compute the past days once per data version and local dates, in whichever process", async () => {
    const logged: Record<string, unknown>[] = [];
    const log = { info: (object: object) => logged.push(object as Record<string, unknown>), warn: () => undefined };
    const refresh = (at: Date) => clock.at(at, () => new SnapshotStore(t.db, prisma, { now: clock.now, log }).refresh());
    await forget();
    await refresh(NOW);
    await refresh(NOW_LATE);
    await refresh(NEXT_DAY);
    expect(logged.map((line) => typeof line.days)).toEqual(["number", "undefined", "number"]);
    expect(logged[0]!.days).toBeGreaterThan(0);
    // The next day's stored history still answers as computing does.
    const stored = await clock.at(NEXT_DAY, answers);
    expect(stored.computed).toBe(false);
    const computed = await clock.at(NEXT_DAY, async () => {
      await forget();
      return answers();
    });
    expect(stored.bodies).toEqual(computed.bodies);
  });

  it("are kept by a process that starts while they are true, and computed by one that starts when they are not", async () => {
    const logged: string[] = [];
    const log = { info: (_object: object, message: string) => logged.push(message), warn: () => undefined };
    const start = async (at: Date) => {
      const store = new SnapshotStore(t.db, prisma, { now: () => at, log });
      await store.follow(t.db);
      await store.close(); // waits for a refresh it started
    };
    await forget();
    await start(NOW);
    expect(logged).toEqual(["stored the environment snapshots"]);
    const stamps = async () =>
      (await t.db.query<{ c: string }>(`SELECT computed_at::text AS c FROM school_snapshot ORDER BY 1`)).map((r) => r.c);
    const first = await stamps();
    // A second start at the same instant, and one a second later, within every span: nothing computed.
    await start(NOW);
    await start(new Date(NOW.getTime() + 1_000));
    expect(logged.slice(1)).toEqual(["kept the stored environment snapshots", "kept the stored environment snapshots"]);
    expect(await stamps()).toEqual(first);
    // The next day, the snapshots and the past days are no longer true: computed again.
    await start(NEXT_DAY);
    expect(logged.at(-1)).toBe("stored the environment snapshots");
    // One school without a snapshot: computed again.
    await t.db.exec(`DELETE FROM school_snapshot WHERE university_id = (SELECT min(university_id) FROM school_snapshot)`);
    await start(NEXT_DAY);
    expect(logged.at(-1)).toBe("stored the environment snapshots");
  });

  it("are refreshed when a change of the data is announced", async () => {
    const store = new SnapshotStore(t.db, prisma, { now: () => NOW });
    await store.follow(t.db);
    try {
      await t.db.transaction((tx) => announceChange(tx));
      const end = Date.now() + 10_000;
      while ((await count(t.db)) !== SCHOOLS) {
        if (Date.now() > end) throw new Error("no refresh after the change");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await store.close();
    }
  });
});
