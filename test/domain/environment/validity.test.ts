/**
 * How long an environment answer stays true with the same data
 * (src/domain/environment/validity.ts): until the first of the next local
 * midnight of its schools, a reading leaving the 3-hour window, and a reading
 * stamped ahead of the clock coming due.
 */
import { describe, expect, it } from "vitest";
import { REALTIME_WINDOW_MS, schoolRealtime, validUntil } from "../../../src/domain/environment/index.js";

const at = (iso: string) => new Date(iso);
const ms = (iso: string) => Date.parse(iso);

describe("validUntil", () => {
  it("is the next local midnight of the school's zone when nothing else comes first", () => {
    const now = at("2026-11-26T08:00:00Z"); // 16:00 in Taipei
    expect(validUntil({ now, timeZones: ["Asia/Taipei"], nextObservation: null })).toBe(ms("2026-11-26T16:00:00Z"));
    // Local midnight itself starts the next date: an answer at 23:59:59.999 ends 1 ms later.
    expect(validUntil({ now: at("2026-11-26T15:59:59.999Z"), timeZones: ["Asia/Taipei"], nextObservation: null })).toBe(
      ms("2026-11-26T16:00:00Z"),
    );
    expect(validUntil({ now: at("2026-11-26T16:00:00Z"), timeZones: ["Asia/Taipei"], nextObservation: null })).toBe(
      ms("2026-11-27T16:00:00Z"),
    );
  });

  it("takes the earliest midnight of several zones, and counts a 25-hour day where daylight saving ends", () => {
    const now = at("2026-11-26T08:00:00Z"); // 00:00 in Los Angeles, 16:00 in Taipei
    expect(validUntil({ now, timeZones: ["America/Los_Angeles", "Asia/Taipei"], nextObservation: null })).toBe(ms("2026-11-26T16:00:00Z"));
    expect(validUntil({ now, timeZones: ["America/Los_Angeles"], nextObservation: null })).toBe(ms("2026-11-27T08:00:00Z"));
    // 2026-11-01 in Los Angeles begins at 07:00Z (PDT) and ends at 08:00Z the next day (PST).
    expect(validUntil({ now: at("2026-11-01T07:30:00Z"), timeZones: ["America/Los_Angeles"], nextObservation: null })).toBe(
      ms("2026-11-02T08:00:00Z"),
    );
  });

  it("ends 1 ms after the oldest reading read leaves the real-time window, as schoolRealtime counts it", () => {
    const now = at("2026-11-26T08:10:00Z");
    const readings = [at("2026-11-26T08:00:00Z"), at("2026-11-26T06:30:00Z")];
    const until = validUntil({ now, timeZones: ["Asia/Taipei"], readings, nextObservation: null });
    expect(until).toBe(ms("2026-11-26T09:30:00.001Z"));
    // The domain's own window agrees: in at until - 1, out at until.
    const stations = [
      { stationId: "a", source: "moenv" as const, distanceM: 10, aqi: { value: 50, observedAt: at("2026-11-26T06:30:00Z") }, pm25: null },
    ];
    expect(schoolRealtime(stations, { country: "TW", now: new Date(until - 1) }).aqi).toBe(50);
    expect(schoolRealtime(stations, { country: "TW", now: new Date(until) }).aqi).toBeNull();
    expect(until - ms("2026-11-26T06:30:00Z")).toBe(REALTIME_WINDOW_MS + 1);
  });

  it("ends when a reading stamped after now comes due", () => {
    const now = at("2026-11-26T08:10:00Z");
    expect(
      validUntil({ now, timeZones: ["Asia/Taipei"], readings: [at("2026-11-26T08:00:00Z")], nextObservation: at("2026-11-26T08:45:00Z") }),
    ).toBe(ms("2026-11-26T08:45:00Z"));
  });
});
