/**
 * The same export on the embedded PostgreSQL (the default's engine) and on
 * the run's PostgreSQL server (the machine's, often another version) gives
 * the same answers on every surface, guards included.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../rest/routes.js";
import { CANARIES, canaryExport } from "../support/canary.js";
import { freshDatabase, freshEmbedded } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

const NOW = new Date("2026-11-19T17:00:00Z"); // an hour after the canary observations (01:00 in Taipei)
let embedded: TestGateway;
let server: TestGateway;
beforeAll(async () => {
  [embedded, server] = await Promise.all([
    freshEmbedded().then((db) => testGateway(canaryExport(), { db, gateway: { now: () => NOW } })),
    freshDatabase().then((db) => testGateway(canaryExport(), { db, gateway: { now: () => NOW } })),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([embedded?.close(), server?.close()]);
}, 60_000);

const QUERY = `{
  universities { totalCount nodes { databaseId code courses(first: 10) { totalCount nodes { databaseId school startDate } } } }
  coursePage(pageSize: 100, q: "course") { total items { databaseId courseNameEnglish } }
  courseStats(groupBy: year) { nodes { key courseCount instructorCount } }
  hubPacks { totalCount nodes { databaseId latestVersion versions { version publishedAt } } }
  schoolEnvironment(ref: "ntu") { realtime { aqi aqiStatus pm25Ugm3 observedAtUtc } daily { dateLocal tempCAvg pm25Avg } dataSources { id stationIds } }
}`;

// One concrete request per REST route (path parameters filled in).
const PATHS = ROUTES.map((r) => r.path.replace("{course_id}", "1").replace("{school_ref}", "NTU").replace("{pack_id}", "pk_public"));

describe("the embedded PostgreSQL and the run's server agree", () => {
  it("GraphQL", async () => {
    const [a, b] = await Promise.all([embedded.graphql(QUERY), server.graphql(QUERY)]);
    expect(a.errors).toBeUndefined();
    expect(b).toEqual(a);
    expect(a.data?.universities.totalCount).toBe(3);
    expect(a.data?.schoolEnvironment.realtime.aqi).toBe(48);
  });

  it.each(PATHS)("REST %s", async (path) => {
    const [a, b] = await Promise.all(
      [embedded, server].map(async (t) => {
        const response = await t.gateway.fetch(`http://x${path}`);
        return { status: response.status, body: await response.text() };
      }),
    );
    expect(a!.status).toBe(200);
    expect(b).toEqual(a);
    for (const canary of CANARIES) expect(b!.body).not.toContain(canary);
  });
});
