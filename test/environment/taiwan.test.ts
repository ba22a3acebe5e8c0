/**
 * School environment in Taiwan (docs/contract.md §5), end to end: IDW over
 * the three nearest stations per metric, outliers of the 4th station left out,
 * a missing metric taken from the next station, the 1 m rule, the 3-hour
 * real-time window, Asia/Taipei day edges, and `data_sources`.
 *
 * Expected numbers are worked out by hand below. With stations at 1, 2 and 3
 * steps the IDW weights are 1, 1/4, 1/9 = 36/49, 9/49, 4/49; at 2, 3 and 4
 * steps 1/4, 1/9, 1/16 = 36/61, 16/61, 9/61; at 1, 3 and 4 steps
 * 144/169, 16/169, 9/169.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { Reference } from "./expected.js";
import {
  day,
  ID,
  movableClock,
  NEXT_DAY,
  NOW,
  NOW_EDGE,
  NOW_LATE,
  NTHU,
  NTU,
  rest,
  schoolBlock,
  source,
  taiwanExport,
} from "./fixtures.js";

const data = taiwanExport();
const reference = new Reference(data);
const clock = movableClock(NOW);
let t: TestGateway;

beforeAll(async () => {
  t = await testGateway(data, { gateway: { now: clock.now } });
});
afterAll(async () => {
  await t?.close();
});

const snapshot = async (ref: string) => {
  const r = await rest(t, `/api/v1/environment/schools/${ref}`);
  expect(r.status).toBe(200);
  return r.body.data;
};
const history = async (ref: string, days: number) => {
  const r = await rest(t, `/api/v1/environment/schools/${ref}/history?days=${days}`);
  expect(r.status).toBe(200);
  return r.body.data;
};

// NTU today (2026-03-09 in Taipei), by hand. Per station first, then IDW over W1..W3 / A1..A3.
//   temp  W1 18,22,20 → avg 20 min 18 max 22 | W2 17,21,22 → 20/17/22 | W3 15,19,20 → 18/15/20
//   rh    W1 75 | W2 65 | W3 90          precip W1 0.5+1+0 = 1.5 | W2 2+1+0 = 3 | W3 0
//   pm25  A1 (12+14+16)/3 = 14 | A2 (16+18+20)/3 = 18 | A3 (20+24)/2 = 22
//   pm10  A1 30 | A2 40 | A3 48           aqi A1 50 | A2 (58+60)/2 = 59 | A3 70
const NTU_TODAY = day("2026-03-09", {
  temp_c_avg: 19.8, // (36·20 + 9·20 + 4·18)/49 = 972/49 = 19.837
  temp_c_min: 17.6, // (36·18 + 9·17 + 4·15)/49 = 861/49 = 17.571
  temp_c_max: 21.8, // (36·22 + 9·22 + 4·20)/49 = 1070/49 = 21.837
  rh_avg: 74.4, // (36·75 + 9·65 + 4·90)/49 = 3645/49 = 74.388
  precip_total_mm: 1.7, // (36·1.5 + 9·3 + 4·0)/49 = 81/49 = 1.653
  pm25_avg: 15.4, // (36·14 + 9·18 + 4·22)/49 = 754/49 = 15.388
  pm10_avg: 33.3, // (36·30 + 9·40 + 4·48)/49 = 1632/49 = 33.306
  aqi_avg: 53, // (36·50 + 9·59 + 4·70)/49 = 2611/49 = 53.286
});
const NTU_SOURCES = [source("cwa", [ID.W2, ID.W3, ID.W1]), source("moenv", [ID.A3, ID.A1, ID.A2])];
const NTU_SNAPSHOT = {
  school: { id: 1, code: "NTU", name_zh: "國立臺灣大學", short_name: "臺大", region: "Taipei", timezone: "Asia/Taipei" },
  realtime: {
    // Latest non-null per metric within 3 h: aqi A1 55 (11:00), A2 60 (10:00; its 11:30 aqi is null), A3 74 (11:15)
    aqi: 57, // (36·55 + 9·60 + 4·74)/49 = 2816/49 = 57.469
    aqi_status: "Moderate", // MOENV 51–100
    // pm25 A1 16 (11:00), A2 20 (11:30), A3 24 (09:30; its 11:15 pm25 is null)
    pm25_ugm3: 17.4, // (36·16 + 9·20 + 4·24)/49 = 852/49 = 17.388
    observed_at_utc: "2026-03-09T11:30:00Z", // newest used; A4's 11:50 is not used
  },
  daily: NTU_TODAY,
  day_boundary: "school local timezone",
  data_sources: NTU_SOURCES,
};

describe("a Taiwan school with four stations of each kind (NTU)", () => {
  it("the sorted station ids in the hand-written expectations are really sorted", () => {
    for (const s of NTU_SOURCES) expect(s.station_ids).toEqual([...s.station_ids].sort());
    expect(NTU_SOURCES.map((s) => s.station_ids)).toEqual([
      ["466920", "C0A9C0", "C0AC70"],
      ["moenv-104", "moenv-12", "moenv-3"],
    ]);
  });

  it("snapshot: IDW of the three nearest per metric, the 4th station's outliers ignored, contract rounding", async () => {
    expect(await snapshot("NTU")).toEqual(NTU_SNAPSHOT);
  });

  it("the independent reference calculator agrees with the hand arithmetic", () => {
    expect(reference.snapshot("NTU", NOW)).toEqual(NTU_SNAPSHOT);
  });

  it("history: 23:30 and 00:30 Taipei time fall on different local dates; date_taipei = date_local", async () => {
    const h = await history("ntu", 3);
    expect(h).toEqual({
      school: schoolBlock(NTU),
      days: 3,
      day_boundary: "school local timezone",
      data_sources: NTU_SOURCES,
      daily: [
        // 2026-03-07T15:30Z = 03-07 23:30 local: W1 10, W2 11, W3 12 → 507/49 = 10.347
        day("2026-03-07", { temp_c_avg: 10.3, temp_c_min: 10.3, temp_c_max: 10.3 }),
        // 2026-03-07T16:30Z = 03-08 00:30 local (same UTC date!): W1 20, W2 21, W3 22 → 997/49 = 20.347
        day("2026-03-08", { temp_c_avg: 20.3, temp_c_min: 20.3, temp_c_max: 20.3 }),
        NTU_TODAY,
      ],
    });
    for (const d of h.daily) expect(d.date_taipei).toBe(d.date_local);
  });

  it("history: a date with one station only uses that station; days=4 reaches back to 03-06 23:30 local", async () => {
    const h = await history("1", 4);
    expect(h.days).toBe(4);
    expect(h.daily.map((d: { date_local: string }) => d.date_local)).toEqual(["2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09"]);
    expect(h.daily[0]).toEqual(day("2026-03-06", { temp_c_avg: 5, temp_c_min: 5, temp_c_max: 5 }));
    expect(h).toEqual(reference.history("NTU", 4, NOW));
  });

  it("history: the 30th local date starts at its 00:00:00 local exactly; 23:59:59 the day before is outside", async () => {
    const h = await history("NTU", 30);
    expect(h.daily.map((d: { date_local: string }) => d.date_local)).toEqual([
      "2026-02-08",
      "2026-03-06",
      "2026-03-07",
      "2026-03-08",
      "2026-03-09",
    ]);
    // W1: 02-07T16:00Z (00:00 local) 10 and 02-08T04:00Z 12 → avg 11, min 10, max 12; W2 13; W3 14.
    // Had 02-07T15:59:59Z (temp 40) counted, W1 would average 20.7 and max 40.
    expect(h.daily[0]).toEqual(
      day("2026-02-08", {
        temp_c_avg: 11.6, // (36·11 + 9·13 + 4·14)/49 = 569/49 = 11.612
        temp_c_min: 10.9, // (36·10 + 9·13 + 4·14)/49 = 533/49 = 10.878
        temp_c_max: 12.3, // (36·12 + 9·13 + 4·14)/49 = 605/49 = 12.347
      }),
    );
    expect(h).toEqual(reference.history("NTU", 30, NOW));
  });
});

describe("a station missing a metric, and a stale nearest air station (NCKU)", () => {
  // V2 has no humidity today: rh uses V1, V3 and V4 (steps 1, 3, 4: 144, 16, 9 / 169).
  // B1's only reading (08:55Z) is 3h05m old: real-time uses B2 (09:01Z, 2h59m), B3 and B4 (steps 2, 3, 4);
  // the daily values still use B1 (it is today's observation), so B1..B3 there.
  const NCKU_SNAPSHOT = {
    school: { id: 3, code: "NCKU", name_zh: "國立成功大學", short_name: null, region: "Tainan", timezone: "Asia/Taipei" },
    realtime: {
      aqi: 53, // (36·40 + 16·60 + 9·90)/61 = 3210/61 = 52.623
      aqi_status: "Moderate",
      pm25_ugm3: 15.6, // (36·10 + 16·20 + 9·30)/61 = 950/61 = 15.574
      observed_at_utc: "2026-03-09T11:00:00Z",
    },
    daily: day("2026-03-09", {
      temp_c_avg: 24.8, // V1 25, V2 25, V3 23 → (36·25 + 9·25 + 4·23)/49 = 1217/49 = 24.837
      temp_c_min: 23.7, // 24, 23, 22 → 1159/49 = 23.653
      temp_c_max: 26, // 26, 27, 24 → 1275/49 = 26.020
      rh_avg: 71.3, // V1 72, V3 82, V4 42 → (144·72 + 16·82 + 9·42)/169 = 12058/169 = 71.349
      precip_total_mm: 0.5, // V1 0.2, V2 2, V3 0 → 25.2/49 = 0.514 (V4's 6 mm not used)
      pm25_avg: 62.2, // B1 80, B2 10, B3 20 → (36·80 + 9·10 + 4·20)/49 = 3050/49 = 62.245
      pm10_avg: 96.9, // 120, 30, 40 → 4750/49 = 96.939
      aqi_avg: 159, // 200, 40, 60 → 7800/49 = 159.184
    }),
    day_boundary: "school local timezone",
    data_sources: [source("cwa", [ID.V1, ID.V4, ID.V2, ID.V3]), source("moenv", [ID.B1, ID.B2, ID.B3, ID.B4])],
  };

  it("the next-nearest station having the metric replaces the missing one for that metric only, and is listed", async () => {
    expect(await snapshot("ncku")).toEqual(NCKU_SNAPSHOT);
    expect(NCKU_SNAPSHOT.data_sources[0]?.station_ids).toEqual(["467410", "C0O900", "C0O930", "C0X100"]);
    expect(reference.snapshot("NCKU", NOW)).toEqual(NCKU_SNAPSHOT);
  });

  it("once no reading is within 3 hours, real-time is null and the sources shrink to the daily ones", async () => {
    const late = await clock.at(NOW_LATE, () => snapshot("NCKU"));
    expect(late).toEqual({
      ...NCKU_SNAPSHOT,
      realtime: { aqi: null, aqi_status: null, pm25_ugm3: null, observed_at_utc: null },
      data_sources: [source("cwa", [ID.V1, ID.V4, ID.V2, ID.V3]), source("moenv", [ID.B1, ID.B2, ID.B3])],
    });
  });
});

describe("a station 0.5 m from the school takes all the weight (NTHU)", () => {
  it("the school's values are that station's, whatever the others report", async () => {
    // C0: temp 16, 18; rh 66, 66; rain 0.4 + 0.3. D0: aqi 34, 36; pm25 8.2, 8.6; pm10 21, 25 (latest 11:00Z).
    // C1 (30–35 °C, rh 20, 20 mm) and D1 (aqi 160 at 11:40Z, the newer reading) get no weight.
    const expected = {
      school: schoolBlock(NTHU),
      realtime: { aqi: 36, aqi_status: "Good", pm25_ugm3: 8.6, observed_at_utc: "2026-03-09T11:00:00Z" },
      daily: day("2026-03-09", {
        temp_c_avg: 17,
        temp_c_min: 16,
        temp_c_max: 18,
        rh_avg: 66,
        precip_total_mm: 0.7,
        pm25_avg: 8.4,
        pm10_avg: 23,
        aqi_avg: 35,
      }),
      day_boundary: "school local timezone",
      data_sources: [source("cwa", [ID.C0]), source("moenv", [ID.D0])],
    };
    expect(await snapshot("2")).toEqual(expected);
    expect(reference.snapshot(2, NOW)).toEqual(expected);
  });
});

describe("the real-time window is the last 3 hours", () => {
  it("a reading 2h55m old counts, one 3h05m old does not: only the 4th NTU station is fresh at 14:45Z", async () => {
    // A1..A3's newest are 11:00–11:30Z (over 3 h old); D1 (11:40Z) is 3h05m old; A4 (11:50Z) is 2h55m old.
    const edge = await clock.at(NOW_EDGE, () => snapshot("NTU"));
    expect(edge.realtime).toEqual({ aqi: 900, aqi_status: "Hazardous", pm25_ugm3: 900, observed_at_utc: "2026-03-09T11:50:00Z" });
    expect(edge.daily).toEqual(NTU_TODAY);
    expect(edge.data_sources).toEqual([source("cwa", [ID.W2, ID.W3, ID.W1]), source("moenv", [ID.A3, ID.A1, ID.A2, ID.A4])]);
    expect(edge).toEqual(reference.snapshot("NTU", NOW_EDGE));
  });

  it("with no reading within 3 hours anywhere, real-time values are null; today's daily values stay", async () => {
    const late = await clock.at(NOW_LATE, () => snapshot("NTU"));
    expect(late).toEqual({
      ...NTU_SNAPSHOT,
      realtime: { aqi: null, aqi_status: null, pm25_ugm3: null, observed_at_utc: null },
    });
  });

  it("on a local date with no observation yet, daily values are null but the dates are set", async () => {
    const next = await clock.at(NEXT_DAY, () => snapshot("NTU"));
    expect(next).toEqual({
      school: schoolBlock(NTU),
      realtime: { aqi: null, aqi_status: null, pm25_ugm3: null, observed_at_utc: null },
      daily: day("2026-03-11"),
      day_boundary: "school local timezone",
      data_sources: [],
    });
    expect(next.daily).toHaveProperty("temp_c_avg", null);
  });
});
