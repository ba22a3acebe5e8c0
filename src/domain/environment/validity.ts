/**
 * How long an environment answer stays true while the data does not change.
 * An answer computed at `now` moves with the clock in three ways only
 * (docs/contract.md §5): the school's local date turns (today, and the dates
 * a history covers), a reading leaves the 3-hour real-time window, and a
 * reading stamped after `now` comes due (it joins "so far" and the window).
 * Until the first of these, the same data gives the same answer.
 */
import { localDate, localDayBounds } from "./local-day.js";
import { REALTIME_WINDOW_MS } from "./realtime.js";

export interface ValidityInputs {
  /** The instant the answer was computed for. */
  now: Date;
  /** The time zones of the schools answered. */
  timeZones: Iterable<string>;
  /** The instants of the real-time readings read (each station's newest in the window). */
  readings?: Iterable<Date>;
  /** The first observation stamped after `now`, of any station; null when there is none. */
  nextObservation: Date | null;
}

/** The first instant (epoch ms) at which the answer may differ; it is the same before it. */
export function validUntil(inputs: ValidityInputs): number {
  let until = inputs.nextObservation?.getTime() ?? Number.POSITIVE_INFINITY;
  for (const zone of new Set(inputs.timeZones)) {
    until = Math.min(until, localDayBounds(localDate(inputs.now, zone), zone).end.getTime());
  }
  // A reading counts while now - 3 h <= its instant: it is out 1 ms after that.
  for (const at of inputs.readings ?? []) until = Math.min(until, at.getTime() + REALTIME_WINDOW_MS + 1);
  return until;
}
