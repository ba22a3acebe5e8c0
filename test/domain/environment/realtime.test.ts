import { describe, expect, it } from "vitest";
import { schoolRealtime, type StationLatest } from "../../../src/domain/environment/index.js";

const r = (value: number, iso: string) => ({ value, observedAt: new Date(iso) });
const st = (
  stationId: string,
  distanceM: number,
  aqi: StationLatest["aqi"],
  pm25: StationLatest["pm25"],
  source: StationLatest["source"] = "moenv",
): StationLatest => ({ stationId, source, distanceM, aqi, pm25 });

const NOW = new Date("2026-03-09T06:00:00Z");
const TW = [
  st("D", 8000, r(500, "2026-03-09T05:59:00Z"), null), // 4th for AQI: no weight, so not the newest
  st("A", 1000, r(60, "2026-03-09T05:00:00Z"), r(15, "2026-03-09T05:00:00Z")),
  st("B", 2000, r(90, "2026-03-09T05:30:00Z"), null),
  st("C", 4000, r(120, "2026-03-09T04:00:00Z"), r(30, "2026-03-09T04:00:00Z")),
];

describe("schoolRealtime", () => {
  it("weights AQI and PM2.5 separately and reports the newest used instant", () => {
    expect(schoolRealtime(TW, { country: "TW", now: NOW })).toEqual({
      aqi: 69, // (16·60 + 4·90 + 1·120)/21 = 1440/21 = 68.57
      aqiStatus: "Moderate",
      pm25Ugm3: 15.9, // A and C at 1 and 4 km → 16:1; (240 + 30)/17 = 15.88
      observedAt: new Date("2026-03-09T05:30:00Z"),
      stations: [
        { source: "moenv", stationId: "A" },
        { source: "moenv", stationId: "B" },
        { source: "moenv", stationId: "C" },
      ],
    });
  });

  it("takes observedAt from a PM2.5 reading when that is the newest used", () => {
    const res = schoolRealtime([...TW, st("P", 3000, null, r(24, "2026-03-09T05:45:00Z"))], { country: "TW", now: NOW });
    expect(res.observedAt).toEqual(new Date("2026-03-09T05:45:00Z"));
    // PM2.5 over A, P, C at 1, 3, 4 km → 144:16:9; (2160 + 384 + 270)/169 = 16.65
    expect(res.pm25Ugm3).toBe(16.7);
    expect(res.aqi).toBe(69);
    expect(res.stations.map((s) => s.stationId)).toEqual(["A", "B", "C", "P"]);
  });

  it("ignores readings older than three hours when now is given, keeping the bound", () => {
    const withStale = [...TW, st("E", 500, r(10, "2026-03-09T02:59:59Z"), null)];
    expect(schoolRealtime(withStale, { country: "TW", now: NOW }).aqi).toBe(69);
    const atBound = [...TW, st("E", 500, r(10, "2026-03-09T03:00:00Z"), null)];
    // E, A, B at 0.5, 1, 2 km → 16:4:1; (160 + 240 + 90)/21 = 23.33
    expect(schoolRealtime(atBound, { country: "TW", now: NOW }).aqi).toBe(23);
    // without now, the caller's window is trusted
    expect(schoolRealtime(withStale, { country: "TW" }).aqi).toBe(23);
  });

  it("uses the EPA categories for a US school, on the rounded value", () => {
    const one = (aqi: number) => [st("840", 2000, r(aqi, "2026-03-09T05:00:00Z"), null, "airnow")];
    expect(schoolRealtime(one(100.4), { country: "US" })).toMatchObject({ aqi: 100, aqiStatus: "Moderate", pm25Ugm3: null });
    expect(schoolRealtime(one(100.5), { country: "US" })).toMatchObject({ aqi: 101, aqiStatus: "Unhealthy for Sensitive Groups" });
    expect(schoolRealtime(one(100.5), { country: "FR" })).toMatchObject({ aqi: 101, aqiStatus: null });
  });

  it("gives a station under 1 m all the weight, and its instant only", () => {
    const res = schoolRealtime([...TW, st("HERE", 0.4, r(33, "2026-03-09T03:30:00Z"), r(8.25, "2026-03-09T03:30:00Z"))], {
      country: "TW",
      now: NOW,
    });
    expect(res).toEqual({
      aqi: 33,
      aqiStatus: "Good",
      pm25Ugm3: 8.3,
      observedAt: new Date("2026-03-09T03:30:00Z"),
      stations: [{ source: "moenv", stationId: "HERE" }],
    });
  });

  it("is all null with no stations", () => {
    expect(schoolRealtime([], { country: "TW", now: NOW })).toEqual({
      aqi: null,
      aqiStatus: null,
      pm25Ugm3: null,
      observedAt: null,
      stations: [],
    });
    expect(schoolRealtime([st("A", 10, null, null)], { country: "TW" }).observedAt).toBeNull();
  });
});
