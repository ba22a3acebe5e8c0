/**
 * The v1 operations run compiled by graphql-jit, or as one statement where
 * every field has a SQL form (rest/api.ts). They must answer exactly what
 * graphql-js's `execute` answers; compiled, with the same SQL statements (the Prisma plugin reads the resolve info to join
 * relations; a compiled info it could not read would fall back to one
 * statement per row): every
 * route, on the demo data, with its example request and with variants that
 * page, filter, search, miss (404) and refuse (400), and when the database
 * cannot be reached (503).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { committedExamples } from "../../rest/example-file.js";
import { RestApi } from "../../rest/api.js";
import { createContext } from "../../src/context.js";
import { createReadClient, type ReadClient } from "../../src/db/client.js";
import { type Database, openDatabase } from "../../src/db/driver.js";
import { demoExportRecords } from "../../src/demo/index.js";
import { importExport } from "../../src/import/apply.js";
import { schema } from "../../src/schema/index.js";
import { freshDatabase } from "../support/databases.js";

/** The demo data's clock, as the examples use it (src/cli/rest-examples.ts). */
const NOW = new Date("2026-11-20T12:00:00Z");

/** More requests beside each route's example: other pages, filters, a search, misses and refusals. */
const VARIANTS = [
  "/api/v1/universities?region=north",
  "/api/v1/courses?page=2&page_size=7",
  "/api/v1/courses?q=learning",
  "/api/v1/courses?semester=114-1&page_size=3",
  "/api/v1/courses/999999",
  "/api/v1/courses?page_size=0",
  "/api/v1/course_stats",
  "/api/v1/course_stats?group_by=semester",
  "/api/v1/papers?category=education",
  "/api/v1/conferences?year=2025",
  "/api/v1/environment/schools/ntu/history?days=30",
  "/api/v1/environment/schools/NOPE",
  "/api/v1/environment/snapshot?limit=100",
  "/api/v1/hub/packs?sort=stars&limit=5",
  "/api/v1/hub/packs?asset_type=nope",
  "/api/v1/hub/packs/nope",
];

describe("the compiled v1 operations", () => {
  let db: Database;
  let prisma: ReadClient;
  const statements: string[] = [];
  const compiled = new RestApi(schema);
  const executed = new RestApi(schema, { compile: false });
  const answer = async (api: RestApi, request: string, client = prisma) => {
    const url = new URL(request, "http://gateway.test");
    const match = api.match(url.pathname);
    if (!match) throw new Error(`no route for ${request}`);
    const { status, body, headers } = await api.call(match, url.searchParams, createContext(client, NOW));
    return { status, body, headers };
  };

  beforeAll(async () => {
    db = await freshDatabase();
    await importExport(db, demoExportRecords({ now: NOW, days: 3 }));
    prisma = createReadClient(db, { onQuery: (e) => statements.push(e.query) });
  }, 120_000);
  afterAll(async () => {
    await prisma?.$disconnect();
    await db?.close();
  });

  it("answer what graphql-js answers, on every route and variant", async () => {
    const requests = [...Object.values(committedExamples()).map((e) => e.request), ...VARIANTS];
    const statuses = new Set<number>();
    const planned = new Set<string>();
    for (const request of requests) {
      statements.length = 0;
      const want = await answer(executed, request);
      const sent = [...statements];
      statements.length = 0;
      expect(await answer(compiled, request), request).toEqual(want);
      if (statements.length === 1 && statements[0]!.startsWith("SELECT json_build_array(")) {
        // Answered as one statement (src/sql-plans/plan.ts).
        planned.add(new URL(request, "http://gateway.test").pathname.replace(/\/\d+$/, "/{id}"));
      } else {
        // The same statements; those sent at once may reach the pool in either order.
        expect([...statements].sort(), request).toEqual([...sent].sort());
      }
      statuses.add(want.status);
    }
    // The operations whose every field has a SQL form are answered by one statement.
    expect([...planned].sort()).toEqual(["/api/v1/courses", "/api/v1/courses/{id}", "/api/v1/hub/packs", "/api/v1/universities"]);
    // The variants reach every kind of answer, not only 200s.
    expect([...statuses].sort()).toEqual([200, 400, 404]);
    expect(requests.length).toBeGreaterThanOrEqual(ROUTE_COUNT + VARIANTS.length);
  });

  it("answer 503 as graphql-js does when the database cannot be reached", async () => {
    // Nothing listens on port 1: every statement fails to connect.
    const gone = await openDatabase({
      databaseUrl: "postgresql://postgres@127.0.0.1:1/gone",
      timeouts: { statementMs: 1_000, acquireMs: 500 },
    });
    const client = createReadClient(gone);
    try {
      for (const request of ["/api/v1/universities", "/api/v1/courses/1", "/api/v1/environment/snapshot"]) {
        const want = await answer(executed, request, client);
        expect(want.status, request).toBe(503);
        expect(await answer(compiled, request, client), request).toEqual(want);
      }
    } finally {
      await client.$disconnect().catch(() => undefined);
      await gone.close().catch(() => undefined);
    }
  });
});

/** Every route has an example (src/cli/rest-examples.ts fails otherwise). */
const ROUTE_COUNT = new RestApi(schema).routes.length;
