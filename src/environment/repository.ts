/**
 * The SQL behind the environment answers. Hourly rows never reach Node:
 * per-station daily aggregates are computed by PostgreSQL in the school's
 * time zone (`AT TIME ZONE`), and real-time values are one row per station.
 */
import type { ReadClient } from "../db/client.js";
import type { SourceId } from "../domain/environment/index.js";

export interface Candidate {
  universityId: number;
  stationId: string;
  kind: "weather" | "air";
  source: SourceId;
  distanceM: number;
}

/** The `perKind` nearest stations of each kind for these schools (ranked by the importer). */
export async function candidateStations(prisma: ReadClient, universityIds: readonly number[], perKind: number): Promise<Candidate[]> {
  const rows = await prisma.schoolStation.findMany({
    where: { universityId: { in: [...universityIds] }, rank: { lte: perKind } },
    select: { universityId: true, stationId: true, kind: true, distanceM: true, station: { select: { source: true } } },
    orderBy: [{ universityId: "asc" }, { distanceM: "asc" }],
  });
  return rows.map((r) => ({
    universityId: r.universityId,
    stationId: r.stationId,
    kind: r.kind,
    source: r.station.source,
    distanceM: r.distanceM,
  }));
}

export interface StationDayRow {
  station_id: string;
  date: string;
  temp_avg: number | null;
  temp_min: number | null;
  temp_max: number | null;
  rh_avg: number | null;
  precip_total: number | null;
  pm25_avg: number | null;
  pm10_avg: number | null;
  aqi_avg: number | null;
}

/** Per-station aggregates for each local date of `timeZone` in [from, to). */
export function stationDays(
  prisma: ReadClient,
  stationIds: readonly string[],
  timeZone: string,
  from: Date,
  to: Date,
): Promise<StationDayRow[]> {
  return prisma.$queryRaw<StationDayRow[]>`
    SELECT station_id,
           to_char(observed_at AT TIME ZONE ${timeZone}, 'YYYY-MM-DD') AS date,
           avg(temp_c) AS temp_avg, min(temp_c) AS temp_min, max(temp_c) AS temp_max,
           avg(rh) AS rh_avg, sum(precip_mm) AS precip_total,
           avg(pm25_ugm3) AS pm25_avg, avg(pm10_ugm3) AS pm10_avg, avg(aqi) AS aqi_avg
      FROM observation
     WHERE station_id = ANY(${[...stationIds]}::text[])
       AND observed_at >= ${from} AND observed_at < ${to}
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
