import { describe, expect, it } from "vitest";
import { addDays, lastLocalDates, localDate, localDayBounds } from "../../../src/domain/environment/index.js";

const HOUR = 3_600_000;
const at = (iso: string) => new Date(iso);
const hours = (b: { start: Date; end: Date }) => (b.end.getTime() - b.start.getTime()) / HOUR;

describe("localDate", () => {
  it("buckets instants either side of Taipei midnight (UTC+8)", () => {
    expect(localDate(at("2026-03-09T15:30:00Z"), "Asia/Taipei")).toBe("2026-03-09"); // 23:30 local
    expect(localDate(at("2026-03-09T16:30:00Z"), "Asia/Taipei")).toBe("2026-03-10"); // 00:30 local
    expect(localDate(at("2026-03-09T15:59:59.999Z"), "Asia/Taipei")).toBe("2026-03-09");
    expect(localDate(at("2026-03-09T16:00:00Z"), "Asia/Taipei")).toBe("2026-03-10");
  });

  it("depends on the zone, not on the caller", () => {
    const instant = at("2026-03-09T16:30:00Z");
    expect(localDate(instant, "America/New_York")).toBe("2026-03-09");
    expect(localDate(instant, "UTC")).toBe("2026-03-09");
    expect(localDate(at("2026-03-08T04:59:59Z"), "America/New_York")).toBe("2026-03-07");
    expect(localDate(at("2026-03-08T05:00:00Z"), "America/New_York")).toBe("2026-03-08");
  });

  it("rejects an unknown zone and an invalid Date", () => {
    expect(() => localDate(new Date(), "Mars/Olympus")).toThrow(RangeError);
    expect(() => localDate(new Date(Number.NaN), "UTC")).toThrow(RangeError);
  });
});

describe("localDayBounds", () => {
  it("Taipei days are 24 h from 16:00Z", () => {
    const b = localDayBounds("2026-03-10", "Asia/Taipei");
    expect(b.start.toISOString()).toBe("2026-03-09T16:00:00.000Z");
    expect(b.end.toISOString()).toBe("2026-03-10T16:00:00.000Z");
  });

  it("New York spring-forward day (2026-03-08) lasts 23 h", () => {
    const b = localDayBounds("2026-03-08", "America/New_York");
    expect(b.start.toISOString()).toBe("2026-03-08T05:00:00.000Z"); // 00:00 EST
    expect(b.end.toISOString()).toBe("2026-03-09T04:00:00.000Z"); // 00:00 EDT
    expect(hours(b)).toBe(23);
  });

  it("New York fall-back day (2026-11-01) lasts 25 h", () => {
    const b = localDayBounds("2026-11-01", "America/New_York");
    expect(b.start.toISOString()).toBe("2026-11-01T04:00:00.000Z"); // 00:00 EDT
    expect(b.end.toISOString()).toBe("2026-11-02T05:00:00.000Z"); // 00:00 EST
    expect(hours(b)).toBe(25);
  });

  it("Los Angeles change days are 23 h and 25 h", () => {
    const spring = localDayBounds("2026-03-08", "America/Los_Angeles");
    expect([spring.start.toISOString(), spring.end.toISOString()]).toEqual(["2026-03-08T08:00:00.000Z", "2026-03-09T07:00:00.000Z"]);
    expect(hours(spring)).toBe(23);
    const fall = localDayBounds("2026-11-01", "America/Los_Angeles");
    expect([fall.start.toISOString(), fall.end.toISOString()]).toEqual(["2026-11-01T07:00:00.000Z", "2026-11-02T08:00:00.000Z"]);
    expect(hours(fall)).toBe(25);
  });

  it("ordinary days around the change are 24 h and adjacent days abut", () => {
    expect(hours(localDayBounds("2026-03-07", "America/New_York"))).toBe(24);
    expect(hours(localDayBounds("2026-03-09", "America/New_York"))).toBe(24);
    expect(localDayBounds("2026-03-09", "America/New_York").start).toEqual(localDayBounds("2026-03-08", "America/New_York").end);
    expect(hours(localDayBounds("2026-07-04", "America/Los_Angeles"))).toBe(24);
  });

  it("starts a day at the transition when local midnight does not exist", () => {
    // São Paulo, 2018-11-04: 00:00 -03 jumped to 01:00 -02 (= 03:00Z).
    const b = localDayBounds("2018-11-04", "America/Sao_Paulo");
    expect(b.start.toISOString()).toBe("2018-11-04T03:00:00.000Z");
    expect(b.end.toISOString()).toBe("2018-11-05T02:00:00.000Z");
  });

  it("starts a day at the first of two midnights when midnight repeats", () => {
    // Havana, 2025-11-02: 01:00 CDT (-4) fell back to 00:00 CST (-5), so 00:00 came twice.
    const b = localDayBounds("2025-11-02", "America/Havana");
    expect(b.start.toISOString()).toBe("2025-11-02T04:00:00.000Z");
    expect(b.end.toISOString()).toBe("2025-11-03T05:00:00.000Z");
    expect(hours(b)).toBe(25);
  });

  it("rejects malformed or impossible dates", () => {
    expect(() => localDayBounds("2026-02-30", "UTC")).toThrow(RangeError);
    expect(() => localDayBounds("2026-2-3", "UTC")).toThrow(RangeError);
    expect(() => localDayBounds("", "UTC")).toThrow(RangeError);
  });
});

describe("lastLocalDates and addDays", () => {
  it("ends with today in the school zone, around Taipei midnight", () => {
    expect(lastLocalDates(at("2026-03-09T15:59:59Z"), "Asia/Taipei", 3)).toEqual(["2026-03-07", "2026-03-08", "2026-03-09"]);
    expect(lastLocalDates(at("2026-03-09T16:00:00Z"), "Asia/Taipei", 3)).toEqual(["2026-03-08", "2026-03-09", "2026-03-10"]);
    expect(lastLocalDates(at("2026-03-09T16:00:00Z"), "America/New_York", 2)).toEqual(["2026-03-08", "2026-03-09"]);
  });

  it("crosses month, year and leap-day boundaries", () => {
    expect(lastLocalDates(at("2025-12-31T16:30:00Z"), "Asia/Taipei", 3)).toEqual(["2025-12-30", "2025-12-31", "2026-01-01"]);
    expect(lastLocalDates(at("2025-12-31T16:30:00Z"), "America/Los_Angeles", 1)).toEqual(["2025-12-31"]);
    expect(lastLocalDates(at("2028-03-01T12:00:00Z"), "UTC", 2)).toEqual(["2028-02-29", "2028-03-01"]);
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
  });

  it("handles n = 0 and 90, rejects bad n", () => {
    expect(lastLocalDates(at("2026-03-09T00:00:00Z"), "UTC", 0)).toEqual([]);
    const ninety = lastLocalDates(at("2026-03-31T00:00:00Z"), "UTC", 90);
    expect(ninety).toHaveLength(90);
    expect(ninety[0]).toBe("2026-01-01");
    expect(ninety[89]).toBe("2026-03-31");
    expect(() => lastLocalDates(new Date(), "UTC", -1)).toThrow(RangeError);
    expect(() => lastLocalDates(new Date(), "UTC", 1.5)).toThrow(RangeError);
  });
});
