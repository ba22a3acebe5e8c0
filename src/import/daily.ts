/**
 * Rebuilds `station_day` (each station's aggregates per local date, in every
 * time zone a school is in) from the observations, inside the import's
 * transaction: a history then reads its complete days from it
 * (src/environment/repository.ts), and a date still going on too when its
 * newest observation is older than the request. The aggregates are those the
 * history computed from the hourly rows before: the same functions over the
 * same rows.
 */
import type { Database } from "../db/driver.js";

export async function rebuildStationDays(tx: Pick<Database, "exec">): Promise<void> {
  await tx.exec(`
    DELETE FROM station_day;
    INSERT INTO station_day (station_id, timezone, date, temp_avg, temp_min, temp_max, rh_avg, precip_total, pm25_avg, pm10_avg, aqi_avg,
                             last_observed_at)
    SELECT o.station_id, z.timezone, (o.observed_at AT TIME ZONE z.timezone)::date,
           avg(o.temp_c), min(o.temp_c), max(o.temp_c), avg(o.rh), sum(o.precip_mm),
           avg(o.pm25_ugm3), avg(o.pm10_ugm3), avg(o.aqi), max(o.observed_at)
      FROM observation o
     CROSS JOIN (SELECT DISTINCT timezone FROM university) z
     GROUP BY 1, 2, 3`);
}
