/**
 * Rebuilds `station_day` (each station's aggregates per local date, in every
 * time zone a school is in) from the observations, inside the writer's
 * transaction: a history then reads its complete days from it
 * (src/environment/repository.ts), and a date still going on too when its
 * newest observation is older than the request. The aggregates are those the
 * history computed from the hourly rows before: the same functions over the
 * same rows.
 */
import type { Database } from "../db/driver.js";

type Tx = Pick<Database, "exec" | "query">;

/**
 * Each sum and mean adds its hours in time order: floating-point addition
 * depends on the order, and without one PostgreSQL adds in the rows' order on
 * disk, which the database's past (an earlier import, an ingest) decides. So
 * a day's means are the same whatever the database held before, and the same
 * as the live query's (src/environment/repository.ts). At 1,100,000
 * observations the rebuild took as long with the order as without (3.0-3.6 s).
 */
const AGGREGATES = `o.station_id, z.timezone, (o.observed_at AT TIME ZONE z.timezone)::date,
           avg(o.temp_c ORDER BY o.observed_at), min(o.temp_c), max(o.temp_c), avg(o.rh ORDER BY o.observed_at),
           sum(o.precip_mm ORDER BY o.observed_at), avg(o.pm25_ugm3 ORDER BY o.observed_at),
           avg(o.pm10_ugm3 ORDER BY o.observed_at), avg(o.aqi ORDER BY o.observed_at), max(o.observed_at)`;
const COLUMNS = `station_id, timezone, date, temp_c_avg, temp_c_min, temp_c_max, rh_avg, precip_total_mm, pm25_avg, pm10_avg, aqi_avg, last_observed_at`;

/** Rebuilds every row (the platform export's import replaces everything). */
export async function rebuildStationDays(tx: Tx): Promise<void> {
  await tx.exec(`
    DELETE FROM station_day;
    INSERT INTO station_day (${COLUMNS})
    SELECT ${AGGREGATES}
      FROM observation o
     CROSS JOIN (SELECT DISTINCT timezone FROM university) z
     GROUP BY 1, 2, 3`);
}

/**
 * Rebuilds the rows of `stationIds` for every local date, in every school
 * time zone, that an instant in [from, to] falls on: what a feed that wrote
 * observations of those stations in that span changed.
 */
export async function rebuildStationDaysOf(tx: Tx, stationIds: readonly string[], from: Date, to: Date): Promise<void> {
  if (stationIds.length === 0) return;
  const params = [[...stationIds], from, to];
  const dates = `BETWEEN ($2::timestamptz AT TIME ZONE z.timezone)::date AND ($3::timestamptz AT TIME ZONE z.timezone)::date`;
  await tx.query(
    `DELETE FROM station_day d USING (SELECT DISTINCT timezone FROM university) z
      WHERE d.timezone = z.timezone AND d.station_id = ANY($1::text[]) AND d.date ${dates}`,
    params,
  );
  // Local dates reach at most 14 hours either side of UTC: the observations of those dates lie within a day of the span.
  await tx.query(
    `INSERT INTO station_day (${COLUMNS})
     SELECT ${AGGREGATES}
       FROM observation o
      CROSS JOIN (SELECT DISTINCT timezone FROM university) z
      WHERE o.station_id = ANY($1::text[])
        AND o.observed_at >= $2::timestamptz - interval '1 day' AND o.observed_at < $3::timestamptz + interval '1 day'
        AND (o.observed_at AT TIME ZONE z.timezone)::date ${dates}
      GROUP BY 1, 2, 3`,
    params,
  );
}
