import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConfig, lint } from "@redocly/openapi-core";
import { committedExamples } from "../../rest/example-file.js";
import { collectExamples } from "../../src/cli/rest-examples.js";
import { buildOpenApi, DEFAULT_SERVER, OPENAPI_FILE } from "../../rest/openapi.js";
import { integer, oneOf, text } from "../../rest/params.js";
import { ROUTES } from "../../rest/routes.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { OpenApiChecker, resolvePointer, restClient, type RestClient } from "./support.js";

type Json = Record<string, any>;
const doc = buildOpenApi() as Json;
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Every `$ref` in `node`, with where it sits. */
function refs(node: unknown, at = "#"): { at: string; ref: string }[] {
  if (Array.isArray(node)) return node.flatMap((v, i) => refs(v, `${at}/${i}`));
  if (node === null || typeof node !== "object") return [];
  return Object.entries(node).flatMap(([k, v]) =>
    k === "$ref" && typeof v === "string" ? [{ at, ref: v }] : refs(v, `${at}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`),
  );
}

/** Every operation object of the document, with its path and method. */
function operations(document: Json) {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] as Json })),
  );
}

describe("rest/openapi.json", () => {
  it("is the built document (run `npm run openapi:print` after changing routes, parameters or schemas)", () => {
    const committed = readFileSync(OPENAPI_FILE, "utf8");
    expect(JSON.parse(committed)).toEqual(doc);
    expect(committed).toBe(`${JSON.stringify(doc, null, 2)}\n`);
  });

  it("is an OpenAPI 3.1 document in shape: version, info, paths, components, unique operation ids", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info).toMatchObject({ title: "Public Data API", version: "v1" });
    expect(Object.keys(doc.paths).every((p) => p.startsWith("/"))).toBe(true);
    const ids = operations(doc).map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === "string" && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, op } of operations(doc)) {
      expect(Object.keys(op.responses).length, path).toBeGreaterThan(0);
      for (const [status, response] of Object.entries(op.responses as Json)) {
        expect(status, `${path} ${status}`).toMatch(/^[1-5]\d\d$/);
        const resolved = (response.$ref ? resolvePointer(doc, response.$ref) : response) as Json;
        expect(typeof resolved.description, `${path} ${status}`).toBe("string");
        expect(Object.keys(resolved.content), `${path} ${status}`).toEqual(["application/json"]);
      }
      // Path parameters are exactly the template's names.
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = ((op.parameters ?? []) as Json[]).filter((p) => p.in === "path");
      expect(
        declared.map((p) => p.name),
        path,
      ).toEqual(templated);
      expect(declared.every((p) => p.required === true)).toBe(true);
    }
  });

  it("every $ref resolves, and every component schema compiles under JSON Schema 2020-12 (strict Ajv)", () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(50);
    for (const { at, ref } of all) expect(resolvePointer(doc, ref), `${ref} at ${at}`).toBeDefined();
    const checker = new OpenApiChecker(doc);
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => checker.validator(`#/components/schemas/${name}`), name).not.toThrow();
    }
  });

  it("every route of ROUTES has its path, parameters (rule schema and description) and responses", () => {
    for (const route of ROUTES) {
      const op = doc.paths[route.path]?.get as Json;
      expect(op, route.path).toBeDefined();
      expect(op.summary).toBe(route.description);
      expect(op.security).toEqual([{ bearer: [] }]);
      const query = ((op.parameters ?? []) as Json[]).filter((p) => p.in === "query");
      expect(query).toEqual(
        Object.entries(route.query).map(([name, rule]) => ({
          name,
          in: "query",
          required: false,
          description: rule.description,
          schema: rule.schema,
        })),
      );
      const path = ((op.parameters ?? []) as Json[]).filter((p) => p.in === "path");
      expect(path.map((p) => [p.name, p.schema.type])).toEqual(
        Object.entries(route.pathParams).map(([name, kind]) => [name, kind === "integer" ? "integer" : "string"]),
      );
      const statuses = Object.keys(op.responses);
      const textPath = Object.values(route.pathParams).includes("string");
      const expected = [
        "200",
        ...(query.length || textPath ? ["400"] : []),
        "401",
        ...(path.length ? ["404"] : []),
        "405",
        "429",
        "500",
        "503",
      ];
      expect(statuses, route.path).toEqual(expected);
      const envelope = resolvePointer(doc, op.responses["200"].content["application/json"].schema.$ref) as Json;
      const keys = {
        object: ["success", "data"],
        list: ["success", "items", "total"],
        paged: ["success", "items", "page", "page_size", "total"],
      };
      expect(envelope.required, route.path).toEqual(keys[route.envelope]);
      expect(envelope.additionalProperties).toBe(false);
    }
    // Nothing else under /api/v1/ but the routes and the root.
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith("/api/v1/"))
        .sort(),
    ).toEqual(ROUTES.map((r) => r.path).sort());
  });

  it("the root, health checks and this document need no key; operations do", () => {
    for (const path of ["/api/v1", "/healthz", "/readyz", "/openapi.json"]) expect(doc.paths[path].get.security).toEqual([]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearer: [] }]);
    const h = doc.components.headers;
    expect(resolvePointer(doc, "#/components/responses/Unauthorized/headers/WWW-Authenticate/$ref")).toBe(
      "#/components/headers/WWW-Authenticate",
    );
    expect(Object.keys(doc.components.responses.TooManyRequests.headers)).toEqual([
      "Retry-After",
      "RateLimit-Policy",
      "RateLimit",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
    ]);
    expect(h["Retry-After"]).toMatchObject({ required: true, schema: { type: "integer" } });
    expect(h.Allow).toMatchObject({ required: true, schema: { const: "GET, HEAD" } });
    expect(Object.keys(doc.paths["/api/v1/courses"].get.responses["200"].headers)).toEqual([
      "RateLimit-Policy",
      "RateLimit",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
    ]);
  });

  it("resource schemas are strict: no extra field, every field required, the contract's types", () => {
    const schemas = doc.components.schemas as Json;
    const objects: Json[] = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (node === null || typeof node !== "object") return;
      const o = node as Json;
      if (o.type === "object" && o.properties) objects.push(o);
      Object.values(o).forEach(walk);
    };
    walk(schemas);
    expect(objects.length).toBeGreaterThan(25);
    for (const o of objects) {
      expect(o.additionalProperties, JSON.stringify(o).slice(0, 80)).toBe(false);
      expect(o.required).toEqual(Object.keys(o.properties));
    }
    expect(schemas.Course.properties.id.type).toBe("integer");
    expect(schemas.University.properties.id.type).toBe("integer");
    expect(schemas.Pack.properties.id.type).toBe("string");
    expect(schemas.Course.properties.start_date).toMatchObject({ type: ["string", "null"], format: "date" });
    expect(schemas.PackVersion.properties.published_at).toMatchObject({ type: "string", format: "date-time" });
    expect(schemas.Realtime.properties.observed_at_utc).toMatchObject({ type: ["string", "null"], format: "date-time" });
    expect(schemas.Daily.properties.date_local).toMatchObject({ type: "string", format: "date" });
    expect(schemas.Pack.properties.asset_type.enum).toEqual(["ai_task", "channel_template", "quiz_bank", "skill", "survey_bank"]);
    expect(schemas.Pack.properties.education_level.enum).toEqual([
      "elementary",
      "general",
      "high_school",
      "junior_high",
      "university",
      null,
    ]);
    expect(schemas.Conference.properties.relationship.enum).toEqual(["participated", "watching"]);
    expect(schemas.Snapshot.required).toEqual(["school", "realtime", "daily", "day_boundary", "data_sources"]);
    expect(schemas.History.required).toEqual(["school", "days", "day_boundary", "data_sources", "daily"]);
    expect(schemas.School.required).toEqual(["id", "code", "name_zh", "short_name", "region", "timezone"]);
    expect(schemas.Daily.required).toEqual([
      "date_local",
      "date_taipei",
      "temp_c_avg",
      "temp_c_min",
      "temp_c_max",
      "rh_avg",
      "precip_total_mm",
      "pm25_avg",
      "pm10_avg",
      "aqi_avg",
    ]);
    expect(schemas.DataSource.required).toEqual(["id", "name", "kind", "station_ids"]);
    expect(Object.keys(schemas.PackDetail.properties)).toEqual([...Object.keys(schemas.Pack.properties), "readme_md", "versions"]);
    expect(schemas.Pack.properties.readme_md).toBeUndefined();
    expect(schemas.InternalFailure.properties.error).toEqual({ type: "string", const: "internal error" });
  });

  it("the schemas reject what the contract forbids (a missing field, an extra field, a wrong type or format)", () => {
    const checker = new OpenApiChecker(doc);
    const valid = (name: string, value: unknown) => checker.validator(`#/components/schemas/${name}`)(value);
    const university = { id: 1, code: "NTU", name_zh: "國立臺灣大學", name_en: null, short_name: null, region: null };
    expect(valid("University", university)).toBe(true);
    const { region: _region, ...missing } = university;
    expect(valid("University", missing)).toBe(false);
    expect(valid("University", { ...university, country: "TW" })).toBe(false);
    expect(valid("University", { ...university, id: "1" })).toBe(false);
    expect(valid("Failure", { success: false, error: "x" })).toBe(true);
    expect(valid("Failure", { success: true, error: "x" })).toBe(false);
    expect(valid("PackVersion", { version: "1.0.0", published_at: "2026-01-01T00:00:00Z", changelog: null })).toBe(true);
    expect(valid("PackVersion", { version: "1.0.0", published_at: "yesterday", changelog: null })).toBe(false);
    const daily = {
      date_local: "2026-11-20",
      date_taipei: "2026-11-20",
      temp_c_avg: 20.5,
      temp_c_min: null,
      temp_c_max: null,
      rh_avg: null,
      precip_total_mm: 0,
      pm25_avg: null,
      pm10_avg: null,
      aqi_avg: 48,
    };
    const school = { id: 1, code: "NTU", name_zh: "國立臺灣大學", short_name: "臺大", region: "Taipei", timezone: "Asia/Taipei" };
    const snapshot = {
      school,
      realtime: { aqi: 48, aqi_status: "Good", pm25_ugm3: 12, observed_at_utc: "2026-11-19T16:00:00Z" },
      daily,
      day_boundary: "school local timezone",
      data_sources: [{ id: "cwa", name: "Central Weather Administration (Taiwan)", kind: "weather", station_ids: ["466920"] }],
    };
    expect(valid("Snapshot", snapshot)).toBe(true);
    expect(valid("Snapshot", { ...snapshot, day_boundary: "Asia/Taipei" })).toBe(false);
    expect(valid("Snapshot", { ...snapshot, realtime: { ...snapshot.realtime, aqi_status: "Fine" } })).toBe(false);
    expect(valid("Daily", { ...daily, date_local: "2026-11-20T00:00:00Z" })).toBe(false);
    expect(valid("History", { school, days: 30, day_boundary: "school local timezone", data_sources: [], daily: [daily] })).toBe(true);
    expect(
      valid("History", { school, days: 30, day_boundary: "school local timezone", data_sources: [], daily: [{ ...daily, extra: 1 }] }),
    ).toBe(false);
  });

  it("parameter rules carry their OpenAPI schema", () => {
    expect(integer("d", { min: 1, max: 100, default: 20 }).schema).toEqual({ type: "integer", minimum: 1, maximum: 100, default: 20 });
    expect(oneOf("d", ["a", "b"], "a").schema).toEqual({ type: "string", enum: ["a", "b"], default: "a" });
    expect(text("d").schema).toEqual({ type: "string", maxLength: 200 });
  });
});

describe("the examples", () => {
  it("every operation's 200 shows an example from the demo data, and each matches the answer's schema", () => {
    const checker = new OpenApiChecker(doc);
    for (const route of ROUTES) {
      const content = doc.paths[route.path].get.responses["200"].content["application/json"];
      const demo = content.examples?.demo;
      expect(demo?.summary, route.path).toMatch(/^GET \/api\/v1\/\S+ on the demo data/);
      expect(new URL(demo.summary.split(" ")[1], "http://x").pathname.startsWith(route.path.replace(/\{.*$/, "")), route.path).toBe(true);
      expect(() => checker.assertSchema(content.schema.$ref, demo.value, `example of ${route.path}`)).not.toThrow();
    }
  });

  it("are what the gateway answers on the demo data today (npm run openapi:examples writes them)", async () => {
    const db = await freshDatabase();
    try {
      expect(await collectExamples(db)).toEqual(committedExamples());
    } finally {
      await db.close();
    }
  }, 60_000);
});

describe("GET /openapi.json", () => {
  let t: TestGateway;
  let rest: RestClient;
  beforeAll(async () => {
    t = await testGateway(canaryExport());
    rest = restClient(t.gateway);
  });
  afterAll(() => t.close());

  it("serves the committed document, naming as its server the address it was asked at", async () => {
    const committed = JSON.parse(readFileSync(OPENAPI_FILE, "utf8"));
    expect(committed).toEqual(doc);
    expect(committed.servers).toEqual([DEFAULT_SERVER]);
    const response = await rest.get("/openapi.json");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...doc, servers: [{ url: "http://gateway.test", description: "This gateway." }] });
    const elsewhere = await t.gateway.fetch("http://10.1.2.3:8080/openapi.json");
    expect(((await elsewhere.json()) as Json).servers).toEqual([{ url: "http://10.1.2.3:8080", description: "This gateway." }]);
  });

  it("passes Redocly's recommended lint with no error (rest/openapi.json as committed)", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lint({ ref: OPENAPI_FILE, config });
    const errors = problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    // What is left are warnings, each a choice: no license (the data's terms are in the description).
    expect(problems.map((p) => p.ruleId)).toEqual(["info-license"]);
  });

  it("answers HEAD without a body and refuses POST with 405", async () => {
    const head = await rest.fetch("/openapi.json", { method: "HEAD" });
    expect(head.status).toBe(200);
    const post = await rest.fetch("/openapi.json", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect(post.body).toEqual({ success: false, error: "method POST not allowed; use GET" });
  });

  it("describes /healthz and /readyz as they answer", async () => {
    expect((await rest.get("/healthz")).body).toEqual({ status: "ok" });
    expect((await rest.get("/readyz")).body).toEqual({ status: "ready" });
  });
});
