/**
 * Calendar days in a school's IANA time zone (docs/contract.md §5: a day is [00:00, 24:00) local).
 * Everything goes through Intl.DateTimeFormat, so DST and historical offsets follow the
 * runtime's tz database. An unknown zone makes Intl throw a RangeError.
 */

/** How every environment answer says where its days are cut. */
export const DAY_BOUNDARY = "school local timezone";

const DAY_MS = 86_400_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      calendar: "gregory",
      numberingSystem: "latn",
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The local wall-clock time of `ms` (whole seconds), written as if it were a UTC instant. */
function wallClockMs(ms: number, timeZone: string): number {
  const p: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(ms)) {
    if (part.type !== "literal") p[part.type] = Number(part.value);
  }
  return Date.UTC(p.year ?? NaN, (p.month ?? NaN) - 1, p.day ?? NaN, p.hour ?? NaN, p.minute ?? NaN, p.second ?? NaN);
}

/** UTC offset of the zone at instant `ms`, in milliseconds (local = UTC + offset). */
function offsetMs(ms: number, timeZone: string): number {
  const wholeSecond = Math.floor(ms / 1000) * 1000;
  return wallClockMs(wholeSecond, timeZone) - wholeSecond;
}

function checkInstant(d: Date): number {
  const ms = d.getTime();
  if (Number.isNaN(ms)) throw new RangeError("invalid Date");
  return ms;
}

/** Parses a `YYYY-MM-DD` calendar date to its UTC-midnight epoch ms, rejecting impossible dates. */
function parseDate(date: string): number {
  const m = DATE_RE.exec(date);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date) {
    throw new RangeError(`date must be a real calendar date as YYYY-MM-DD, got ${JSON.stringify(date)}`);
  }
  return ms;
}

const formatUtcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The calendar date of `instant` in `timeZone`, as `YYYY-MM-DD`. */
export function localDate(instant: Date, timeZone: string): string {
  return formatUtcDate(wallClockMs(checkInstant(instant), timeZone));
}

/** `date` plus `days` calendar days (negative to go back), as `YYYY-MM-DD`. */
export function addDays(date: string, days: number): string {
  if (!Number.isInteger(days)) throw new RangeError(`days must be an integer, got ${days}`);
  return formatUtcDate(parseDate(date) + days * DAY_MS);
}

/**
 * The first instant of local date `wallMs` (a UTC-midnight epoch standing for local 00:00).
 * Tries each offset in force within a day either side; of the instants whose wall clock reads
 * exactly 00:00, the earliest wins (a repeated midnight starts the day at its first occurrence).
 * When 00:00 does not exist (a DST gap at midnight, e.g. America/Sao_Paulo 2018-11-04), the day
 * starts at the transition, found by binary search to the second.
 */
function startOfLocalDay(wallMs: number, timeZone: string): number {
  const offsets = [...new Set([-DAY_MS, 0, DAY_MS].map((d) => offsetMs(wallMs + d, timeZone)))];
  const exact = offsets.map((o) => wallMs - o).filter((t) => wallClockMs(t, timeZone) === wallMs);
  if (exact.length > 0) return Math.min(...exact);

  let lo = (wallMs - Math.max(...offsets)) / 1000; // wall clock still before midnight
  let hi = (wallMs - Math.min(...offsets)) / 1000; // wall clock already past midnight
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (wallClockMs(mid * 1000, timeZone) >= wallMs) hi = mid;
    else lo = mid;
  }
  return hi * 1000;
}

/** UTC instants bounding a local calendar day: `start` inclusive, `end` exclusive. */
export interface LocalDayBounds {
  readonly start: Date;
  readonly end: Date;
}

/**
 * The UTC instants of local 00:00 on `date` and on the next date in `timeZone`.
 * The span is 23 or 25 hours on DST change days; offsets are searched, never assumed.
 * @throws RangeError for a malformed or impossible date, or an unknown time zone.
 */
export function localDayBounds(date: string, timeZone: string): LocalDayBounds {
  const wall = parseDate(date);
  return {
    start: new Date(startOfLocalDay(wall, timeZone)),
    end: new Date(startOfLocalDay(wall + DAY_MS, timeZone)),
  };
}

/**
 * The `n` local dates ending with today's local date in `timeZone` (today included), ascending.
 * `n = 0` gives an empty list.
 * @throws RangeError if `n` is not a non-negative integer.
 */
export function lastLocalDates(now: Date, timeZone: string, n: number): string[] {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`);
  const today = localDate(now, timeZone);
  return Array.from({ length: n }, (_, i) => addDays(today, i - (n - 1)));
}
