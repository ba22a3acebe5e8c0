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
