/**
 * docs/contract.md §5: "the three nearest stations that have a value for that metric"
 * — however many nearer stations lack it. Thirteen weather stations north of
 * the school, k = 1..13 steps away: all report temperature, only the three
 * farthest (k = 11, 12, 13) report humidity.
 *
 * The gateway first reads the 10 nearest stations of each kind
 * (FIRST_CANDIDATES in src/environment/service.ts) and must go farther when
 * a metric has fewer than three values among them.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { Reference } from "./expected.js";
import { day, NOW, NTU, obs, rest, source, STEP, stationNear, taiwanExport } from "./fixtures.js";

const stations = Array.from({ length: 13 }, (_, i) => stationNear(NTU, `w${String(i + 1).padStart(2, "0")}`, "weather", (i + 1) * STEP));
const data = {
  ...taiwanExport(),
  universities: [NTU],
  courses: [],
  stations,
  observations: stations.map((s, i) => obs(s.id, "2026-03-09T02:00:00Z", { temp_c: 20 + i, rh: i >= 10 ? 60 + 10 * (i - 10) : null })),
};

// Weights at 11, 12 and 13 steps: 1/121, 1/144, 1/169 ∝ 144·169, 121·169, 121·144 = 24336, 20449, 17424 (sum 62209).
// rh = (60·24336 + 70·20449 + 80·17424)/62209 = 4285510/62209 = 68.889 → 68.9
// temp (k = 1, 2, 3: 20, 21, 22) = (36·20 + 9·21 + 4·22)/49 = 997/49 = 20.347 → 20.3
const EXPECTED_DAILY = day("2026-03-09", { temp_c_avg: 20.3, temp_c_min: 20.3, temp_c_max: 20.3, rh_avg: 68.9 });
const EXPECTED_SOURCES = [source("cwa", ["w01", "w02", "w03", "w11", "w12", "w13"])];

let t: TestGateway;
beforeAll(async () => {
  t = await testGateway(data, { gateway: { now: () => NOW } });
});
afterAll(async () => {
  await t?.close();
});

it("the reference calculator follows the contract here", () => {
  const s = new Reference(data).snapshot("NTU", NOW);
  expect(s.daily).toEqual(EXPECTED_DAILY);
  expect(s.data_sources).toEqual(EXPECTED_SOURCES);
});

it("temperature, which the nearest stations have, is answered as the contract says", async () => {
  const r = await rest(t, "/api/v1/environment/schools/NTU");
  expect(r.status).toBe(200);
  expect(r.body.data.daily.temp_c_avg).toBe(20.3);
});

it("a metric the 10 nearest stations lack comes from the 3 nearest that have it", async () => {
  const r = await rest(t, "/api/v1/environment/schools/NTU");
  expect(r.body.data.daily).toEqual(EXPECTED_DAILY);
  expect(r.body.data.data_sources).toEqual(EXPECTED_SOURCES);
});
