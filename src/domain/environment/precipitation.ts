/**
 * Hourly precipitation from a running total that restarts at local midnight,
 * as Taiwan's weather agency reports it (`Now.Precipitation` of CWA
 * O-A0001-001: millimetres since 00:00 local time).
 *
 * The hour an observation at `t` covers is (t − 1 h, t]. Its amount is the
 * total at `t` minus the total at `t − 1 h`, except:
 * - when `t − 1 h` is local midnight, the total at `t` is the hour's amount
 *   (the count restarted at the start of the hour), whatever came before;
 * - when `t` is local midnight and its total is below the previous one, the
 *   count restarted at `t` itself, and the total at `t` is the amount (an
 *   agency may report 00:00 either as the closing total of the day that ended
 *   or as the first of the new one; both give the right amount);
 * - when the previous hour's total is unknown, or the total fell at any other
 *   hour, or midnight falls inside the hour, the amount is unknown (null), never
 *   the whole running total.
 */
import { localDate, localDayBounds } from "./local-day.js";

const HOUR_MS = 3_600_000;

const isLocalMidnight = (ms: number, timeZone: string): boolean =>
  localDayBounds(localDate(new Date(ms), timeZone), timeZone).start.getTime() === ms;

/** Where local midnight falls for the hour that ends at an instant. */
export type HourAtMidnight =
  /** The hour starts at midnight: the running total is the hour's amount. */
  | "starts"
  /** The hour ends at midnight: a fall in the total means the count restarted. */
  | "ends"
  /** Midnight falls inside the hour: the amount cannot be known. */
  | "inside"
  | "none";

/** Where local midnight in `timeZone` falls for the hour ending at `at` (the same for every station: compute it once per instant). */
export function midnightOfHour(at: Date, timeZone: string): HourAtMidnight {
  const t = at.getTime();
  if (isLocalMidnight(t - HOUR_MS, timeZone)) return "starts";
  if (isLocalMidnight(t, timeZone)) return "ends";
  return localDate(new Date(t - HOUR_MS), timeZone) === localDate(at, timeZone) ? "none" : "inside";
}

/** The hour's amount from the running total and the previous hour's (null when unknown), given where midnight falls. */
export function hourlyAmount(midnight: HourAtMidnight, total: number, previous: number | null): number | null {
  if (midnight === "starts") return total;
  if (midnight === "inside" || previous === null) return null;
  if (total < previous) return midnight === "ends" ? total : null;
  // Exact to the source's own precision (0.1 mm, sometimes 0.5): 12.5 − 10.3 is 2.2, not 2.1999999999999993.
  return Math.round((total - previous) * 1000) / 1000;
}

/**
 * The amount (mm) that fell in the hour ending at `at`, from the running
 * total at `at` and the one an hour before (`previous`, null when unknown),
 * both counted from local midnight in `timeZone`.
 */
export function hourlyFromRunningTotal(at: Date, total: number, previous: number | null, timeZone: string): number | null {
  return hourlyAmount(midnightOfHour(at, timeZone), total, previous);
}
