/**
 * School environment in the United States (docs/contract.md §5): days cut at the
 * school's own midnight across the start of daylight saving time on
 * 2026-03-08 (02:00 local), in two time zones three hours apart, and EPA
 * categories.
 *
 * Every weather station reports every hour from 2026-03-06T00:00Z (h = 0) to
 * NOW (h = 84): 1 mm of rain, temperature h/10 + rank (0, 1, 2), humidity
 * 50/60/70. So a day's rain total is its number of hours, and its minimum and
 * maximum temperatures name its first and last hour. IDW over ranks 0, 1, 2 at
 * 1, 2, 3 steps adds (36·0 + 9·1 + 4·2)/49 = 17/49 = 0.347 to a station-0 value;
 * humidity is (36·50 + 9·60 + 4·70)/49 = 2620/49 = 53.469 → 53.5.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { Reference } from "./expected.js";
import { day, NOW, NYU, rest, schoolBlock, source, US_ID, usExport, UW } from "./fixtures.js";

const data = usExport();
const reference = new Reference(data);
let t: TestGateway;

beforeAll(async () => {
  t = await testGateway(data, { gateway: { now: () => NOW } });
});
afterAll(async () => {
  await t?.close();
});

const get = async (path: string) => {
  const r = await rest(t, path);
  expect(r.status).toBe(200);
  return r.body.data;
};

const NY_SOURCES = [source("airnow", [US_ID.Q2, US_ID.Q1, US_ID.Q3]), source("nws", [US_ID.N3, US_ID.N2, US_ID.N1])];
const LA_SOURCES = [source("airnow", [US_ID.R2, US_ID.R1, US_ID.R3]), source("nws", [US_ID.S2, US_ID.S3, US_ID.S1])];
const RH = 53.5;

// New York, NOW = 2026-03-09T12:00Z = 08:00 EDT.
// 03-07 (EST, 24 h): [03-07T05Z, 03-08T05Z) = h 29..52; mean 40.5 → 4.05 + 0.347 = 4.397
// 03-08 (23 h):      [03-08T05Z, 03-09T04Z) = h 53..75; mean 64   → 6.4  + 0.347 = 6.747
// 03-09 (EDT):       [03-09T04Z, NOW]       = h 76..84; mean 80   → 8.0  + 0.347 = 8.347
const NY_TODAY = day("2026-03-09", {
  temp_c_avg: 8.3,
  temp_c_min: 7.9,
  temp_c_max: 8.7,
  rh_avg: RH,
  precip_total_mm: 9,
  // Q1 30, Q2 32, Q3 (33 + 34)/2 = 33.5 → (36·30 + 9·32 + 4·33.5)/49 = 1502/49 = 30.653
  pm25_avg: 30.7,
  pm10_avg: 63.5, // (36·60 + 9·70 + 4·80)/49 = 3110/49 = 63.469
  aqi_avg: 100, // (36·100 + 9·100 + 4·105)/49 = 4920/49 = 100.408
});
const NY_HISTORY = [
  day("2026-03-07", { temp_c_avg: 4.4, temp_c_min: 3.2, temp_c_max: 5.5, rh_avg: RH, precip_total_mm: 24 }),
  day("2026-03-08", { temp_c_avg: 6.7, temp_c_min: 5.6, temp_c_max: 7.8, rh_avg: RH, precip_total_mm: 23 }),
  NY_TODAY,
];

// Los Angeles: the same instants are three hours later on the local clock.
// 03-07 (PST, 24 h): [03-07T08Z, 03-08T08Z) = h 32..55; mean 43.5 → 4.35 + 0.347 = 4.697
// 03-08 (23 h):      [03-08T08Z, 03-09T07Z) = h 56..78; mean 67   → 6.7  + 0.347 = 7.047
// 03-09 (PDT):       [03-09T07Z, NOW]       = h 79..84; mean 81.5 → 8.15 + 0.347 = 8.497
const LA_TODAY = day("2026-03-09", {
  temp_c_avg: 8.5,
  temp_c_min: 8.2,
  temp_c_max: 8.7,
  rh_avg: RH,
  precip_total_mm: 6,
  pm25_avg: 35.6, // (36·35 + 9·36 + 4·40)/49 = 1744/49 = 35.592
  pm10_avg: 41.7, // (36·40 + 9·44 + 4·52)/49 = 2044/49 = 41.714
  aqi_avg: 101, // (36·100 + 9·101 + 4·104)/49 = 4925/49 = 100.510
});
const LA_HISTORY = [
  day("2026-03-07", { temp_c_avg: 4.7, temp_c_min: 3.5, temp_c_max: 5.8, rh_avg: RH, precip_total_mm: 24 }),
  day("2026-03-08", { temp_c_avg: 7, temp_c_min: 5.9, temp_c_max: 8.1, rh_avg: RH, precip_total_mm: 23 }),
  LA_TODAY,
];

describe("America/New_York across the start of daylight saving time", () => {
  it("history days=3: 03-08 is 23 hours long (05:00Z to 04:00Z), its neighbours 24 and 9 hours so far", async () => {
    const h = await get("/api/v1/environment/schools/NYU/history?days=3");
    expect(h).toEqual({
      school: schoolBlock(NYU),
      days: 3,
      day_boundary: "school local timezone",
      data_sources: NY_SOURCES,
      daily: NY_HISTORY,
    });
    expect(h.daily.map((d: { precip_total_mm: number }) => d.precip_total_mm)).toEqual([24, 23, 9]);
    for (const d of h.daily) expect(d.date_taipei).toBe(d.date_local);
    expect(h).toEqual(reference.history("NYU", 3, NOW));
  });

  it("history days=90: every observation falls in exactly one local date (03-05 has the first five hours)", async () => {
    const h = await get("/api/v1/environment/schools/10/history?days=90");
    expect(h.daily.map((d: { date_local: string }) => d.date_local)).toEqual([
      "2026-03-05",
      "2026-03-06",
      "2026-03-07",
      "2026-03-08",
      "2026-03-09",
    ]);
    // 03-05 19:00–23:00 EST = h 0..4; 03-06 = h 5..28.
    expect(h.daily.map((d: { precip_total_mm: number }) => d.precip_total_mm)).toEqual([5, 24, 24, 23, 9]);
    expect(h.daily[0]).toEqual(day("2026-03-05", { temp_c_avg: 0.5, temp_c_min: 0.3, temp_c_max: 0.7, rh_avg: RH, precip_total_mm: 5 }));
    expect(h).toEqual(reference.history("NYU", 90, NOW));
  });

  it("snapshot: today is 03-09 local; EPA category of the rounded AQI (100.408 → 100, Moderate)", async () => {
    const s = await get("/api/v1/environment/schools/nyu");
    expect(s).toEqual({
      school: schoolBlock(NYU),
      realtime: {
        aqi: 100,
        aqi_status: "Moderate",
        pm25_ugm3: 30.7, // Q1 30, Q2 32, Q3 34 (its 11:30Z reading) → 1504/49 = 30.694
        observed_at_utc: "2026-03-09T11:30:00Z",
      },
      daily: NY_TODAY,
      day_boundary: "school local timezone",
      data_sources: NY_SOURCES,
    });
    expect(s).toEqual(reference.snapshot("NYU", NOW));
  });
});

describe("America/Los_Angeles: the same DST change, three hours later", () => {
  it("history days=3: 03-08 runs from 08:00Z to 07:00Z (23 h)", async () => {
    const h = await get("/api/v1/environment/schools/UW/history?days=3");
    expect(h).toEqual({
      school: schoolBlock(UW),
      days: 3,
      day_boundary: "school local timezone",
      data_sources: LA_SOURCES,
      daily: LA_HISTORY,
    });
    expect(h).toEqual(reference.history("UW", 3, NOW));
  });

  it("snapshot: EPA category of AQI 100.510 → 101 is Unhealthy for Sensitive Groups", async () => {
    const s = await get("/api/v1/environment/schools/uw");
    expect(s).toEqual({
      school: schoolBlock(UW),
      realtime: { aqi: 101, aqi_status: "Unhealthy for Sensitive Groups", pm25_ugm3: 35.6, observed_at_utc: "2026-03-09T10:00:00Z" },
      daily: LA_TODAY,
      day_boundary: "school local timezone",
      data_sources: LA_SOURCES,
    });
    expect(s).toEqual(reference.snapshot("UW", NOW));
  });

  it("the two zones cut the same hourly series at different instants", async () => {
    const ny = await get("/api/v1/environment/schools/NYU/history?days=3");
    const la = await get("/api/v1/environment/schools/UW/history?days=3");
    // Minimum temperature names the first hour of each date: 3 hours = 0.3 °C apart.
    const mins = (h: { daily: { temp_c_min: number }[] }) => h.daily.map((d) => d.temp_c_min);
    expect(mins(ny)).toEqual([3.2, 5.6, 7.9]);
    expect(mins(la)).toEqual([3.5, 5.9, 8.2]);
  });
});

describe("snapshot list across two US time zones", () => {
  it("gives each school its own local date and values", async () => {
    const r = await rest(t, "/api/v1/environment/snapshot");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, items: [reference.snapshot("NYU", NOW), reference.snapshot("UW", NOW)], total: 2 });
  });
});
