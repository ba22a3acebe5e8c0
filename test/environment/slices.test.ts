/**
 * `slices` (src/environment/slices.ts): a long loop that awaits its pause
 * between steps holds the event loop for about SLICE_MS at a time, so that a
 * timer, an answer or a request that comes meanwhile runs within a slice,
 * not after the whole loop.
 */
import { describe, expect, it } from "vitest";
import { SLICE_MS, slices } from "../../src/environment/slices.js";

/** Holds the event loop for `ms`, as a step of a computation does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe("slices", () => {
  it("lets a timer due during a 300 ms loop run within a slice or two of it", async () => {
    const started = performance.now();
    let firedAfter = Number.POSITIVE_INFINITY;
    setTimeout(() => {
      firedAfter = performance.now() - started;
    }, 0);
    const pause = slices();
    for (let step = 0; step < 150; step++) {
      await pause();
      busy(2);
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect(firedAfter).toBeLessThan(4 * SLICE_MS + 40);
  });

  it("pauses only once a slice has lasted SLICE_MS: quick steps run on without waiting for the loop", async () => {
    const pause = slices();
    let ran = 0;
    const timer = setImmediate(() => {
      ran = -1;
    });
    for (let step = 0; step < 1_000; step++) {
      await pause();
      ran++;
    }
    clearImmediate(timer);
    // A thousand steps well within one slice: the immediate never got its turn.
    expect(ran).toBe(1_000);
  });
});
