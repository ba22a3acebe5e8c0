/**
 * The environment over GraphQL: `University.environment` and
 * `University.environmentHistory(days)` give the same values as REST, and a
 * list of schools is answered with a fixed number of SQL statements whatever
 * its length (one batch per time zone, not one per school).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { Reference } from "./expected.js";
import { FILLER_REGIONS, NOW, rest, taiwanExport } from "./fixtures.js";

const data = taiwanExport();
const reference = new Reference(data);
let t: TestGateway;

beforeAll(async () => {
  t = await testGateway(data, { gateway: { now: () => NOW } });
});
afterAll(async () => {
  await t?.close();
});

const SCHOOL = "school { databaseId code nameZh shortName region timezone }";
const DAY = "dateLocal dateTaipei tempCAvg tempCMin tempCMax rhAvg precipTotalMm pm25Avg pm10Avg aqiAvg";
const SOURCES = "dataSources { id name kind stationIds }";
const ENVIRONMENT = `environment { ${SCHOOL} realtime { aqi aqiStatus pm25Ugm3 observedAtUtc } daily { ${DAY} } dayBoundary ${SOURCES} }`;

/** A GraphQL day, renamed to the REST keys by hand (not through the operation documents). */
const restDay = (d: any) => ({
  date_local: d.dateLocal,
  date_taipei: d.dateTaipei,
  temp_c_avg: d.tempCAvg,
  temp_c_min: d.tempCMin,
  temp_c_max: d.tempCMax,
  rh_avg: d.rhAvg,
  precip_total_mm: d.precipTotalMm,
  pm25_avg: d.pm25Avg,
  pm10_avg: d.pm10Avg,
  aqi_avg: d.aqiAvg,
});
const restSchool = (s: any) => ({
  id: s.databaseId,
  code: s.code,
  name_zh: s.nameZh,
  short_name: s.shortName,
  region: s.region,
  timezone: s.timezone,
});
const restSources = (list: any[]) => list.map((s) => ({ id: s.id, name: s.name, kind: s.kind, station_ids: s.stationIds }));
const restSnapshot = (e: any) => ({
  school: restSchool(e.school),
  realtime: {
    aqi: e.realtime.aqi,
    aqi_status: e.realtime.aqiStatus,
    pm25_ugm3: e.realtime.pm25Ugm3,
    observed_at_utc: e.realtime.observedAtUtc,
  },
  daily: restDay(e.daily),
  day_boundary: e.dayBoundary,
  data_sources: restSources(e.dataSources),
});

describe("University.environment", () => {
  it("answers, for every school of a list, the same snapshot as REST", async () => {
    const body = await t.graphql(`{ universities { totalCount nodes { databaseId ${ENVIRONMENT} } } }`);
    expect(body.errors).toBeUndefined();
    const nodes = body.data?.universities.nodes as any[];
    expect(nodes).toHaveLength(33);
    const viaRest = await rest(t, "/api/v1/environment/snapshot?limit=100");
    expect(viaRest.status).toBe(200);
    expect(nodes.map((n) => restSnapshot(n.environment))).toEqual(viaRest.body.items);
    expect(nodes.map((n) => restSnapshot(n.environment))).toEqual(nodes.map((n) => reference.snapshot(n.databaseId, NOW)));
  });

  it("sends as many SQL statements for 6 schools as for 2 (same time zone), and as for all 33", async () => {
    const QUERY = `query ($region: String) { universities(region: $region) { nodes { databaseId environment { realtime { aqi } daily { tempCAvg } } } } }`;
    const run = async (region: string | null, expected: number) => {
      t.statements.length = 0;
      const body = await t.graphql(QUERY, { region });
      expect(body.errors).toBeUndefined();
      const nodes = body.data?.universities.nodes as any[];
      expect(nodes).toHaveLength(expected);
      for (const n of nodes) {
        const r = reference.snapshot(n.databaseId, NOW);
        expect(n.environment).toEqual({ realtime: { aqi: r.realtime.aqi }, daily: { tempCAvg: r.daily.temp_c_avg } });
      }
      return t.statements.length;
    };
    await run(FILLER_REGIONS.two, 2); // warm-up
    const two = await run(FILLER_REGIONS.two, 2);
    const six = await run(FILLER_REGIONS.six, 6);
    const all = await run(null, 33);
    expect(six).toBe(two);
    expect(all).toBe(two);
    // universities + (candidates, real-time, one daily query per zone), give or take a count.
    expect(two).toBeLessThanOrEqual(6);
  });
});

describe("University.environmentHistory and the root fields", () => {
  it("sends as many SQL statements for the history of 6 schools as of 2", async () => {
    const QUERY = `query ($region: String) { universities(region: $region) { nodes { databaseId environmentHistory(days: 3) { daily { dateLocal tempCAvg } } } } }`;
    const run = async (region: string, expected: number) => {
      t.statements.length = 0;
      const body = await t.graphql(QUERY, { region });
      expect(body.errors).toBeUndefined();
      expect(body.data?.universities.nodes).toHaveLength(expected);
      return t.statements.length;
    };
    await run(FILLER_REGIONS.two, 2); // warm-up
    const two = await run(FILLER_REGIONS.two, 2);
    expect(await run(FILLER_REGIONS.six, 6)).toBe(two);
  });

  it("environmentHistory(days: 3) equals the REST history", async () => {
    const body = await t.graphql(
      `{ university(ref: "ntu") { environmentHistory(days: 3) { ${SCHOOL} days dayBoundary ${SOURCES} daily { ${DAY} } } } }`,
    );
    expect(body.errors).toBeUndefined();
    const h = body.data?.university.environmentHistory;
    const viaRest = await rest(t, "/api/v1/environment/schools/NTU/history?days=3");
    expect({
      school: restSchool(h.school),
      days: h.days,
      day_boundary: h.dayBoundary,
      data_sources: restSources(h.dataSources),
      daily: h.daily.map(restDay),
    }).toEqual(viaRest.body.data);
    expect(viaRest.body.data).toEqual(reference.history("NTU", 3, NOW));
  });

  it("environmentHistory defaults to 30 days", async () => {
    const body = await t.graphql(`{ university(ref: "1") { environmentHistory { days daily { dateLocal } } } }`);
    expect(body.errors).toBeUndefined();
    expect(body.data?.university.environmentHistory).toEqual({
      days: 30,
      daily: ["2026-02-08", "2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09"].map((dateLocal) => ({ dateLocal })),
    });
  });

  it("rejects days and limit out of range with the REST messages", async () => {
    for (const [query, message] of [
      [`{ university(ref: "NTU") { environmentHistory(days: 0) { days } } }`, "days must be an integer from 1 to 90"],
      [`{ schoolEnvironmentHistory(ref: "NTU", days: 91) { days } }`, "days must be an integer from 1 to 90"],
      [`{ environmentSnapshot(limit: 101) { totalCount } }`, "limit must be an integer from 1 to 100"],
    ] as const) {
      const body = await t.graphql(query);
      expect(body.errors?.[0]?.message, query).toBe(message);
    }
  });

  it("schoolEnvironment of an unknown school is null; environmentSnapshot matches REST", async () => {
    const body = await t.graphql(
      `{ missing: schoolEnvironment(ref: "NOPE") { dayBoundary } list: environmentSnapshot(region: "${FILLER_REGIONS.six}", limit: 2) { totalCount nodes { ${SCHOOL} } } }`,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data?.missing).toBeNull();
    expect(body.data?.list.totalCount).toBe(6);
    expect(body.data?.list.nodes.map((n: any) => n.school.databaseId)).toEqual([13, 14]);
  });
});
