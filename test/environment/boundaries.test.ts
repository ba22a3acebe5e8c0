/**
 * The edges of "now": today's daily values are "so far" (a reading stamped
 * after the request's instant does not count), and a reading exactly three
 * hours old is still real-time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canaryExport } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

let clock = new Date("2026-11-19T17:00:00Z");
let t: TestGateway;
beforeAll(async () => {
  const e = canaryExport();
  // 02:00 in Taipei on 2026-11-20, the same local date as the 00:00 readings.
  e.observations.push({ station_id: "466920", observed_at: "2026-11-19T18:00:00Z", temp_c: 40, rh: 50, precip_mm: 0 } as never);
  t = await testGateway(e, { gateway: { now: () => clock } });
});
afterAll(() => t.close());

async function snapshot(at: string) {
  clock = new Date(at);
  const response = await t.gateway.fetch("http://x/api/v1/environment/schools/NTU");
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: any }).data;
}

describe("the edges of now", () => {
  it("a reading stamped after now is not in today's daily values", async () => {
    const before = await snapshot("2026-11-19T17:00:00Z");
    expect(before.daily).toMatchObject({ date_local: "2026-11-20", temp_c_max: 20.5, temp_c_avg: 20.5 });
    const after = await snapshot("2026-11-19T18:00:00Z");
    expect(after.daily).toMatchObject({ date_local: "2026-11-20", temp_c_max: 40, temp_c_avg: 30.3 });
  });

  it("a reading exactly three hours old is real-time; a millisecond later it is not", async () => {
    expect((await snapshot("2026-11-19T19:00:00.000Z")).realtime).toMatchObject({ aqi: 48, observed_at_utc: "2026-11-19T16:00:00Z" });
    expect((await snapshot("2026-11-19T19:00:00.001Z")).realtime).toEqual({
      aqi: null,
      aqi_status: null,
      pm25_ugm3: null,
      observed_at_utc: null,
    });
  });
});
