/**
 * Long computations in slices: environment answers for many schools are
 * computed in one go (every school's snapshot and 90 days at start and after
 * each import), and a loop that runs them through without a pause makes
 * every request that arrives meanwhile wait behind it.
 */
import { setImmediate } from "node:timers/promises";

/** The longest a slice holds the event loop before letting the requests waiting behind it in. */
export const SLICE_MS = 10;

/**
 * A pause to await between two steps of a long loop: it resolves at once
 * while the loop has held the event loop for less than `sliceMs` since its
 * last pause, and otherwise after the I/O and timers waiting meanwhile have run.
 */
export function slices(sliceMs = SLICE_MS): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await setImmediate();
    since = performance.now();
  };
}
