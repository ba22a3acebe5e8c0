/**
 * School environment answers (docs/contract.md §5): a few SQL statements per batch
 * of schools (repository.ts), then the pure domain functions for the
 * inverse-distance weighting, AQI categories, rounding and sources.
 *
 * Each school's stations are read nearest first, a few per kind; when some
 * metric on some date has fewer than three stations with a value among them
 * and farther stations exist, the school is answered again with four times
 * as many, until three are found or no station is left. The answer is then
 * what weighting over every station would give, at the cost of a handful.
 */
import type { ReadClient } from "../db/client.js";
import {
  DAILY_FIELDS,
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
  validUntil,
  type ValidityInputs,
} from "../domain/environment/index.js";
import {
  type Candidate,
  candidateStations,
  type LatestRow,
  latestReadings,
  nextObservation,
  stationDays,
  type StationDayRow,
  storedHistories,
  storedSnapshots,
} from "./repository.js";
import { slices } from "./slices.js";

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
  /** The first instant (epoch ms) at which this answer may differ while the data stays (validity.ts). */
  validUntil: number;
}

export interface History {
  universityId: number;
  days: number;
  daily: SchoolDay[];
  dataSources: DataSource[];
  /** The first instant (epoch ms) at which this answer may differ while the data stays (validity.ts). */
  validUntil: number;
}

/** The value of `day_boundary` (docs/contract.md §5). */

/** Stations of each kind read first per school. */
const FIRST_CANDIDATES = 10;
const NEEDED = 3;

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

interface Attempt<T> {
  value: T;
  /** Some metric had fewer than three stations with a value among those read. */
  short: boolean;
}

interface CandidateSet {
  list: Candidate[];
  /** Farther stations exist beyond those read. */
  more: boolean;
}

async function candidatesFor(prisma: ReadClient, schools: readonly School[], perKind: number): Promise<Map<number, CandidateSet>> {
  const rows = await candidateStations(
    prisma,
    schools.map((s) => s.id),
    perKind,
  );
  const bySchool = groupBy(rows, (c) => c.universityId);
  return new Map(
    schools.map((s) => {
      const list = bySchool.get(s.id) ?? [];
      const perKindCount = groupBy(list, (c) => c.kind);
      return [s.id, { list, more: [...perKindCount.values()].some((k) => k.length >= perKind) }];
    }),
  );
}

/** Runs `attempt` with more and more stations for the schools it finds short. */
async function widening<T>(
  prisma: ReadClient,
  schools: readonly School[],
  attempt: (schools: readonly School[], candidates: Map<number, CandidateSet>) => Promise<Map<number, Attempt<T>>>,
): Promise<Map<number, T>> {
  const done = new Map<number, T>();
  let pending = schools;
  for (let perKind = FIRST_CANDIDATES; pending.length > 0; perKind *= 4) {
    const candidates = await candidatesFor(prisma, pending, perKind);
    const results = await attempt(pending, candidates);
    const again: School[] = [];
    for (const school of pending) {
      const result = results.get(school.id)!;
      if (result.short && candidates.get(school.id)!.more) again.push(school);
      else done.set(school.id, result.value);
    }
    pending = again;
  }
  return done;
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
        tempCAvg: r.temp_c_avg,
        tempCMin: r.temp_c_min,
        tempCMax: r.temp_c_max,
        rhAvg: r.rh_avg,
        precipTotalMm: r.precip_total_mm,
        pm25Avg: r.pm25_avg,
        pm10Avg: r.pm10_avg,
        aqiAvg: r.aqi_avg,
      },
    ];
  });
}

/** The dates among `dates` on which some daily field has fewer than three stations with a value. */
function shortDates(rows: readonly StationDay[], dates: readonly string[]): string[] {
  const byDate = groupBy(rows, (r) => r.date);
  return dates.filter((date) => {
    const day = byDate.get(date) ?? [];
    return DAILY_FIELDS.some((f) => day.filter((r) => r[f] !== null && r[f] !== undefined).length < NEEDED);
  });
}

interface DailyRead {
  /** The school's station-day rows on the dates read. */
  rows: StationDay[];
  /** All the local dates the answer covers, ascending. */
  dates: string[];
  /** First and last local date read (the query covered these and every date between). */
  first: string;
  last: string;
}

/**
 * Daily rows of many schools over the local dates each needs: one query per
 * time zone. With `only`, a school needs just the dates it names (the short
 * ones of an earlier round), and the query covers the span of those.
 */
async function dailyRows(
  prisma: ReadClient,
  schools: readonly School[],
  candidates: Map<number, CandidateSet>,
  datesOf: (timeZone: string) => string[],
  now: Date,
  only?: (school: School) => readonly string[],
): Promise<Map<number, DailyRead>> {
  const out = new Map<number, DailyRead>();
  for (const [timeZone, zoneSchools] of groupBy(schools, (s) => s.timezone)) {
    const dates = datesOf(timeZone);
    // ISO dates sort as text; a zone whose schools want nothing reads an empty span.
    const wanted = (only ? zoneSchools.flatMap((s) => only(s)) : dates).toSorted();
    const first = wanted[0] ?? dates[dates.length - 1]!;
    const last = wanted[wanted.length - 1] ?? dates[0]!;
    const from = localDayBounds(first, timeZone).start;
    // "So far": nothing stamped after the request's instant counts.
    const to = new Date(Math.min(localDayBounds(last, timeZone).end.getTime(), now.getTime() + 1));
    const ids = [...new Set(zoneSchools.flatMap((s) => candidates.get(s.id)!.list.map((c) => c.stationId)))];
    const rows = ids.length ? await stationDays(prisma, ids, timeZone, from, to) : [];
    const byStation = groupBy(rows, (r) => r.station_id);
    const pause = slices();
    for (const school of zoneSchools) {
      await pause();
      const own = candidates.get(school.id)!.list;
      out.set(school.id, {
        rows: toStationDays(
          own.flatMap((c) => byStation.get(c.stationId) ?? []),
          own,
        ),
        dates,
        first,
        last,
      });
    }
  }
  return out;
}

function realtimeOf(school: School, own: readonly Candidate[], latest: Map<string, LatestRow[]>, now: Date) {
  let short = false;
  const stations = own.map((c): StationLatest => {
    const readings = latest.get(c.stationId) ?? [];
    const reading = (metric: "aqi" | "pm25") => {
      const r = readings.find((x) => x.metric === metric);
      return r ? { value: r.value, observedAt: new Date(r.observed_at) } : null;
    };
    return { stationId: c.stationId, source: c.source, distanceM: c.distanceM, aqi: reading("aqi"), pm25: reading("pm25") };
  });
  for (const metric of ["aqi", "pm25"] as const) {
    if (stations.filter((s) => s[metric] !== null).length < NEEDED) short = true;
  }
  return { realtime: schoolRealtime(stations, { country: school.country, now }), short };
}

/**
 * Snapshots of many schools at `now`: those stored when the data changed
 * (stored.ts) where they are true at `now`, the others computed.
 */
export async function snapshots(prisma: ReadClient, schools: readonly School[], now: Date): Promise<Map<number, Snapshot>> {
  if (schools.length === 0) return new Map();
  const found = new Map<number, Snapshot>();
  for (const row of await storedSnapshots(
    prisma,
    schools.map((s) => s.id),
    now,
  )) {
    const body = row.body as StoredBody;
    const { observedAt } = body.realtime;
    found.set(row.universityId, {
      universityId: row.universityId,
      realtime: { ...body.realtime, observedAt: observedAt === null ? null : new Date(observedAt) },
      daily: body.daily,
      dataSources: body.dataSources,
      validUntil: row.validUntil.getTime(),
    });
  }
  const rest = schools.filter((s) => !found.has(s.id));
  if (rest.length > 0) for (const [id, snapshot] of await liveSnapshots(prisma, rest, now)) found.set(id, snapshot);
  return found;
}

/** A stored snapshot's body as JSON gives it back: its instant as text. */
type StoredBody = Omit<Snapshot, "universityId" | "validUntil" | "realtime"> & {
  realtime: Omit<Snapshot["realtime"], "observedAt"> & { observedAt: string | null };
};

/**
 * Snapshots of many schools at once, computed: per round, one candidate
 * query, one real-time query and one daily query per distinct time zone.
 */
export async function liveSnapshots(prisma: ReadClient, schools: readonly School[], now: Date): Promise<Map<number, Snapshot>> {
  if (schools.length === 0) return new Map();
  // Every reading read in any round: an answer may be valid for less than it could be, never for more.
  const readings: Date[] = [];
  const found = widening(prisma, schools, async (pending, candidates) => {
    const ids = [...new Set([...candidates.values()].flatMap((c) => c.list.map((x) => x.stationId)))];
    const latest = ids.length ? await latestReadings(prisma, ids, new Date(now.getTime() - REALTIME_WINDOW_MS), now) : [];
    for (const r of latest) readings.push(new Date(r.observed_at));
    const latestByStation = groupBy(latest, (r) => r.station_id);
    const daily = await dailyRows(prisma, pending, candidates, (tz) => lastLocalDates(now, tz, 1), now);
    const out = new Map<number, Attempt<Snapshot>>();
    const pause = slices();
    for (const school of pending) {
      await pause();
      const own = candidates.get(school.id)!.list;
      const { realtime, short } = realtimeOf(school, own, latestByStation, now);
      const { rows, dates } = daily.get(school.id)!;
      const today = dates[0]!;
      const day = schoolDaily(rows).days.find((d) => d.date === today) ?? emptySchoolDay(today);
      out.set(school.id, {
        short: short || shortDates(rows, dates).length > 0,
        value: {
          universityId: school.id,
          realtime,
          daily: day,
          dataSources: dataSources(new StationSet().add(...realtime.stations, ...day.stations).toArray()),
          validUntil: 0,
        },
      });
    }
    return out;
  });
  const [answers, next] = await Promise.all([found, nextObservation(prisma, now)]);
  return withValidity(answers, { now, timeZones: schools.map((s) => s.timezone), readings, nextObservation: next });
}

/** Gives every answer of a batch the batch's validity (the earliest of its schools'). */
function withValidity<T extends { validUntil: number }>(answers: Map<number, T>, inputs: ValidityInputs): Map<number, T> {
  const until = validUntil(inputs);
  for (const answer of answers.values()) answer.validUntil = until;
  return answers;
}

/**
 * Daily histories of many schools: the `days` local dates ending today,
 * ascending, dates without any data left out. Where a school's stored
 * snapshot is true at `now`, its past dates are the ones stored with it
 * (stored.ts) and today is the snapshot's; the others are computed.
 */
export async function histories(prisma: ReadClient, schools: readonly School[], days: number, now: Date): Promise<Map<number, History>> {
  if (schools.length === 0) return new Map();
  const found = new Map<number, History>();
  const asked = schools.map((s) => ({ universityId: s.id, first: lastLocalDates(now, s.timezone, days)[0]! }));
  for (const row of await storedHistories(prisma, asked, now)) {
    const today = (row.snapshot as StoredBody).daily;
    const daily = [...(row.days as SchoolDay[]), ...(DAILY_FIELDS.some((f) => today[f] !== null) ? [today] : [])];
    const stations = new StationSet();
    for (const day of daily) stations.add(...day.stations);
    found.set(row.universityId, {
      universityId: row.universityId,
      days,
      daily,
      dataSources: dataSources(stations.toArray()),
      validUntil: row.validUntil.getTime(),
    });
  }
  const rest = schools.filter((s) => !found.has(s.id));
  if (rest.length > 0) for (const [id, history] of await liveHistories(prisma, rest, days, now)) found.set(id, history);
  return found;
}

/**
 * Daily histories of many schools, computed: the `days` local dates ending
 * today, ascending, dates without any data left out.
 */
export async function liveHistories(
  prisma: ReadClient,
  schools: readonly School[],
  days: number,
  now: Date,
): Promise<Map<number, History>> {
  if (schools.length === 0) return new Map();
  // What each school has so far: a wider round re-reads only the span of its
  // short dates (its other dates already have their three nearest stations),
  // so asking for days before the data begins costs index probes, not a scan.
  const kept = new Map<number, { rows: StationDay[]; short: string[] }>();
  const found = widening(prisma, schools, async (pending, candidates) => {
    const only = kept.size ? (school: School) => kept.get(school.id)!.short : undefined;
    const daily = await dailyRows(prisma, pending, candidates, (tz) => lastLocalDates(now, tz, days), now, only);
    const out = new Map<number, Attempt<History>>();
    const pause = slices();
    for (const school of pending) {
      await pause();
      const { rows: fresh, dates, first, last } = daily.get(school.id)!;
      const before = (kept.get(school.id)?.rows ?? []).filter((r) => r.date < first || r.date > last);
      const rows = [...before, ...fresh];
      const short = shortDates(rows, dates);
      kept.set(school.id, { rows, short });
      const result = schoolDaily(rows);
      out.set(school.id, {
        short: short.length > 0,
        value: { universityId: school.id, days, daily: result.days, dataSources: dataSources(result.stations), validUntil: 0 },
      });
    }
    return out;
  });
  const [answers, next] = await Promise.all([found, nextObservation(prisma, now)]);
  return withValidity(answers, { now, timeZones: schools.map((s) => s.timezone), nextObservation: next });
}
