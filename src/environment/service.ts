/**
 * School environment answers (CONTRACT §5): a few SQL statements per batch
 * of schools (repository.ts), then the pure domain functions for the
 * inverse-distance weighting, AQI categories, rounding and sources.
 */
import type { ReadClient } from "../db/client.js";
import {
  dataSources,
  type DataSource,
  emptySchoolDay,
  lastLocalDates,
  localDayBounds,
  REALTIME_WINDOW_MS,
  type SchoolDay,
  schoolDaily,
  schoolRealtime,
  type SchoolRealtime,
  type StationDay,
  type StationLatest,
  StationSet,
} from "../domain/environment/index.js";
import { type Candidate, candidateStations, latestReadings, stationDays, type StationDayRow } from "./repository.js";

/** What the environment needs of a school. */
export interface School {
  id: number;
  country: string;
  timezone: string;
}

export interface Snapshot {
  universityId: number;
  realtime: SchoolRealtime;
  daily: SchoolDay;
  dataSources: DataSource[];
}

export interface History {
  universityId: number;
  days: number;
  daily: SchoolDay[];
  dataSources: DataSource[];
}

/** The value of `day_boundary` (CONTRACT §5). */
export const DAY_BOUNDARY = "school local timezone";

function groupBy<T, K>(items: readonly T[], key: (t: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  }
  return map;
}

function toStationDays(rows: readonly StationDayRow[], candidates: readonly Candidate[]): StationDay[] {
  const byId = new Map(candidates.map((c) => [c.stationId, c]));
  return rows.flatMap((r) => {
    const c = byId.get(r.station_id);
    if (!c) return [];
    return [
      {
        stationId: c.stationId,
        source: c.source,
        distanceM: c.distanceM,
        date: r.date,
        tempAvg: r.temp_avg,
        tempMin: r.temp_min,
        tempMax: r.temp_max,
        rhAvg: r.rh_avg,
        precipTotal: r.precip_total,
        pm25Avg: r.pm25_avg,
        pm10Avg: r.pm10_avg,
        aqiAvg: r.aqi_avg,
      },
    ];
  });
}

/**
 * Snapshots of many schools at once: one candidate query, one real-time
 * query, and one daily query per distinct time zone.
 */
export async function snapshots(prisma: ReadClient, schools: readonly School[], now: Date): Promise<Map<number, Snapshot>> {
  const result = new Map<number, Snapshot>();
  if (schools.length === 0) return result;
  const candidates = groupBy(await candidateStations(prisma, schools.map((s) => s.id)), (c) => c.universityId);
  const allIds = [...new Set([...candidates.values()].flat().map((c) => c.stationId))];
  const latest = allIds.length
    ? await latestReadings(prisma, allIds, new Date(now.getTime() - REALTIME_WINDOW_MS), now)
    : [];
  const latestByStation = groupBy(latest, (r) => r.station_id);

  for (const [timeZone, zoneSchools] of groupBy(schools, (s) => s.timezone)) {
    const today = lastLocalDates(now, timeZone, 1)[0]!;
    const { start, end } = localDayBounds(today, timeZone);
    const zoneIds = [...new Set(zoneSchools.flatMap((s) => candidates.get(s.id) ?? []).map((c) => c.stationId))];
    const dayRows = zoneIds.length ? await stationDays(prisma, zoneIds, timeZone, start, end) : [];
    for (const school of zoneSchools) {
      const own = candidates.get(school.id) ?? [];
      const ownIds = new Set(own.map((c) => c.stationId));
      const realtime = schoolRealtime(
        own.map((c): StationLatest => {
          const readings = latestByStation.get(c.stationId) ?? [];
          const reading = (metric: "aqi" | "pm25") => {
            const r = readings.find((x) => x.metric === metric);
            return r ? { value: r.value, observedAt: new Date(r.observed_at) } : null;
          };
          return { stationId: c.stationId, source: c.source, distanceM: c.distanceM, aqi: reading("aqi"), pm25: reading("pm25") };
        }),
        { country: school.country, now },
      );
      const daily = schoolDaily(toStationDays(dayRows.filter((r) => ownIds.has(r.station_id)), own));
      const day = daily.days.find((d) => d.date === today) ?? emptySchoolDay(today);
      result.set(school.id, {
        universityId: school.id,
        realtime,
        daily: day,
        dataSources: dataSources(new StationSet().add(...realtime.stations, ...day.stations).toArray()),
      });
    }
  }
  return result;
}

/** Daily history of one school: the `days` local dates ending today, ascending, empty dates left out. */
export async function history(prisma: ReadClient, school: School, days: number, now: Date): Promise<History> {
  const dates = lastLocalDates(now, school.timezone, days);
  const from = localDayBounds(dates[0]!, school.timezone).start;
  const to = localDayBounds(dates[dates.length - 1]!, school.timezone).end;
  const candidates = await candidateStations(prisma, [school.id]);
  const rows = candidates.length
    ? await stationDays(prisma, candidates.map((c) => c.stationId), school.timezone, from, to)
    : [];
  const daily = schoolDaily(toStationDays(rows, candidates));
  return { universityId: school.id, days, daily: daily.days, dataSources: dataSources(daily.stations) };
}
