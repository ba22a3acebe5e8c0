/**
 * The SQL behind the environment answers. Hourly rows never reach Node:
 * per-station daily aggregates are computed by PostgreSQL in the school's
 * time zone (`AT TIME ZONE`), and real-time values are one row per station.
 */
import type { ReadClient } from "../db/client.js";
import { StationKind } from "../generated/prisma/enums.js";
import type { SourceId } from "../domain/environment/index.js";
import { localDate, localDayBounds } from "../domain/environment/index.js";

export interface Candidate {
  universityId: number;
  stationId: string;
  kind: "weather" | "air";
  source: SourceId;
  distanceM: number;
}

/**
 * The `perKind` nearest stations of each kind for these schools (ranked by the
 * importer). A plain join: Prisma's nested `station { source }` built one
 * JSON object per row and decoded it again (half of the Prisma share of a
 * 100-school snapshot's CPU). Naming every kind lets PostgreSQL bound `rank`
 * in the (university_id, kind, rank) index instead of scanning every ranked
 * station.
 */
export function candidateStations(prisma: ReadClient, universityIds: readonly number[], perKind: number): Promise<Candidate[]> {
  return prisma.$queryRaw<Candidate[]>`
    SELECT ss.university_id AS "universityId", ss.station_id AS "stationId", ss.kind::text AS kind,
           s.source::text AS source, ss.distance_m AS "distanceM"
      FROM school_station ss
      JOIN station s ON s.id = ss.station_id
     WHERE ss.university_id = ANY(${[...universityIds]}::int[])
       AND ss.kind = ANY(${Object.values(StationKind)}::text[]::"StationKind"[])
       AND ss.rank <= ${perKind}
     ORDER BY ss.university_id, ss.distance_m`;
}

export interface StationDayRow {
  station_id: string;
  date: string;
  temp_c_avg: number | null;
  temp_c_min: number | null;
  temp_c_max: number | null;
  rh_avg: number | null;
  precip_total_mm: number | null;
  pm25_avg: number | null;
  pm10_avg: number | null;
  aqi_avg: number | null;
}

/**
 * Per-station aggregates for each local date of `timeZone` in [from, to),
 * where `from` is the start of a local date. Dates are read from
 * `station_day` (src/import/daily.ts): every date that ended by `to`, and the
 * date `to` falls in when all that a station's row covers came before `to`
 * (the row then holds exactly the hours "so far"). A station whose row for
 * that date reaches past `to` (a clock behind the data) has it aggregated from
 * its hourly rows up to `to`, adding them in time order as the stored rows were.
 */
export function stationDays(
  prisma: ReadClient,
  stationIds: readonly string[],
  timeZone: string,
  from: Date,
  to: Date,
): Promise<StationDayRow[]> {
  const ids = [...stationIds];
  const firstDate = localDate(from, timeZone);
  const partialDate = localDate(to, timeZone);
  const partialStart = new Date(Math.max(from.getTime(), localDayBounds(partialDate, timeZone).start.getTime()));
  return prisma.$queryRaw<StationDayRow[]>`
    WITH stored AS (
      SELECT station_id, date, temp_c_avg, temp_c_min, temp_c_max, rh_avg, precip_total_mm, pm25_avg, pm10_avg, aqi_avg, last_observed_at
        FROM station_day
       WHERE timezone = ${timeZone} AND station_id = ANY(${ids}::text[])
         AND date >= ${firstDate}::date AND date <= ${partialDate}::date
    ), live AS (
      SELECT unnest(${ids}::text[]) AS station_id
      EXCEPT
      SELECT station_id FROM stored WHERE date = ${partialDate}::date AND last_observed_at < ${to}
    )
    SELECT station_id, to_char(date, 'YYYY-MM-DD') AS date,
           temp_c_avg, temp_c_min, temp_c_max, rh_avg, precip_total_mm, pm25_avg, pm10_avg, aqi_avg
      FROM stored
     WHERE date < ${partialDate}::date OR last_observed_at < ${to}
    UNION ALL
    SELECT o.station_id,
           to_char(o.observed_at AT TIME ZONE ${timeZone}, 'YYYY-MM-DD') AS date,
           avg(temp_c ORDER BY observed_at) AS temp_c_avg, min(temp_c) AS temp_c_min, max(temp_c) AS temp_c_max,
           avg(rh ORDER BY observed_at) AS rh_avg, sum(precip_mm ORDER BY observed_at) AS precip_total_mm,
           avg(pm25_ugm3 ORDER BY observed_at) AS pm25_avg, avg(pm10_ugm3 ORDER BY observed_at) AS pm10_avg,
           avg(aqi ORDER BY observed_at) AS aqi_avg
      FROM observation o
      JOIN live ON live.station_id = o.station_id
     WHERE o.observed_at >= ${partialStart} AND o.observed_at < ${to}
     GROUP BY 1, 2`;
}

export interface LatestRow {
  station_id: string;
  metric: "aqi" | "pm25";
  value: number;
  observed_at: Date;
}

/** Each station's most recent non-null AQI and PM2.5 in [since, until]. */
export function latestReadings(prisma: ReadClient, stationIds: readonly string[], since: Date, until: Date): Promise<LatestRow[]> {
  const ids = [...stationIds];
  return prisma.$queryRaw<LatestRow[]>`
    (SELECT DISTINCT ON (station_id) station_id, 'aqi' AS metric, aqi AS value, observed_at
       FROM observation
      WHERE station_id = ANY(${ids}::text[]) AND observed_at >= ${since} AND observed_at <= ${until} AND aqi IS NOT NULL
      ORDER BY station_id, observed_at DESC)
    UNION ALL
    (SELECT DISTINCT ON (station_id) station_id, 'pm25' AS metric, pm25_ugm3 AS value, observed_at
       FROM observation
      WHERE station_id = ANY(${ids}::text[]) AND observed_at >= ${since} AND observed_at <= ${until} AND pm25_ugm3 IS NOT NULL
      ORDER BY station_id, observed_at DESC)`;
}

/**
 * The first observation instant after `after`, of any station (null when
 * none): when a reading stamped ahead of the clock comes due, an answer
 * computed before it changes (src/domain/environment/validity.ts).
 */
export async function nextObservation(prisma: ReadClient, after: Date): Promise<Date | null> {
  const [row] = await prisma.$queryRaw<{ at: Date | null }[]>`SELECT min(observed_at) AS at FROM observation WHERE observed_at > ${after}`;
  return row?.at ?? null;
}

/** A stored snapshot (src/environment/stored.ts) as read: its school, the end of its span, and its body as stored. */
export interface StoredSnapshotRow {
  universityId: number;
  validUntil: Date;
  body: unknown;
}

/** The stored snapshots of these schools that are true at `now` (computed for an instant at or before it, and true until after it). */
export function storedSnapshots(prisma: ReadClient, universityIds: readonly number[], now: Date): Promise<StoredSnapshotRow[]> {
  return prisma.$queryRaw<StoredSnapshotRow[]>`
    SELECT university_id AS "universityId", valid_until AS "validUntil", body
      FROM school_snapshot
     WHERE university_id = ANY(${[...universityIds]}::int[]) AND computed_at <= ${now} AND valid_until > ${now}`;
}

/** A stored history (src/environment/stored.ts) as read: the school's stored snapshot, and its stored past days from `first` on. */
export interface StoredHistoryRow {
  universityId: number;
  validUntil: Date;
  snapshot: unknown;
  /** Past school days (the stored bodies), ascending by date. */
  days: unknown[];
}

/**
 * For each school whose stored snapshot is true at `now`, that snapshot (its
 * today) and the stored days of the school from its `first` date on.
 */
export function storedHistories(
  prisma: ReadClient,
  schools: readonly { universityId: number; first: string }[],
  now: Date,
): Promise<StoredHistoryRow[]> {
  return prisma.$queryRaw<StoredHistoryRow[]>`
    SELECT s.university_id AS "universityId", s.valid_until AS "validUntil", s.body AS snapshot,
           coalesce((SELECT json_agg(d.body ORDER BY d.date) FROM school_day d
                      WHERE d.university_id = s.university_id AND d.date >= a.first), '[]'::json) AS days
      FROM unnest(${schools.map((s) => s.universityId)}::int[], ${schools.map((s) => s.first)}::date[]) AS a(id, first)
      JOIN school_snapshot s ON s.university_id = a.id
     WHERE s.computed_at <= ${now} AND s.valid_until > ${now}`;
}
