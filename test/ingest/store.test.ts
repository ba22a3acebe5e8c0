/**
 * One payload of each agency moves the schools' snapshots and histories as
 * docs/contract.md §5 says, on REST, GraphQL and MCP alike; the same payloads
 * again change nothing; CWA's running totals become hourly amounts across
 * payloads; a bad record is reported while the rest is stored. On a test
 * database, through the store the command uses.
 *
 * The world: NTU in Taipei and UW in Seattle, no station at first. Weather
 * stations sit 1, 2 and 3 steps of 0.01° due north of NTU, air stations due
 * south, so the IDW weights are 1, 1/4, 1/9 = 36, 9 and 4 forty-ninths, or
 * 4/5 and 1/5 with two stations; the expected values are worked out by hand.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportDocument } from "../../src/import/records.js";
import { readAirNow, readAirNowSites } from "../../src/ingest/airnow.js";
import { readCwa } from "../../src/ingest/cwa.js";
import { readMoenv } from "../../src/ingest/moenv.js";
import { readNws } from "../../src/ingest/nws.js";
import { storeFeed } from "../../src/ingest/store.js";
import { NTU, rest, UW } from "../environment/fixtures.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { airNowPayload, airNowSites, type CwaStation, cwaPayload, moenvBare, nwsCollection } from "./payloads.js";
import { mcpClient } from "../support/mcp-client.js";

/** 20:00 in Taipei, 05:00 in Seattle (PDT). */
const NOW = new Date("2026-03-09T12:00:00Z");
const north = (k: number): [number, number] => [Math.round((NTU.latitude + 0.01 * k) * 1e4) / 1e4, NTU.longitude];
const south = (k: number) => ({
  latitude: (Math.round((NTU.latitude - 0.01 * k) * 1e4) / 1e4).toFixed(4),
  longitude: String(NTU.longitude),
});

const cwa19: CwaStation[] = [
  { id: "C0W001", time: "2026-03-09T19:00:00+08:00", wgs84: north(1), temp: 18, rh: 80, precipTotal: 1.0 },
  { id: "C0W002", time: "2026-03-09T19:00:00+08:00", wgs84: north(2), temp: "17", rh: "70", precipTotal: "2.0" },
  { id: "C0W003", time: "2026-03-09T19:00:00+08:00", wgs84: north(3), temp: 15, rh: -99, precipTotal: -99 },
];
const cwa20: CwaStation[] = [
  { id: "C0W001", time: "2026-03-09T20:00:00+08:00", wgs84: north(1), temp: 20, rh: 75, precipTotal: 1.5 },
  { id: "C0W002", time: "2026-03-09T20:00:00+08:00", wgs84: north(2), temp: 19, rh: 72, precipTotal: 2.0 },
  { id: "C0W003", time: "2026-03-09T20:00:00+08:00", wgs84: north(3), temp: 16, rh: "-99", precipTotal: 3.0 },
];
const moenv = moenvBare([
  { siteid: "901", publishtime: "2026/03/09 20:00:00", ...south(1), aqi: "50", pm25: "14", pm10: "30" },
  { siteid: "902", publishtime: "2026/03/09 20:00:00", ...south(2), aqi: "60", pm25: "18", pm10: "40" },
  { siteid: "903", publishtime: "2026/03/09 20:00:00", ...south(3), aqi: "", pm25: "22", pm10: "" },
  { siteid: "904", publishtime: "2026/03/09 20:00:00", ...south(4), aqi: "99", pm25: "ND", pm10: "99" },
]);
const nws = nwsCollection([
  {
    station: "KUWX",
    name: "Seattle, Husky Field",
    timestamp: "2026-03-09T10:53:00+00:00",
    lonLat: [UW.longitude, UW.latitude + 0.01],
    temperature: { unitCode: "wmoUnit:degC", value: 5 },
    relativeHumidity: { unitCode: "wmoUnit:percent", value: 90 },
    precipitationLastHour: { unitCode: "wmoUnit:m", value: 0.0005 },
  },
  {
    station: "KUWX",
    name: "Seattle, Husky Field",
    timestamp: "2026-03-09T11:53:00+00:00",
    lonLat: [UW.longitude, UW.latitude + 0.01],
    temperature: { unitCode: "wmoUnit:degF", value: 44.6 },
    relativeHumidity: { unitCode: "wmoUnit:percent", value: null },
    precipitationLastHour: { unitCode: "wmoUnit:mm", value: 1.5 },
  },
]);
const SITES = airNowSites([{ id: "530330099", name: "Seattle-Montlake", latitude: UW.latitude - 0.01, longitude: UW.longitude }]);
const airnow = airNowPayload([
  { siteID: "530330099", dateObserved: "2026-03-09 ", hourObserved: 4, localTimeZone: "PDT", parameterName: "PM2.5", nowcastAQI: 42 },
  { siteID: "530330099", dateObserved: "2026-03-09 ", hourObserved: 4, localTimeZone: "PDT", parameterName: "O3", nowcastAQI: 61 },
  { siteID: "530339999", dateObserved: "2026-03-09 ", hourObserved: 4, localTimeZone: "PDT", parameterName: "O3", nowcastAQI: 70 },
]);

/**
 * Two worlds, as in test/environment/fixtures.ts: the contract's "three
 * nearest stations having the metric, anywhere" would otherwise let Seattle's
 * stations weigh (very little) on Taipei's missing metrics, and the reverse.
 */
const TAIWAN = () => [readCwa(cwaPayload(cwa19)), readCwa(cwaPayload(cwa20)), readMoenv(moenv)];
const UNITED_STATES = () => [readNws(nws), readAirNow(airnow, readAirNowSites(SITES).sites)];

const world = (universities: unknown[]) => exportDocument(new Date("2026-03-09T00:00:00Z"), { universities });

let t: TestGateway;
let us: TestGateway;
let client: Client;
beforeAll(async () => {
  t = await testGateway(world([NTU]), { gateway: { now: () => NOW } });
  us = await testGateway(world([UW]), { gateway: { now: () => NOW } });
  client = await mcpClient(t.gateway);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
  await us?.close();
});

/** Every table an ingest writes, in a fixed order. */
const dump = async (g: TestGateway) => ({
  station: await g.db.query(`SELECT * FROM station ORDER BY id`),
  observation: await g.db.query(`SELECT * FROM observation ORDER BY station_id, observed_at`),
  station_day: await g.db.query(`SELECT * FROM station_day ORDER BY timezone, station_id, date`),
  school_station: await g.db.query(`SELECT * FROM school_station ORDER BY university_id, station_id`),
  precip_running_total: await g.db.query(`SELECT * FROM precip_running_total ORDER BY station_id, observed_at`),
});

const NTU_SOURCES = [
  { id: "cwa", name: expect.any(String), kind: "weather", station_ids: ["C0W001", "C0W002", "C0W003"] },
  { id: "moenv", name: expect.any(String), kind: "air", station_ids: ["moenv-901", "moenv-902", "moenv-903"] },
];

describe("ingesting one payload of each agency", () => {
  let firstRun: Awaited<ReturnType<typeof storeFeed>>[];

  it("leaves the schools without data before", async () => {
    const r = await rest(t, "/api/v1/environment/schools/NTU");
    expect(r.body.data.realtime).toEqual({ aqi: null, aqi_status: null, pm25_ugm3: null, observed_at_utc: null });
  });

  it("stores every good record and reports each bad one with its position and reason", async () => {
    firstRun = [];
    for (const feed of TAIWAN()) firstRun.push(await storeFeed(t.db, feed));
    for (const feed of UNITED_STATES()) firstRun.push(await storeFeed(us.db, feed));
    expect(
      firstRun.map(({ source, read, stored, unchanged, skipped, stations }) => ({ source, read, stored, unchanged, skipped, stations })),
    ).toEqual([
      { source: "cwa", read: 3, stored: 3, unchanged: 0, skipped: {}, stations: { added: 3, changed: 0 } },
      { source: "cwa", read: 3, stored: 3, unchanged: 0, skipped: {}, stations: { added: 0, changed: 0 } },
      { source: "moenv", read: 4, stored: 3, unchanged: 0, skipped: { "not a number": 1 }, stations: { added: 3, changed: 0 } },
      { source: "nws", read: 2, stored: 2, unchanged: 0, skipped: {}, stations: { added: 1, changed: 0 } },
      { source: "airnow", read: 3, stored: 1, unchanged: 0, skipped: { "unknown site": 1 }, stations: { added: 1, changed: 0 } },
    ]);
    expect(firstRun[2]!.problems).toEqual([{ position: "[3]", reason: "not a number", detail: 'pm2.5: not a number: "ND"' }]);
    expect(firstRun[4]!.problems).toEqual([{ position: "[2]", reason: "unknown site", detail: expect.stringContaining("530339999") }]);
  });

  it("turns CWA's running totals into hourly amounts: unknown where the previous hour is", async () => {
    const rows = await t.db.query<{ station_id: string; at: string; precip_mm: number | null }>(
      `SELECT station_id, to_char(observed_at AT TIME ZONE 'Asia/Taipei', 'HH24:MI') AS at, precip_mm
         FROM observation WHERE station_id LIKE 'C0W%' ORDER BY 1, 2`,
    );
    expect(rows).toEqual([
      { station_id: "C0W001", at: "19:00", precip_mm: null },
      { station_id: "C0W001", at: "20:00", precip_mm: 0.5 },
      { station_id: "C0W002", at: "19:00", precip_mm: null },
      { station_id: "C0W002", at: "20:00", precip_mm: 0 },
      { station_id: "C0W003", at: "19:00", precip_mm: null },
      { station_id: "C0W003", at: "20:00", precip_mm: null },
    ]);
  });

  // NTU today, per station:  temp W1 18,20 → avg 19 min 18 max 20 | W2 17,19 → 18/17/19 | W3 15,16 → 15.5/15/16
  //   rh W1 77.5 | W2 71 | W3 none            precip W1 0.5 | W2 0 | W3 none
  //   aqi A1 50 | A2 60 | A3 none             pm25 A1 14 | A2 18 | A3 22     pm10 A1 30 | A2 40 | A3 none
  const NTU_DAILY = {
    date_local: "2026-03-09",
    date_taipei: "2026-03-09",
    temp_c_avg: 18.5, // (36·19 + 9·18 + 4·15.5)/49 = 908/49 = 18.53
    temp_c_min: 17.6, // (36·18 + 9·17 + 4·15)/49 = 861/49 = 17.57
    temp_c_max: 19.5, // (36·20 + 9·19 + 4·16)/49 = 955/49 = 19.49
    rh_avg: 76.2, // 4/5·77.5 + 1/5·71
    precip_total_mm: 0.4, // 4/5·0.5 + 1/5·0
    pm25_avg: 15.4, // (36·14 + 9·18 + 4·22)/49 = 754/49 = 15.39
    pm10_avg: 32, // 4/5·30 + 1/5·40
    aqi_avg: 52, // 4/5·50 + 1/5·60
  };

  it("moves NTU's snapshot on REST as the contract says, MOENV's AQI as reported", async () => {
    const r = await rest(t, "/api/v1/environment/schools/NTU");
    expect(r.status).toBe(200);
    expect(r.body.data.realtime).toEqual({ aqi: 52, aqi_status: "Moderate", pm25_ugm3: 15.4, observed_at_utc: "2026-03-09T12:00:00Z" });
    expect(r.body.data.daily).toEqual(NTU_DAILY);
    expect(r.body.data.data_sources).toEqual(NTU_SOURCES);
  });

  it("moves NTU's history, and UW's snapshot from NWS (units converted) and AirNow (the highest pollutant's AQI)", async () => {
    const history = await rest(t, "/api/v1/environment/schools/NTU/history?days=2");
    expect(history.body.data.daily).toEqual([NTU_DAILY]);
    const uw = await rest(us, "/api/v1/environment/schools/UW");
    // One station of each kind: its own values. 44.6 °F = 7 °C; 0.0005 m = 0.5 mm.
    expect(uw.body.data.realtime).toEqual({ aqi: 61, aqi_status: "Moderate", pm25_ugm3: null, observed_at_utc: "2026-03-09T11:00:00Z" });
    expect(uw.body.data.daily).toMatchObject({
      date_local: "2026-03-09",
      temp_c_avg: 6,
      temp_c_min: 5,
      temp_c_max: 7,
      rh_avg: 90,
      precip_total_mm: 2,
      aqi_avg: 61,
    });
    expect(uw.body.data.data_sources.map((s: { id: string; station_ids: string[] }) => [s.id, s.station_ids])).toEqual([
      ["airnow", ["airnow-530330099"]],
      ["nws", ["KUWX"]],
    ]);
  });

  it("answers the same on GraphQL and MCP", async () => {
    const query = `{ universities { nodes { code environment { realtime { aqi pm25Ugm3 } daily { tempCAvg precipTotalMm aqiAvg } } } } }`;
    const tw = await t.graphql(query);
    expect(tw.errors).toBeUndefined();
    expect(tw.data?.universities.nodes).toEqual([
      { code: "NTU", environment: { realtime: { aqi: 52, pm25Ugm3: 15.4 }, daily: { tempCAvg: 18.5, precipTotalMm: 0.4, aqiAvg: 52 } } },
    ]);
    const uw = await us.graphql(query);
    expect(uw.data?.universities.nodes).toEqual([
      { code: "UW", environment: { realtime: { aqi: 61, pm25Ugm3: null }, daily: { tempCAvg: 6, precipTotalMm: 2, aqiAvg: 61 } } },
    ]);
    const tool = await client.callTool({ name: "get_school_environment", arguments: { school_ref: "NTU" } });
    expect(tool.isError).toBeFalsy();
    expect((tool.structuredContent as { data: { realtime: unknown; daily: unknown } }).data).toMatchObject({
      realtime: { aqi: 52 },
      daily: NTU_DAILY,
    });
  });

  it("changes nothing when the same payloads come again", async () => {
    const before = [await dump(t), await dump(us)];
    const again = [];
    for (const feed of TAIWAN()) again.push(await storeFeed(t.db, feed));
    for (const feed of UNITED_STATES()) again.push(await storeFeed(us.db, feed));
    expect(again.map((s) => [s.stored, s.unchanged, s.stations, s.completed])).toEqual(
      firstRun.map((s) => [0, s.stored, { added: 0, changed: 0 }, 0]),
    );
    expect([await dump(t), await dump(us)]).toEqual(before);
  });

  it("completes a later hour's precipitation when the hour before it arrives after it", async () => {
    const late: CwaStation[] = [
      { id: "C0W001", time: "2026-03-09T22:00:00+08:00", wgs84: north(1), temp: 17, precipTotal: 4.0 },
      { id: "C0W001", time: "2026-03-09T21:00:00+08:00", wgs84: north(1), temp: 18, precipTotal: 2.5 },
    ];
    const hour = async (local: string) =>
      (
        await t.db.query<{ precip_mm: number | null }>(
          `SELECT precip_mm FROM observation WHERE station_id = 'C0W001' AND observed_at = $1::timestamptz`,
          [`2026-03-09T${local}:00+08:00`],
        )
      )[0]?.precip_mm;
    const first = await storeFeed(t.db, readCwa(cwaPayload([late[0]!])));
    expect(first.completed).toBe(0);
    expect(await hour("22")).toBeNull();
    const second = await storeFeed(t.db, readCwa(cwaPayload([late[1]!])));
    expect(second.completed).toBe(1);
    expect([await hour("21"), await hour("22")]).toEqual([1, 1.5]);
  });

  it("ranks again only the kind of station that a feed added", async () => {
    // A mark on one weather row: an air feed must leave the weather ranks, most of the rows, alone.
    const [{ distance_m }] = (await t.db.query(`SELECT distance_m FROM school_station WHERE station_id = 'C0W001'`)) as [
      { distance_m: number },
    ];
    await t.db.exec(`UPDATE school_station SET distance_m = -1 WHERE station_id = 'C0W001'`);
    const site = moenvBare([{ siteid: "905", publishtime: "2026/03/09 20:00:00", ...south(0.5), aqi: "40", pm25: "9", pm10: "20" }]);
    const summary = await storeFeed(t.db, readMoenv(site));
    expect(summary.stations).toEqual({ added: 1, changed: 0 });
    const rows = await t.db.query<{ station_id: string; rank: number; distance_m: number }>(
      `SELECT station_id, rank, distance_m FROM school_station WHERE station_id IN ('C0W001', 'moenv-905', 'moenv-901') ORDER BY station_id`,
    );
    expect(rows.map((r) => [r.station_id, r.rank, r.distance_m < 0 ? "marked" : "ranked"])).toEqual([
      ["C0W001", 1, "marked"],
      ["moenv-901", 2, "ranked"],
      ["moenv-905", 1, "ranked"],
    ]);
    await t.db.query(`UPDATE school_station SET distance_m = $1 WHERE station_id = 'C0W001'`, [distance_m]);
  });

  it("ranks a new station around every school, and moves a station that moved", async () => {
    const ranks = async () =>
      t.db.query<{ station_id: string; rank: number }>(
        `SELECT station_id, rank FROM school_station WHERE university_id = ${NTU.id} AND kind = 'weather' ORDER BY rank`,
      );
    expect((await ranks()).slice(0, 3).map((r) => r.station_id)).toEqual(["C0W001", "C0W002", "C0W003"]);
    const moved = await storeFeed(t.db, readCwa(cwaPayload([{ ...cwa20[2]!, wgs84: [NTU.latitude + 0.001, NTU.longitude] }])));
    expect(moved.stations).toEqual({ added: 0, changed: 1 });
    expect((await ranks()).slice(0, 3).map((r) => r.station_id)).toEqual(["C0W003", "C0W001", "C0W002"]);
  });
});
