/** The `Date` scalar's text, which remembers the days it has written: the same text for the same day, whatever it saw before. */
import { describe, expect, it } from "vitest";
import { formatDate } from "../../src/schema/scalars.js";

describe("formatDate", () => {
  it("writes YYYY-MM-DD of a date column and keeps a local-date string, before and after its memory fills", () => {
    expect(formatDate(new Date("2026-02-16T00:00:00Z"))).toBe("2026-02-16");
    expect(formatDate("2026-11-20")).toBe("2026-11-20");
    const start = Date.UTC(1990, 0, 1);
    for (let day = 0; day < 10_000; day++) {
      const date = new Date(start + day * 86_400_000);
      expect(formatDate(date)).toBe(date.toISOString().slice(0, 10));
      expect(formatDate(new Date(date.getTime()))).toBe(date.toISOString().slice(0, 10));
    }
  });

  it("refuses an invalid date as toISOString does, every time", () => {
    expect(() => formatDate(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => formatDate(new Date(Number.NaN))).toThrow(RangeError);
  });
});
