/**
 * A history whose dates need different numbers of stations. Thirteen weather
 * stations north of the school (k = 1..13 steps) and three air stations
 * south of it. Every station reports every metric of its kind on every date,
 * except humidity: on 03-06 and 03-08 only the three farthest (k = 11..13)
 * report it, so those two dates need more than the 10 nearest stations.
 *
 * Complete dates are read from station_day (src/import/daily.ts), today from
 * the hourly rows. The wider round re-reads only the span of the short dates (03-06 to 03-08)
 * and keeps the rows it already had for the other dates. 03-07, inside that
 * span but not short itself, must come out once, not twice; 03-05 and 03-09,
 * outside it, must be kept.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createReadClient } from "../../src/db/client.js";
import { histories } from "../../src/environment/service.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { Reference } from "./expected.js";
import { NOW, NTU, obs, rest, STEP, stationNear, taiwanExport } from "./fixtures.js";

const weather = Array.from({ length: 13 }, (_, i) => stationNear(NTU, `w${String(i + 1).padStart(2, "0")}`, "weather", (i + 1) * STEP));
const air = Array.from({ length: 3 }, (_, i) => stationNear(NTU, `a${i + 1}`, "air", (i + 1) * STEP));
const DATES = ["2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09"];
const SHORT = new Set(["2026-03-06", "2026-03-08"]);

const data = {
  ...taiwanExport(),
  universities: [NTU],
  courses: [],
  stations: [...weather, ...air],
  observations: DATES.flatMap((date, d) => [
    ...weather.map((s, i) =>
      obs(s.id, `${date}T02:00:00Z`, {
        temp_c: 20 + i + d,
        rh: SHORT.has(date) && i < 10 ? null : 60 + 2 * i + d,
        precip_mm: i % 3,
      }),
    ),
    ...air.map((s, i) => obs(s.id, `${date}T02:00:00Z`, { pm25_ugm3: 10 + i + d, pm10_ugm3: 20 + i, aqi: 40 + i })),
  ]),
};

let t: TestGateway;
beforeAll(async () => {
  t = await testGateway(data, { gateway: { now: () => NOW } });
});
afterAll(async () => {
  await t?.close();
});

it("answers every date as weighting over all stations would, short or not", async () => {
  const reference = new Reference(data).history("NTU", 5, NOW);
  expect(reference.daily.map((d) => d.date_local)).toEqual(DATES);
  const r = await rest(t, "/api/v1/environment/schools/NTU/history?days=5");
  expect(r.status).toBe(200);
  expect(r.body.data).toEqual(reference);
  // The short dates' humidity comes from the three farthest stations, the others' from the three nearest.
  expect(r.body.data.data_sources[0].station_ids).toEqual(["w01", "w02", "w03", "w11", "w12", "w13"]);
});

it("re-reads only the span of the short dates in the wider round", async () => {
  const spans: string[] = [];
  const prisma = createReadClient(t.db, {
    onQuery: (e) => {
      // The daily rows' statement (not the probe for a reading stamped ahead of the clock).
      if (e.query.includes("FROM observation o")) spans.push(e.params);
    },
  });
  try {
    const school = { id: 1, country: "TW", timezone: "Asia/Taipei" };
    const [h] = [...(await histories(prisma, [school], 5, NOW)).values()];
    expect(h?.daily.map((d) => d.date)).toEqual(DATES);
    expect(spans).toHaveLength(2);
    // First round: all 5 dates, 03-05 to 03-08 from station_day, and today (03-09) from the
    // hourly rows since its start (Taipei midnight is 16:00Z the day before), never earlier ones.
    expect(spans[0]).toContain('"2026-03-05"');
    expect(spans[0]).toContain('"2026-03-09"');
    expect(spans[0]).toContain("2026-03-08T16:00:00");
    expect(spans[0]).not.toContain("2026-03-04T16:00:00");
    // Second: only the short span, 03-06 to 03-08 (no hourly rows at all: it ends before today).
    expect(spans[1]).toContain('"2026-03-06"');
    expect(spans[1]).not.toContain('"2026-03-05"');
    expect(spans[1]).toContain("2026-03-08T16:00:00");
    expect(spans[1]).not.toContain("2026-03-04T16:00:00");
  } finally {
    await prisma.$disconnect();
  }
});
