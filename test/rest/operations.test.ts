/**
 * The REST layer as a whole (docs/contract.md §1–§2): the root, routing (404), methods
 * (405, HEAD), parameter rules of every route (defaults, bounds, enums, exact
 * 400 messages, empty and unknown parameters) and the canary check. Every
 * response is checked against the OpenAPI document by ./support.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../rest/routes.js";
import { CANARIES } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { richExport } from "./fixture.js";
import { restClient, type RestClient } from "./support.js";

/** The 11 operations of the seed's table. */
const SEED_PATHS = [
  "/api/v1/universities",
  "/api/v1/courses",
  "/api/v1/courses/{course_id}",
  "/api/v1/course_stats",
  "/api/v1/papers",
  "/api/v1/conferences",
  "/api/v1/environment/schools/{school_ref}",
  "/api/v1/environment/schools/{school_ref}/history",
  "/api/v1/environment/snapshot",
  "/api/v1/hub/packs",
  "/api/v1/hub/packs/{pack_id}",
];
const SAMPLE: Record<string, string> = { course_id: "1", pack_id: "pk_public", school_ref: "NTU" };
const sampleUrl = (path: string) => path.replace(/\{(\w+)\}/g, (_m, name: string) => SAMPLE[name]!);
const failure = (error: string) => ({ success: false, error });

let t: TestGateway;
let rest: RestClient;
beforeAll(async () => {
  // A fixed clock just after the canary observations, so environment answers have data.
  t = await testGateway(richExport(), { gateway: { now: () => new Date("2026-11-19T17:00:00Z") } });
  rest = restClient(t.gateway);
});
afterAll(() => t.close());

describe("root", () => {
  it("GET /api/v1 and /api/v1/ describe the API and list every route of ROUTES", async () => {
    const expected = {
      success: true,
      data: {
        name: "Public Data API",
        version: "v1",
        graphql: "/graphql",
        mcp: "/mcp",
        auth: "Authorization: Bearer <API_KEY>",
        limits: { per_minute: 60, per_day: 10_000 },
        endpoints: ROUTES.map((r) => ({ method: "GET", path: r.path, description: r.description })),
        terms: [
          "No commercial bulk scraping or resale of the data.",
          "Attribute data obtained through the API to the platform.",
          "Abuse or breach of these terms may lead to revocation of the key.",
        ],
        attribution: expect.stringMatching(/\S/),
      },
    };
    const bare = await rest.get("/api/v1");
    const slash = await rest.get("/api/v1/");
    expect(bare.status).toBe(200);
    expect(bare.body).toEqual(expected);
    expect(slash.status).toBe(200);
    expect(slash.text).toBe(bare.text);
  });

  it("lists exactly the 11 operations of the seed, written as in OpenAPI", async () => {
    const { body } = await rest.get("/api/v1");
    expect(body.data.endpoints.map((e: { path: string }) => e.path).sort()).toEqual([...SEED_PATHS].sort());
  });

  it("answers HEAD, and refuses other methods with 405 and Allow", async () => {
    const head = await rest.fetch("/api/v1", { method: "HEAD" });
    expect(head.status).toBe(200);
    for (const method of ["POST", "PUT", "DELETE"]) {
      const response = await rest.fetch("/api/v1/", { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("GET, HEAD");
      expect(response.body).toEqual(failure(`method ${method} not allowed; use GET`));
    }
  });
});

describe("routing and methods", () => {
  it("a path under /api/v1/ that is not an operation is 404", async () => {
    for (const path of [
      "/api/v1/nope",
      "/api/v1/courses/",
      "/api/v1/courses/1/extra",
      "/api/v1//courses",
      "/api/v1/hub",
      "/api/v1/hub/packs/",
    ]) {
      const response = await rest.get(path);
      expect(response.status, path).toBe(404);
      expect(response.body, path).toEqual(failure(`no such path: ${path}`));
    }
  });

  it("an unknown path is 404 before the method is looked at", async () => {
    const response = await rest.fetch("/api/v1/nope", { method: "POST" });
    expect(response.status).toBe(404);
    expect(response.body).toEqual(failure("no such path: /api/v1/nope"));
  });

  it("POST, PUT, PATCH and DELETE on every operation are 405 with Allow: GET, HEAD", async () => {
    for (const route of ROUTES) {
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const response = await rest.fetch(sampleUrl(route.path), { method, body: method === "DELETE" ? null : "{}" });
        expect(response.status, `${method} ${route.path}`).toBe(405);
        expect(response.headers.get("allow")).toBe("GET, HEAD");
        expect(response.body).toEqual(failure(`method ${method} not allowed; use GET`));
      }
    }
  });

  it("the method is checked before the parameters (405, not 400)", async () => {
    const response = await rest.fetch("/api/v1/courses?page=0", { method: "POST" });
    expect(response.status).toBe(405);
  });

  it("HEAD works on every operation: GET's status and headers, no body", async () => {
    for (const route of ROUTES) {
      const url = sampleUrl(route.path);
      const get = await rest.get(url);
      const head = await rest.fetch(url, { method: "HEAD" });
      expect(get.status, url).toBe(200);
      expect(head.status, url).toBe(200);
      expect(head.text).toBe("");
    }
    expect((await rest.fetch("/api/v1/courses/999", { method: "HEAD" })).status).toBe(404);
    expect((await rest.fetch("/api/v1/courses?page=0", { method: "HEAD" })).status).toBe(400);
  });
});

describe("parameters of every route (from the rules of ROUTES)", () => {
  it("each integer rule: below, above, not an integer, a fraction → 400 naming the range; the bounds themselves → 200", async () => {
    let checked = 0;
    for (const route of ROUTES) {
      for (const [name, rule] of Object.entries(route.query)) {
        const schema = rule.schema as { type: string; minimum?: number; maximum?: number };
        if (schema.type !== "integer") continue;
        const { minimum: min, maximum: max } = schema as { minimum: number; maximum: number };
        const message = `${name} must be an integer from ${min} to ${max}`;
        for (const bad of [String(min - 1), String(max + 1), "abc", "1.5", "1e1", "0x10", "2 ", "١"]) {
          const response = await rest.get(`${sampleUrl(route.path)}?${name}=${encodeURIComponent(bad)}`);
          expect(response.status, `${route.path} ${name}=${bad}`).toBe(400);
          expect(response.body).toEqual(failure(message));
        }
        for (const good of [min, max]) {
          const response = await rest.get(`${sampleUrl(route.path)}?${name}=${good}`);
          expect(response.status, `${route.path} ${name}=${good}`).toBe(200);
        }
        checked++;
      }
    }
    // page, page_size, year, days, limit (snapshot), limit (packs).
    expect(checked).toBe(6);
  });

  it("each enum rule: every value → 200; another value, or a value in another case → 400 listing the values", async () => {
    let checked = 0;
    for (const route of ROUTES) {
      for (const [name, rule] of Object.entries(route.query)) {
        const values = (rule.schema as { enum?: string[] }).enum;
        if (!values) continue;
        for (const value of values) {
          expect((await rest.get(`${route.path}?${name}=${value}`)).status, `${name}=${value}`).toBe(200);
        }
        for (const bad of ["nope", values[0]!.toUpperCase(), ` ${values[0]}`]) {
          const response = await rest.get(`${route.path}?${name}=${encodeURIComponent(bad)}`);
          expect(response.status, `${name}=${bad}`).toBe(400);
          expect(response.body).toEqual(failure(`${name} must be one of ${values.join(", ")}`));
        }
        checked++;
      }
    }
    expect(checked).toBe(4); // group_by, asset_type, education_level, sort
  });

  it("the exact 400 messages of the seed's parameters", async () => {
    const cases: [string, string][] = [
      ["/api/v1/courses?page_size=0", "page_size must be an integer from 1 to 100"],
      ["/api/v1/courses?page_size=101", "page_size must be an integer from 1 to 100"],
      ["/api/v1/courses?page_size=abc", "page_size must be an integer from 1 to 100"],
      ["/api/v1/courses?page_size=1.5", "page_size must be an integer from 1 to 100"],
      ["/api/v1/courses?page=0", "page must be an integer from 1 to 2147483647"],
      ["/api/v1/courses?page=-1", "page must be an integer from 1 to 2147483647"],
      ["/api/v1/courses?page=2147483648", "page must be an integer from 1 to 2147483647"],
      ["/api/v1/hub/packs?limit=0", "limit must be an integer from 1 to 100"],
      ["/api/v1/hub/packs?limit=101", "limit must be an integer from 1 to 100"],
      ["/api/v1/papers?year=abc", "year must be an integer from 1 to 9999"],
      ["/api/v1/course_stats?group_by=month", "group_by must be one of semester, year, school"],
      ["/api/v1/hub/packs?sort=popular", "sort must be one of recent, stars, installs"],
      ["/api/v1/hub/packs?asset_type=video", "asset_type must be one of skill, channel_template, quiz_bank, survey_bank, ai_task"],
      [
        "/api/v1/hub/packs?education_level=college",
        "education_level must be one of university, high_school, junior_high, elementary, general",
      ],
    ];
    for (const [url, message] of cases) {
      const response = await rest.get(url);
      expect(response.status, url).toBe(400);
      expect(response.text, url).toBe(JSON.stringify(failure(message)));
    }
  });

  it("the first problem is reported when several parameters are bad", async () => {
    expect((await rest.get("/api/v1/courses?page_size=0&page=0")).body).toEqual(failure("page must be an integer from 1 to 2147483647"));
  });

  it("an empty parameter is treated as absent, on every route", async () => {
    for (const route of ROUTES) {
      const url = sampleUrl(route.path);
      const names = Object.keys(route.query);
      if (names.length === 0) continue;
      const empty = await rest.get(`${url}?${names.map((n) => `${n}=`).join("&")}`);
      const absent = await rest.get(url);
      expect(empty.status, url).toBe(200);
      expect(empty.body, url).toEqual(absent.body);
    }
  });

  it("unknown parameters are ignored; of a repeated parameter the first counts", async () => {
    const plain = await rest.get("/api/v1/courses");
    const unknown = await rest.get("/api/v1/courses?pageSize=1&PAGE_SIZE=0&limit=0&foo=bar&course_id=2");
    expect(unknown.body).toEqual(plain.body);
    const repeated = await rest.get("/api/v1/courses?page_size=5&page_size=abc");
    expect(repeated.status).toBe(200);
    expect(repeated.body.page_size).toBe(5);
    const badFirst = await rest.get("/api/v1/courses?page_size=abc&page_size=5");
    expect(badFirst.status).toBe(400);
    for (const route of ROUTES) {
      expect((await rest.get(`${sampleUrl(route.path)}?zzz=1&page=abc`)).status, route.path).toBe(
        Object.keys(route.query).includes("page") ? 400 : 200,
      );
    }
  });

  it("defaults: page=1, page_size=20, group_by=semester, sort=recent, limit=30", async () => {
    const courses = await rest.get("/api/v1/courses");
    expect([courses.body.page, courses.body.page_size, courses.body.items.length]).toEqual([1, 20, 20]);
    const explicit = await rest.get("/api/v1/courses?page=1&page_size=20");
    expect(explicit.body).toEqual(courses.body);
    expect((await rest.get("/api/v1/course_stats")).body).toEqual((await rest.get("/api/v1/course_stats?group_by=semester")).body);
    expect((await rest.get("/api/v1/hub/packs")).body).toEqual((await rest.get("/api/v1/hub/packs?sort=recent&limit=30")).body);
  });
});

describe("the environment operations match the OpenAPI document", () => {
  // Their semantics are tested with the environment; here only that their
  // answers are what rest/openapi.json says (every response is checked).
  it("snapshot of one school, by id and by code in any case; unknown school 404", async () => {
    const byCode = await rest.get("/api/v1/environment/schools/ntu");
    expect(byCode.status).toBe(200);
    expect(byCode.body.data.school.code).toBe("NTU");
    expect((await rest.get("/api/v1/environment/schools/1")).body).toEqual(byCode.body);
    expect((await rest.get("/api/v1/environment/schools/nope")).status).toBe(404);
  });

  it("history and the snapshot list", async () => {
    const history = await rest.get("/api/v1/environment/schools/NTU/history?days=2");
    expect(history.status).toBe(200);
    expect(history.body.data.days).toBe(2);
    const list = await rest.get("/api/v1/environment/snapshot?region=Taipei");
    expect(list.status).toBe(200);
    expect(list.body.items.map((s: { school: { id: number } }) => s.school.id)).toEqual([1, 4]);
  });
});

describe("canaries", () => {
  it("no response of this file contains a canary, hidden ids included; public data was reached", async () => {
    for (const url of [
      "/api/v1/courses?page_size=100",
      "/api/v1/courses/2",
      "/api/v1/courses/5",
      "/api/v1/courses/11",
      "/api/v1/course_stats?group_by=school",
      "/api/v1/hub/packs?limit=100",
      "/api/v1/hub/packs?q=CANARY",
      "/api/v1/hub/packs/pk_private",
      "/api/v1/hub/packs/pk_link",
      "/api/v1/hub/packs/pk_pending",
      "/api/v1/hub/packs/pk_rejected",
      "/api/v1/courses?q=CANARY",
      "/api/v1/courses?q=JOIN-CODE",
    ]) {
      await rest.get(url);
    }
    const all = rest.bodies.join("\n");
    expect(rest.bodies.length).toBeGreaterThan(150);
    for (const canary of CANARIES) expect(all).not.toContain(canary);
    expect(all).toContain("公開課程1");
    expect(all).toContain("Fractions Quiz");
    expect(all).toContain("國立臺灣大學");
  });
});
