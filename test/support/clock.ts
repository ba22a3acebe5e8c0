/**
 * Rate limits count per clock minute (docs/contract.md §8): a test that
 * exhausts a minute's budget and then expects a 429 must not straddle the
 * minute's end, or the last request opens a fresh minute and is served.
 */
import { setTimeout as sleep } from "node:timers/promises";

/** Waits for the next clock minute when the current one ends within `margin` ms. */
export async function awayFromMinuteBoundary(margin = 8_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < margin) await sleep(left + 100);
}

/**
 * A still instant in the middle of a clock minute, for an in-process
 * `RateLimits` (`now: () => MID_MINUTE`) in a test that compares a key's
 * counts across requests: a minute that ended between them would reset them.
 */
export const MID_MINUTE = Date.parse("2026-11-20T12:00:30.000Z");
