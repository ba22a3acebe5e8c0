/**
 * `station_day`: each station's aggregates per local date in every school
 * time zone, rebuilt by the importer and backfilled by its migration. It must
 * hold what aggregating the hourly rows gives (to 12 significant digits: a
 * float average's last bits follow the order the plan sums the rows in, and
 * the import leaves planner statistics that change that plan), follow a re-import,
 * and be what a history reads for its complete dates, and for the date still
 * going on when everything its row covers came before the request.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { localDayBounds } from "../../src/domain/environment/index.js";
import { stationDays } from "../../src/environment/repository.js";
import { openDatabase } from "../../src/db/driver.js";
import { migrate, readMigrations } from "../../src/db/migrate.js";
import { freshDatabase, freshEmbedded, importObject } from "../support/databases.js";
import { createThrowawayDatabase } from "../support/throwaway-postgres.js";
import { NOW, obs, taiwanExport, usExport } from "./fixtures.js";

/** Rows with every number to 12 significant digits (see the module's comment). */
const digits = (rows: unknown[]) =>
  rows.map((row) =>
    Object.fromEntries(Object.entries(row as object).map(([k, v]) => [k, typeof v === "number" ? Number(v.toPrecision(12)) : v])),
  );

/** Every station's aggregates per local date, computed from the hourly rows now. */
const LIVE = `
  SELECT o.station_id, z.timezone, to_char(o.observed_at AT TIME ZONE z.timezone, 'YYYY-MM-DD') AS date,
         avg(temp_c) AS temp_c_avg, min(temp_c) AS temp_c_min, max(temp_c) AS temp_c_max, avg(rh) AS rh_avg,
         sum(precip_mm) AS precip_total_mm, avg(pm25_ugm3) AS pm25_avg, avg(pm10_ugm3) AS pm10_avg, avg(aqi) AS aqi_avg
    FROM observation o CROSS JOIN (SELECT DISTINCT timezone FROM university) z
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;
const STORED = `
  SELECT station_id, timezone, to_char(date, 'YYYY-MM-DD') AS date, temp_c_avg, temp_c_min, temp_c_max, rh_avg,
         precip_total_mm, pm25_avg, pm10_avg, aqi_avg
    FROM station_day ORDER BY 1, 2, 3`;

/** Taiwan's and the United States' fixtures in one export: three time zones. */
function both() {
  const tw = taiwanExport();
  const us = usExport();
  const usIds = new Set(us.universities.map((u) => u.id));
  const usStations = new Set(us.stations.map((s) => s.id));
  return {
    ...tw,
    universities: [...tw.universities.filter((u) => !usIds.has(u.id)), ...us.universities],
    stations: [...tw.stations.filter((s) => !usStations.has(s.id)), ...us.stations],
    observations: [...tw.observations.filter((o) => !usStations.has(o.station_id)), ...us.observations],
  };
}

for (const kind of ["the embedded PostgreSQL", "the run's server"] as const) {
  describe(`station_day on ${kind}`, () => {
    let db: Database;
    beforeAll(async () => {
      db = kind === "the embedded PostgreSQL" ? await freshEmbedded() : await freshDatabase();
    }, 60_000);
    afterAll(async () => {
      await db?.close();
    });

    it("holds what aggregating the hourly rows gives, in every school time zone", async () => {
      await importObject(db, both());
      const stored = await db.query(STORED);
      expect(new Set(stored.map((r) => (r as { timezone: string }).timezone)).size).toBeGreaterThanOrEqual(3);
      expect(stored.length).toBeGreaterThan(10);
      expect(digits(stored)).toEqual(digits(await db.query(LIVE)));
    });

    it("follows a re-import that changes, adds and removes observations", async () => {
      const data = both();
      const changed = data.observations.findIndex((o) => o.temp_c !== null && o.temp_c !== undefined);
      data.observations[changed] = { ...data.observations[changed]!, temp_c: 66 };
      data.observations.pop();
      data.observations.push(obs(data.stations[0]!.id, "2026-02-01T03:00:00Z", { temp_c: -5 }));
      await importObject(db, data);
      const stored = await db.query(STORED);
      expect(digits(stored)).toEqual(digits(await db.query(LIVE)));
      expect(stored.some((r) => (r as { temp_c_max: number }).temp_c_max === 66)).toBe(true);
      expect(stored.some((r) => (r as { date: string }).date === "2026-02-01")).toBe(true);
    });

    it("serves the date still going on from its row when the row's newest hour is before the request, from the hours otherwise", async () => {
      await importObject(db, both());
      const [row] = await db.query<{ station_id: string; date: string; last: Date; temp_c_max: number }>(
        `SELECT station_id, to_char(date, 'YYYY-MM-DD') AS date, last_observed_at AS last, temp_c_max FROM station_day
          WHERE timezone = 'Asia/Taipei' AND temp_c_max IS NOT NULL ORDER BY last_observed_at DESC, station_id LIMIT 1`,
      );
      const { station_id: station, date } = row!;
      const last = new Date(row!.last);
      // Marks the stored row, so that the answer shows which one was read.
      await db.exec(
        `UPDATE station_day SET temp_c_max = 999 WHERE timezone = 'Asia/Taipei' AND station_id = '${station}' AND date = '${date}'`,
      );
      const prisma = createReadClient(db);
      try {
        const from = localDayBounds(date, "Asia/Taipei").start;
        const read = async (to: Date) =>
          (await stationDays(prisma, [station], "Asia/Taipei", from, to)).find((r) => r.station_id === station && r.date === date);
        // The newest hour came before the request: the row holds exactly the hours so far.
        expect((await read(new Date(last.getTime() + 1)))?.temp_c_max).toBe(999);
        // A request at the newest hour itself must not count it: aggregated from the hours before.
        const [live] = await db.query<{ temp_c_max: number | null }>(
          `SELECT max(temp_c) AS temp_c_max FROM observation WHERE station_id = '${station}' AND observed_at >= $1 AND observed_at < $2`,
          [from.toISOString(), last.toISOString()],
        );
        expect((await read(last))?.temp_c_max ?? null).toBe(live!.temp_c_max);
        expect(live!.temp_c_max).not.toBe(999);
      } finally {
        await prisma.$disconnect();
      }
    });
  });
}

it("is backfilled from the data already there when its migration is applied", async () => {
  const { url, drop } = await createThrowawayDatabase(inject("postgresUrl"), "gw_backfill");
  const db = await openDatabase({ databaseUrl: url });
  try {
    const migrations = readMigrations();
    const index = migrations.findIndex((m) => m.name.endsWith("_station_day"));
    await migrate(db, migrations.slice(0, index));
    await db.exec(`
      INSERT INTO university (id, code, code_key, name_zh, country, timezone, latitude, longitude)
        VALUES (1, 'A', 'a', '甲', 'TW', 'Asia/Taipei', 25, 121.5), (2, 'B', 'b', '乙', 'US', 'America/New_York', 40.7, -74);
      INSERT INTO station (id, name, kind, source, country, latitude, longitude) VALUES ('w', 'W', 'weather', 'cwa', 'TW', 25, 121.5);
      INSERT INTO observation (station_id, observed_at, temp_c) VALUES
        ('w', '${NOW.toISOString()}', 20), ('w', '2026-03-08T17:00:00Z', 10), ('w', '2026-03-08T15:00:00Z', 30);`);
    await migrate(db);
    const stored = await db.query(STORED);
    expect(digits(stored)).toEqual(digits(await db.query(LIVE)));
    // The newest observation of each row is filled in too (the migration after station_day's).
    const [{ missing }] = (await db.query<{ missing: number }>(
      `SELECT count(*)::int AS missing FROM station_day d
        WHERE last_observed_at IS DISTINCT FROM (SELECT max(observed_at) FROM observation o
                WHERE o.station_id = d.station_id AND (o.observed_at AT TIME ZONE d.timezone)::date = d.date)`,
    )) as [{ missing: number }];
    expect(missing).toBe(0);
    // Taipei splits 15:00Z and 17:00Z of 03-08 into two dates; New York keeps them on one.
    expect(stored.map((r) => `${(r as { timezone: string }).timezone} ${(r as { date: string }).date}`)).toEqual([
      "America/New_York 2026-03-08",
      "America/New_York 2026-03-09",
      "Asia/Taipei 2026-03-08",
      "Asia/Taipei 2026-03-09",
    ]);
  } finally {
    await db.close();
    await drop();
  }
});
