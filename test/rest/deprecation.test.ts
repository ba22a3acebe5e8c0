/**
 * A route on its way out (`deprecated` in rest/routes.ts): every answer it
 * gives carries `Deprecation` and `Sunset`, kept answers and refusals
 * included, the OpenAPI document marks the operation `deprecated`, and its
 * MCP tool's description says so first; the other routes are unchanged.
 * This is what the breaking-change guard (test/contracts/) asks for before an
 * operation may be removed.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { RestApi } from "../../rest/api.js";
import { buildOpenApi } from "../../rest/openapi.js";
import { ROUTES } from "../../rest/routes.js";
import { AnswerCache } from "../../src/cache/answers.js";
import { createContext } from "../../src/context.js";
import { createReadClient, type ReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { toolDefinitions } from "../../src/mcp/tools.js";
import { schema } from "../../src/schema/index.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase, importObject } from "../support/databases.js";

const routes = ROUTES.map((r) => (r.path === "/api/v1/papers" ? { ...r, deprecated: { since: "2026-11-27", sunset: "2027-06-01" } } : r));
const DEPRECATION = { deprecation: "@1795737600", sunset: "Tue, 01 Jun 2027 00:00:00 GMT" };

let db: Database;
let prisma: ReadClient;
const api = new RestApi(schema, { routes, cache: new AnswerCache({ ttlMs: 60_000 }) });
const get = async (path: string) => {
  const url = new URL(path, "http://gateway.test");
  const match = api.match(url.pathname)!;
  return { match, url, answer: await api.call(match, url.searchParams, createContext(prisma, new Date("2026-11-27T12:00:00Z"))) };
};

beforeAll(async () => {
  db = await freshDatabase();
  await importObject(db, canaryExport());
  prisma = createReadClient(db);
}, 60_000);
afterAll(async () => {
  await prisma?.$disconnect();
  await db?.close();
});

it("every answer of the deprecated route carries Deprecation and Sunset: a 200, a kept one, a 400", async () => {
  expect(new Date("2026-11-27T00:00:00Z").getTime() / 1000).toBe(1795737600);
  const { match, url, answer } = await get("/api/v1/papers");
  expect(answer.status).toBe(200);
  expect(answer.headers).toEqual(DEPRECATION);
  expect(api.cachedAt(api.keyOf(match, url.searchParams)!)?.headers).toEqual(DEPRECATION);
  const refused = (await get("/api/v1/papers?category=%00")).answer;
  expect(refused.status).toBe(400);
  expect(refused.headers).toEqual(DEPRECATION);
});

it("the other routes' answers do not", async () => {
  const { answer } = await get("/api/v1/conferences");
  expect(answer.status).toBe(200);
  expect(answer.headers).toBeUndefined();
});

it("the OpenAPI document marks the operation deprecated, and says until when", () => {
  const paths = (buildOpenApi(routes) as { paths: Record<string, { get: { deprecated?: boolean; description?: string } }> }).paths;
  expect(paths["/api/v1/papers"]!.get.deprecated).toBe(true);
  expect(paths["/api/v1/papers"]!.get.description).toMatch(/^Deprecated since 2026-11-27, and removed after 2027-06-01\. Every answer/);
  expect(paths["/api/v1/conferences"]!.get.deprecated).toBeUndefined();
  expect(
    (buildOpenApi() as { paths: Record<string, { get: { deprecated?: boolean } }> }).paths["/api/v1/papers"]!.get.deprecated,
  ).toBeUndefined();
});

it("the MCP tool of the deprecated route says so first; the others do not", () => {
  const tools = new Map(toolDefinitions(routes, api.schemas).map((t) => [t.name, t.description]));
  const papers = routes.find((r) => r.path === "/api/v1/papers")!.tool;
  const conferences = routes.find((r) => r.path === "/api/v1/conferences")!.tool;
  expect(tools.get(papers)).toMatch(/^Deprecated since 2026-11-27, and removed after 2027-06-01\. \S/);
  expect(tools.get(conferences)).not.toMatch(/deprecated/i);
});
