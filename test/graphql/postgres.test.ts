/**
 * The same export on PGlite and on the PostgreSQL server gives the same
 * answers on every surface, guards included.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../rest/routes.js";
import { CANARIES, canaryExport } from "../support/canary.js";
import { freshPGlite, freshPostgres } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

const NOW = new Date("2026-11-19T17:00:00Z"); // an hour after the canary observations (01:00 in Taipei)
let lite: TestGateway;
let server: TestGateway;
beforeAll(async () => {
  [lite, server] = await Promise.all([
    freshPGlite().then((db) => testGateway(canaryExport(), { db, gateway: { now: () => NOW } })),
    freshPostgres().then((db) => testGateway(canaryExport(), { db, gateway: { now: () => NOW } })),
  ]);
});
afterAll(async () => {
  await Promise.all([lite?.close(), server?.close()]);
});

const QUERY = `{
  universities { totalCount nodes { databaseId code courses(first: 10) { totalCount nodes { databaseId school startDate } } } }
  coursePage(pageSize: 100, q: "course") { total items { databaseId courseNameEnglish } }
  courseStats(groupBy: year) { nodes { key courseCount instructorCount } }
  hubPacks { totalCount nodes { databaseId latestVersion versions { version publishedAt } } }
  schoolEnvironment(ref: "ntu") { realtime { aqi aqiStatus pm25Ugm3 observedAtUtc } daily { dateLocal tempCAvg pm25Avg } dataSources { id stationIds } }
}`;

// One concrete request per REST route (path parameters filled in).
const PATHS = ROUTES.map((r) => r.path.replace("{course_id}", "1").replace("{school_ref}", "NTU").replace("{pack_id}", "pk_public"));

describe("PGlite and PostgreSQL agree", () => {
  it("GraphQL", async () => {
    const [a, b] = await Promise.all([lite.graphql(QUERY), server.graphql(QUERY)]);
    expect(a.errors).toBeUndefined();
    expect(b).toEqual(a);
    expect(a.data?.universities.totalCount).toBe(3);
    expect(a.data?.schoolEnvironment.realtime.aqi).toBe(48);
  });

  it.each(PATHS)("REST %s", async (path) => {
    const [a, b] = await Promise.all(
      [lite, server].map(async (t) => {
        const response = await t.gateway.fetch(`http://x${path}`);
        return { status: response.status, body: await response.text() };
      }),
    );
    expect(a!.status).toBe(200);
    expect(b).toEqual(a);
    for (const canary of CANARIES) expect(b!.body).not.toContain(canary);
  });
});
