import { idw } from "./idw.js";
import { round1, roundInt } from "./rounding.js";
import type { SourceId, StationRef } from "./sources.js";
import { StationSet } from "./station-set.js";

/** The daily fields of docs/contract.md §5, by their domain names. */
export const DAILY_FIELDS = ["tempCAvg", "tempCMin", "tempCMax", "rhAvg", "precipTotalMm", "pm25Avg", "pm10Avg", "aqiAvg"] as const;
/** One daily field name. */
export type DailyField = (typeof DAILY_FIELDS)[number];
/** A value for every daily field; null where no station had one. */
export type DailyValues = { readonly [F in DailyField]: number | null };

/** One station's aggregates for one school-local date (its day cut at the school's midnight). */
export interface StationDay extends Partial<Record<DailyField, number | null>> {
  readonly stationId: string;
  readonly source: SourceId;
  /** Distance from the school in metres. */
  readonly distanceM: number;
  /** The school-local date, `YYYY-MM-DD`. */
  readonly date: string;
}

/** The school's values for one date, rounded, with the stations that had weight in any field. */
export interface SchoolDay extends DailyValues {
  readonly date: string;
  readonly stations: StationRef[];
}

/** Per-date school values, ascending by date, and every station used on any date. */
export interface SchoolDailyResult {
  readonly days: SchoolDay[];
  readonly stations: StationRef[];
}

/** Fields rounded to integers; the rest get one decimal (docs/contract.md §5). */
const INTEGER_FIELDS: ReadonlySet<DailyField> = new Set<DailyField>(["aqiAvg"]);

/** A day with every value null, for a date with no observation yet (the snapshot's "today"). */
export function emptySchoolDay(date: string): SchoolDay {
  const values = Object.fromEntries(DAILY_FIELDS.map((f) => [f, null])) as DailyValues;
  return { date, ...values, stations: [] };
}

/**
 * Aggregates per-station daily rows of one school into the school's daily values. Each field is
 * inverse-distance weighted on its own over the three nearest stations having it on that date,
 * then rounded (AQI to an integer, the rest to one decimal, half away from zero).
 * Dates where no field has any value are left out. A missing field counts as null.
 * @throws RangeError if a station (source and id) appears twice for the same date.
 */
export function schoolDaily(rows: readonly StationDay[]): SchoolDailyResult {
  const byDate = new Map<string, StationDay[]>();
  const seen = new Set<string>();
  for (const row of rows) {
    const key = `${row.date}\u0000${row.source}\u0000${row.stationId}`;
    if (seen.has(key)) throw new RangeError(`duplicate row for ${row.source} station ${row.stationId} on ${row.date}`);
    seen.add(key);
    const list = byDate.get(row.date);
    if (list === undefined) byDate.set(row.date, [row]);
    else list.push(row);
  }

  const all = new StationSet();
  const days: SchoolDay[] = [];
  for (const date of [...byDate.keys()].sort()) {
    const day = aggregateDay(date, byDate.get(date) ?? []);
    if (DAILY_FIELDS.every((f) => day[f] === null)) continue;
    all.add(...day.stations);
    days.push(day);
  }
  return { days, stations: all.toArray() };
}

function aggregateDay(date: string, rows: readonly StationDay[]): SchoolDay {
  const used = new StationSet();
  const values = {} as Record<DailyField, number | null>;
  for (const field of DAILY_FIELDS) {
    const result = idw(rows.map((r) => ({ stationId: r.stationId, distanceM: r.distanceM, value: r[field], row: r })));
    values[field] = INTEGER_FIELDS.has(field) ? roundInt(result.value) : round1(result.value);
    used.add(...result.used.map((u) => u.sample.row));
  }
  return { date, ...values, stations: used.toArray() };
}
