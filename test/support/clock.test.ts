/**
 * inOneClockMinute (clock.ts): an attempt is run again only when the minute
 * of the limits' clock turned while it ran, whatever it found.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { inOneClockMinute } from "./clock.js";

const MINUTE_START = Date.parse("2026-11-20T12:00:00.000Z");

beforeEach(() => vi.useFakeTimers({ toFake: ["Date"] }));
afterEach(() => vi.useRealTimers());

/** An attempt that moves the clock to `ends` (ms after MINUTE_START) on its `n`th run, then returns or throws. */
function attempts(ends: readonly number[], fails: readonly boolean[] = []) {
  const runs: number[] = [];
  const attempt = async (n: 1 | 2) => {
    runs.push(n);
    vi.setSystemTime(MINUTE_START + ends[n - 1]!);
    if (fails[n - 1]) throw new Error(`attempt ${n} failed`);
    return `attempt ${n}`;
  };
  return { runs, attempt };
}

describe("inOneClockMinute", () => {
  it("runs once when the attempt ends in the minute it began", async () => {
    vi.setSystemTime(MINUTE_START + 50_000);
    const { runs, attempt } = attempts([59_999]);
    expect(await inOneClockMinute(attempt)).toBe("attempt 1");
    expect(runs).toEqual([1]);
  });

  it("runs again when the minute turned during it, and the second run's result is the answer", async () => {
    vi.setSystemTime(MINUTE_START + 58_000);
    const { runs, attempt } = attempts([60_500, 65_000]);
    expect(await inOneClockMinute(attempt)).toBe("attempt 2");
    expect(runs).toEqual([1, 2]);
  });

  it("a failure in one minute is the test's at once; one across a boundary is tried again", async () => {
    vi.setSystemTime(MINUTE_START + 10_000);
    const within = attempts([20_000], [true]);
    await expect(inOneClockMinute(within.attempt)).rejects.toThrow("attempt 1 failed");
    expect(within.runs).toEqual([1]);

    vi.setSystemTime(MINUTE_START + 59_000);
    const across = attempts([61_000, 62_000], [true, true]);
    await expect(inOneClockMinute(across.attempt)).rejects.toThrow("attempt 2 failed");
    expect(across.runs).toEqual([1, 2]);
  });
});
