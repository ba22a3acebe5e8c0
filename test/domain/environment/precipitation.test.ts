/**
 * Hourly amounts from a running total since local midnight (CWA's
 * Now.Precipitation), in Taipei (UTC+8, no DST) and in a zone with DST.
 */
import { describe, expect, it } from "vitest";
import { hourlyFromRunningTotal } from "../../../src/domain/environment/index.js";

const TPE = "Asia/Taipei";
const at = (local: string) => new Date(`${local}+08:00`);

describe("hourlyFromRunningTotal", () => {
  it("is the difference from the previous hour's total", () => {
    expect(hourlyFromRunningTotal(at("2026-03-09T14:00:00"), 7.5, 5, TPE)).toBe(2.5);
    expect(hourlyFromRunningTotal(at("2026-03-09T14:00:00"), 5, 5, TPE)).toBe(0);
  });

  it("is exact to the source's decimals, not the float difference", () => {
    expect(12.5 - 10.3).not.toBe(2.2);
    expect(hourlyFromRunningTotal(at("2026-03-09T14:00:00"), 12.5, 10.3, TPE)).toBe(2.2);
  });

  it("is unknown (null) when the previous hour's total is, never the whole total", () => {
    expect(hourlyFromRunningTotal(at("2026-03-09T14:00:00"), 7.5, null, TPE)).toBeNull();
  });

  it("restarts at local midnight: the hour from 00:00 to 01:00 is the whole total, whatever came before", () => {
    expect(hourlyFromRunningTotal(at("2026-03-10T01:00:00"), 1.5, null, TPE)).toBe(1.5);
    expect(hourlyFromRunningTotal(at("2026-03-10T01:00:00"), 1.5, 30, TPE)).toBe(1.5);
  });

  it("at midnight, takes a closing total of the day as the difference, and a restarted one as the amount", () => {
    expect(hourlyFromRunningTotal(at("2026-03-10T00:00:00"), 31, 30, TPE)).toBe(1);
    expect(hourlyFromRunningTotal(at("2026-03-10T00:00:00"), 0, 30, TPE)).toBe(0);
  });

  it("is unknown when the total fell at another hour, or midnight falls inside the hour", () => {
    expect(hourlyFromRunningTotal(at("2026-03-09T14:00:00"), 3, 5, TPE)).toBeNull();
    expect(hourlyFromRunningTotal(at("2026-03-10T00:30:00"), 0.5, 30, TPE)).toBeNull();
  });

  it("follows the zone's own midnight", () => {
    // 01:00 in New York on 2026-03-09 (EDT, UTC-4) is 05:00Z; in Taipei that is 13:00, an ordinary hour.
    const t = new Date("2026-03-09T05:00:00Z");
    expect(hourlyFromRunningTotal(t, 2, null, "America/New_York")).toBe(2);
    expect(hourlyFromRunningTotal(t, 2, null, TPE)).toBeNull();
  });
});
