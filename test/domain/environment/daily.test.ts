import { describe, expect, it } from "vitest";
import { dataSources, emptySchoolDay, schoolDaily, type StationDay } from "../../../src/domain/environment/index.js";

const NULLS = {
  tempCAvg: null,
  tempCMin: null,
  tempCMax: null,
  rhAvg: null,
  precipTotalMm: null,
  pm25Avg: null,
  pm10Avg: null,
  aqiAvg: null,
};
const weather = (stationId: string, distanceM: number, date: string, v: Partial<StationDay>): StationDay => ({
  stationId,
  source: "cwa",
  distanceM,
  date,
  ...NULLS,
  ...v,
});
const air = (stationId: string, distanceM: number, date: string, v: Partial<StationDay>): StationDay => ({
  stationId,
  source: "moenv",
  distanceM,
  date,
  ...NULLS,
  ...v,
});

const D1 = "2026-03-09";
const rows: StationDay[] = [
  weather("C0A4", 8000, D1, { tempCAvg: 40, tempCMin: 30, tempCMax: 29, rhAvg: 50, precipTotalMm: 100 }),
  weather("C0A1", 1000, D1, { tempCAvg: 20, tempCMin: 15, tempCMax: 25, rhAvg: 80, precipTotalMm: 10 }),
  weather("C0A2", 2000, D1, { tempCAvg: 22, tempCMin: 16, tempCMax: null, rhAvg: 70, precipTotalMm: 0 }),
  weather("C0A3", 4000, D1, { tempCAvg: 24, tempCMin: 18, tempCMax: 27, rhAvg: null, precipTotalMm: 5 }),
  weather("C0A5", 10000, D1, { tempCAvg: 99, tempCMin: 99, tempCMax: 99, rhAvg: 99, precipTotalMm: 99 }),
  air("12", 1500, D1, { pm25Avg: 10, pm10Avg: 20, aqiAvg: 40 }),
  air("3", 3000, D1, { pm25Avg: 20, pm10Avg: null, aqiAvg: 61 }),
  weather("C0A1", 1000, "2026-03-08", { tempCAvg: 18.25 }),
  weather("C0A2", 2000, "2026-03-07", {}),
];

describe("schoolDaily", () => {
  const result = schoolDaily(rows);

  it("weights each field on its own over the three nearest stations having it", () => {
    const day = result.days.find((d) => d.date === D1);
    expect(day).toEqual({
      date: D1,
      tempCAvg: 20.6, // (16·20 + 4·22 + 1·24)/21 = 432/21 = 20.571
      tempCMin: 15.3, // (16·15 + 4·16 + 1·18)/21 = 322/21 = 15.333
      tempCMax: 25.2, // C0A1, C0A3, C0A4 at 1, 4, 8 km → 64:4:1; 1737/69 = 25.174
      rhAvg: 77.7, // C0A1, C0A2, C0A4 at 1, 2, 8 km → 64:16:1; 6290/81 = 77.654
      precipTotalMm: 7.9, // (16·10 + 4·0 + 1·5)/21 = 165/21 = 7.857
      pm25Avg: 12, // 1.5 and 3 km → 4:1; (40 + 20)/5
      pm10Avg: 20, // only station '12'
      aqiAvg: 44, // (4·40 + 61)/5 = 44.2
      stations: [
        { source: "cwa", stationId: "C0A1" },
        { source: "cwa", stationId: "C0A2" },
        { source: "cwa", stationId: "C0A3" },
        { source: "cwa", stationId: "C0A4" },
        { source: "moenv", stationId: "12" },
        { source: "moenv", stationId: "3" },
      ],
    });
  });

  it("lists dates ascending and leaves out dates with no value at all", () => {
    expect(result.days.map((d) => d.date)).toEqual(["2026-03-08", D1]);
    expect(result.days[0]).toEqual({ ...NULLS, date: "2026-03-08", tempCAvg: 18.3, stations: [{ source: "cwa", stationId: "C0A1" }] });
  });

  it("collects every station that had weight, and only those", () => {
    expect(result.stations.map((s) => `${s.source}:${s.stationId}`)).toEqual([
      "cwa:C0A1",
      "cwa:C0A2",
      "cwa:C0A3",
      "cwa:C0A4",
      "moenv:12",
      "moenv:3",
    ]);
    expect(dataSources(result.stations)).toEqual([
      { id: "cwa", name: "Central Weather Administration (Taiwan)", kind: "weather", stationIds: ["C0A1", "C0A2", "C0A3", "C0A4"] },
      { id: "moenv", name: "Ministry of Environment (Taiwan)", kind: "air", stationIds: ["12", "3"] },
    ]);
  });

  it("lets a station under 1 m decide a field alone", () => {
    const r = schoolDaily([
      weather("ON", 0.5, D1, { tempCAvg: 21.04, rhAvg: null }),
      weather("NEAR", 100, D1, { tempCAvg: 30, rhAvg: 60 }),
    ]);
    expect(r.days[0]?.tempCAvg).toBe(21);
    expect(r.days[0]?.rhAvg).toBe(60);
    expect(r.stations.map((s) => s.stationId)).toEqual(["NEAR", "ON"]);
  });

  it("keeps stations of different sources with the same id apart", () => {
    const r = schoolDaily([weather("1", 100, D1, { tempCAvg: 10 }), air("1", 100, D1, { aqiAvg: 30 })]);
    expect(r.stations).toEqual([
      { source: "cwa", stationId: "1" },
      { source: "moenv", stationId: "1" },
    ]);
  });

  it("gives no days for no rows and rejects duplicate rows", () => {
    expect(schoolDaily([])).toEqual({ days: [], stations: [] });
    expect(() => schoolDaily([weather("A", 1, D1, {}), weather("A", 1, D1, {})])).toThrow(RangeError);
  });
});

describe("emptySchoolDay", () => {
  it("has the date and null values", () => {
    expect(emptySchoolDay("2026-03-10")).toEqual({ date: "2026-03-10", ...NULLS, stations: [] });
  });
});
