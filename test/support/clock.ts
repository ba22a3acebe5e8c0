/**
 * Rate limits count per clock minute (docs/contract.md §8): a test that
 * exhausts a minute's budget and then expects a 429 must not straddle the
 * minute's end, or the last request opens a fresh minute and is served.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { windowAt } from "../../src/limits/windows.js";

/**
 * Waits for the next clock minute when the current one ends within `margin` ms:
 * for checks that cannot be run twice (a failover) or that are short (the
 * 8-s default). A longer check that can run again uses {@link inOneClockMinute}.
 */
export async function awayFromMinuteBoundary(margin = 8_000): Promise<void> {
  const left = windowAt("minute", Date.now()).resetsAt - Date.now();
  if (left < margin) await sleep(left + 100);
}

/**
 * Runs `attempt`, whose checks must fall in one minute of the limits' clock,
 * at once rather than after waiting for a minute to begin. When the minute
 * turned while it ran, what it found proves nothing (a failure included), and
 * it runs once more (`attempt(2)`), now at the start of a minute, with nearly
 * all of it ahead: that run's result or failure is the test's. The second
 * attempt must not count on the first (a fresh key, another visitor).
 */
export async function inOneClockMinute<T>(attempt: (n: 1 | 2) => Promise<T>): Promise<T> {
  const minute = () => windowAt("minute", Date.now()).index;
  const began = minute();
  try {
    const result = await attempt(1);
    if (minute() === began) return result;
  } catch (error) {
    if (minute() === began) throw error;
  }
  return attempt(2);
}

/**
 * A still instant in the middle of a clock minute, for an in-process
 * `RateLimits` (`now: () => MID_MINUTE`) in a test that compares a key's
 * counts across requests: a minute that ended between them would reset them.
 */
export const MID_MINUTE = Date.parse("2026-11-20T12:00:30.000Z");
