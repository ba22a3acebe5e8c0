/**
 * The OpenAPI 3.1 description of the v1 REST contract (docs/contract.md §1–§5).
 *
 * Paths, path parameters and query parameters come from the route table
 * (rest/routes.ts) and the parameter rules (rest/params.ts), so a new row
 * there appears here without more work; the resource schemas are written by
 * hand from docs/contract.md, strictly: every field is required (a field
 * with no value is `null`, never left out) and nothing else may appear.
 *
 * The document is committed as rest/openapi.json (`npm run openapi:print`),
 * which `GET /openapi.json` serves; test/rest checks that every response of
 * the REST tests matches it.
 */
import { UNAVAILABLE_MESSAGE } from "../src/db/availability.js";
import { DAY_BOUNDARY } from "../src/domain/environment/index.js";
import { AssetType, ConferenceRelationship, EducationLevel, StationKind, StationSource } from "../src/generated/prisma/enums.js";
import { INT32_MAX, MAX_TEXT_LENGTH } from "../src/input-limits.js";
import { committedExamples, type Example } from "./example-file.js";
import { type Route, ROUTES } from "./routes.js";

export { OPENAPI_FILE } from "./plugin.js";

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const nullable = (type: string, extra: Json = {}): Json => ({ type: [type, "null"], ...extra });
const text = (description: string, extra: Json = {}): Json => ({ type: "string", description, ...extra });
const nullableText = (description: string, extra: Json = {}): Json => nullable("string", { description, ...extra });
const count = (description: string, minimum = 0): Json => ({ type: "integer", minimum, description });
const nullableEnum = (values: readonly string[], description: string): Json => ({
  type: ["string", "null"],
  enum: [...values, null],
  description,
});

/** A strict object: every property required, no other property allowed. */
function object(description: string, properties: Record<string, Json>): Json {
  return { type: "object", description, additionalProperties: false, required: Object.keys(properties), properties };
}

const ASSET_TYPES = Object.values(AssetType);
const EDUCATION_LEVELS = Object.values(EducationLevel);
const RELATIONSHIPS = Object.values(ConferenceRelationship);
const AQI_STATUSES = ["Good", "Moderate", "Unhealthy for Sensitive Groups", "Unhealthy", "Very Unhealthy", "Hazardous"] as const;
const SOURCE_IDS = Object.values(StationSource);
const STATION_KINDS = Object.values(StationKind);
const SEMESTER_PATTERN = "^\\d{3}-[1-9]$";
const SEMVER_PATTERN = "^\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.-]+)?(?:\\+[0-9A-Za-z.-]+)?$";

const COURSE_FIELDS: Record<string, Json> = {
  id: count("Numeric course id.", 1),
  class_name: nullableText("Class name."),
  course_number: nullableText("Course number in the school's catalogue."),
  course_class: nullableText("Class (section) code."),
  course_name_chinese: nullableText("Title in Chinese."),
  course_name_english: nullableText("Title in English."),
  instructor: nullableText("Instructor's name."),
  instructor_english: nullableText("Instructor's name in English."),
  department: nullableText("Offering department."),
  department_english: nullableText("Offering department in English."),
  school: text("The offering school's Chinese name (its university's `name_zh`)."),
  semester: text("Semester as `<year>-<term>`, like `113-1`.", { pattern: SEMESTER_PATTERN }),
  start_date: nullable("string", { format: "date", description: "First day of the course, `YYYY-MM-DD`." }),
  end_date: nullable("string", { format: "date", description: "Last day of the course, `YYYY-MM-DD`." }),
};

const PACK_FIELDS: Record<string, Json> = {
  id: text("The Pack's id (a string).", { minLength: 1 }),
  name: text("Name."),
  summary: nullableText("One-paragraph summary."),
  asset_type: { type: "string", enum: [...ASSET_TYPES], description: "What the Pack contains." },
  latest_version: nullableText("Highest passed version in semantic-version order (`1.10.0` above `1.9.0`); null when none passed.", {
    pattern: SEMVER_PATTERN,
  }),
  subject: nullableText("Teaching Card: subject."),
  education_level: nullableEnum(EDUCATION_LEVELS, "Teaching Card: education level."),
  bloom_levels: { type: "array", items: { type: "string" }, description: "Teaching Card: Bloom's taxonomy levels." },
  difficulty: nullableText("Teaching Card: difficulty."),
  star_count: count("Community statistics: stars."),
  install_count: count("Community statistics: installs."),
  owner_name: nullableText("The publisher's display name."),
};

const SCHOOL_FIELDS: Record<string, Json> = {
  id: count("Numeric school identifier.", 1),
  code: text("School code, such as `NTU`."),
  name_zh: text("Chinese name."),
  short_name: nullableText("Short name."),
  region: nullableText("Region label, usually a city."),
  timezone: text("IANA time zone of the school; daily figures are counted in it."),
};

const dataSources: Json = {
  type: "array",
  description: "The sources whose stations were actually used (had weight) in this response.",
  items: ref("DataSource"),
};
const dayBoundary: Json = { type: "string", const: DAY_BOUNDARY, description: `Always the text \`${DAY_BOUNDARY}\`.` };

/** The resource schemas of the seed and docs/contract.md §2–§5. */
function resourceSchemas(): Record<string, Json> {
  return {
    University: object("A university (operation 1).", {
      id: count("Numeric school identifier.", 1),
      code: text("School code; matched case-insensitively where used as a filter or `school_ref`."),
      name_zh: text("Chinese name."),
      name_en: nullableText("English name."),
      short_name: nullableText("Short name."),
      region: nullableText("Region label."),
    }),
    Course: object("A public course (operation 2 items). Join codes never appear.", COURSE_FIELDS),
    CourseDetail: object("A public course with its details (operation 3).", {
      ...COURSE_FIELDS,
      teaching_goal: nullableText("Learning objectives."),
      teaching_goal_english: nullableText("Learning objectives, English."),
      teaching_content: nullableText("Content outline."),
      teaching_content_english: nullableText("Content outline, English."),
      class_memo: nullableText("Course notes."),
    }),
    CourseStat: object("Counts of public courses in one group (operation 4). Pure aggregates.", {
      key: text("The group: a semester (`113-1`), a year (`113`) or a school code, depending on `group_by`."),
      course_count: count("Number of public courses in the group.", 1),
      instructor_count: count("Number of distinct instructors in the group."),
    }),
    Paper: object("An academic paper of the platform's team (operation 5).", {
      slug: text("Stable identifier."),
      title: text("Title."),
      title_zh: nullableText("Chinese title."),
      authors: nullableText("Authors, joined with `, `; null when none are listed."),
      conference: nullableText("Slug of the conference it appeared at."),
      year: count("Year of publication.", 1),
      doi: nullableText("DOI."),
      category: nullableText("Category."),
      platform_feature: nullableText("The platform feature the paper relates to."),
      award: nullableText("Award received."),
    }),
    Conference: object("A conference, with the team's relationship to it (operation 6).", {
      slug: text("Stable identifier."),
      name: text("Full name."),
      name_short: nullableText("Short name."),
      year: count("Year it takes place.", 1),
      dates: nullableText("Dates, as published."),
      location: nullableText("Location."),
      website: nullableText("Website."),
      organizer: nullableText("Organizer."),
      indexing: nullableText("Where its proceedings are indexed."),
      relationship: {
        type: "string",
        enum: [...RELATIONSHIPS],
        description:
          "`participated`: the team published a paper, gave an invited talk or won a competition award there; " +
          "`watching`: followed, with plans to submit, no participation yet.",
      },
      paper_count: count("Number of the team's papers whose `conference` is this conference's `slug`."),
    }),
    Pack: object("A public, safety-checked hub Pack (operation 10 items): every Pack field but `readme_md`. No content body.", PACK_FIELDS),
    PackVersion: object("A version of a Pack that passed the safety check.", {
      version: text("Semantic version.", { pattern: SEMVER_PATTERN }),
      published_at: text("When it was published (UTC, ISO 8601 with `Z`).", { format: "date-time" }),
      changelog: nullableText("What changed."),
    }),
    PackDetail: object("One public, safety-checked Pack (operation 11). No content body.", {
      ...PACK_FIELDS,
      readme_md: nullableText("README in Markdown."),
      versions: { type: "array", items: ref("PackVersion"), description: "The passed versions only, newest first." },
    }),
    School: object("School identifier fields of environment responses.", SCHOOL_FIELDS),
    Realtime: object("Real-time air quality at the school (last 3 hours of each air station, IDW of the three nearest).", {
      aqi: nullable("integer", {
        description: "AQI under the school's country standard (TW: MOENV, US: EPA); not comparable across countries.",
      }),
      aqi_status: nullableEnum(AQI_STATUSES, "Category of `aqi` under the school's country standard."),
      pm25_ugm3: nullable("number", { description: "PM2.5 in µg/m³, one decimal." }),
      observed_at_utc: nullable("string", { format: "date-time", description: "Newest instant among the values used (UTC, with `Z`)." }),
    }),
    Daily: object("Daily summary of one school-local date (00:00 to 24:00 in the school's time zone).", {
      date_local: text("The calendar date in the school's local time zone.", { format: "date" }),
      date_taipei: text("Same value as `date_local`; a historical alias kept for compatibility.", { format: "date" }),
      temp_c_avg: nullable("number", { description: "Mean temperature, °C." }),
      temp_c_min: nullable("number", { description: "Minimum temperature, °C." }),
      temp_c_max: nullable("number", { description: "Maximum temperature, °C." }),
      rh_avg: nullable("number", { description: "Mean relative humidity, %." }),
      precip_total_mm: nullable("number", { description: "Rainfall total, mm." }),
      pm25_avg: nullable("number", { description: "Mean PM2.5, µg/m³." }),
      pm10_avg: nullable("number", { description: "Mean PM10, µg/m³." }),
      aqi_avg: nullable("integer", { description: "Mean AQI." }),
    }),
    DataSource: object("A public observation network whose stations were used.", {
      id: { type: "string", enum: [...SOURCE_IDS], description: "Source id." },
      name: text("Official name of the source."),
      kind: { type: "string", enum: [...STATION_KINDS], description: "What its stations measure." },
      station_ids: { type: "array", items: { type: "string" }, description: "Ids of its stations that had weight." },
    }),
    Snapshot: object("Latest environment snapshot of one school (operation 7 `data`, operation 9 items).", {
      school: ref("School"),
      realtime: ref("Realtime"),
      daily: { ...ref("Daily"), description: "The school's current local date so far; values null before any observation." },
      day_boundary: dayBoundary,
      data_sources: dataSources,
    }),
    History: object("Daily environment data of one school (operation 8 `data`).", {
      school: ref("School"),
      days: count("Days looked back (the `days` parameter).", 1),
      day_boundary: dayBoundary,
      data_sources: dataSources,
      daily: {
        type: "array",
        items: ref("Daily"),
        description: "The local dates of the window ending today, ascending; dates with no data at all are left out.",
      },
    }),
  };
}

/** Which resource each route returns, by path (docs/contract.md §2). */
const RESOURCES: Record<string, string> = {
  "/api/v1/universities": "University",
  "/api/v1/courses": "Course",
  "/api/v1/courses/{course_id}": "CourseDetail",
  "/api/v1/course_stats": "CourseStat",
  "/api/v1/papers": "Paper",
  "/api/v1/conferences": "Conference",
  "/api/v1/environment/schools/{school_ref}": "Snapshot",
  "/api/v1/environment/schools/{school_ref}/history": "History",
  "/api/v1/environment/snapshot": "Snapshot",
  "/api/v1/hub/packs": "Pack",
  "/api/v1/hub/packs/{pack_id}": "PackDetail",
};

const PATH_PARAMS: Record<string, string> = {
  course_id: "Numeric course id. An id that is not an integer, or not of a public course, is not found (404).",
  school_ref: "Numeric school id, or school code (case-insensitive).",
  pack_id: "The Pack's id. A Pack that is not public and safety-checked is not found (404).",
};

const TAGS: Record<string, { name: string; description: string }> = {
  universities: { name: "Schools", description: "Universities on the platform." },
  courses: { name: "Courses", description: "Public courses (only those the teacher made public) and their statistics." },
  course_stats: { name: "Courses", description: "" },
  papers: { name: "Research", description: "The team's academic papers and the conferences it relates to." },
  conferences: { name: "Research", description: "" },
  environment: {
    name: "Environment",
    description:
      "Air quality and weather aggregated to each school's location from the three nearest public observation " +
      "stations (inverse-distance weighting); days are counted in the school's local time zone.",
  },
  hub: { name: "Hub", description: "Public, safety-checked teaching-design Packs of the community hub. Content bodies never appear." },
};
const SERVICE_TAG = { name: "Service", description: "The API root, health checks and this document; no key needed." };

function tagOf(path: string): string {
  const segment = path.slice("/api/v1/".length).split("/")[0] ?? "";
  return TAGS[segment]?.name ?? segment;
}

function envelopeSchema(route: Route, resource: string): { name: string; schema: Json } {
  const success = { type: "boolean", const: true };
  const total = count("Number of matching rows before any `limit` or paging.");
  switch (route.envelope) {
    case "object":
      return {
        name: `${resource}Response`,
        schema: object(`Single object envelope of ${resource}.`, { success, data: ref(resource) }),
      };
    case "list":
      return {
        name: `${resource}List`,
        schema: object(`List envelope of ${resource}.`, { success, items: { type: "array", items: ref(resource) }, total }),
      };
    case "paged":
      return {
        name: `${resource}Page`,
        schema: object(`Paged list envelope of ${resource}; a page past the end has no items and the true total.`, {
          success,
          items: { type: "array", items: ref(resource) },
          page: count("The page number, from 1.", 1),
          page_size: count("Items per page.", 1),
          total,
        }),
      };
  }
}

const RATE_LIMIT_HEADERS = ["RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"];
const rateLimitHeaders = () => Object.fromEntries(RATE_LIMIT_HEADERS.map((h) => [h, { $ref: `#/components/headers/${h}` }]));
const json = (schema: Json) => ({ "application/json": { schema } });
const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

function operation(route: Route, resource: string, envelopeName: string, examples: Record<string, Example>): Json {
  const pathParams = Object.entries(route.pathParams).map(([name, kind]) => ({
    name,
    in: "path",
    required: true,
    description: PATH_PARAMS[name] ?? `The ${name}.`,
    schema:
      kind === "integer"
        ? { type: "integer", minimum: 0, maximum: INT32_MAX }
        : { type: "string", minLength: 1, maxLength: MAX_TEXT_LENGTH },
  }));
  const queryParams = Object.entries(route.query).map(([name, rule]) => ({
    name,
    in: "query",
    required: false,
    description: rule.description,
    schema: rule.schema,
  }));
  const example = examples[route.operation];
  const responses: Json = {
    "200": {
      description: `The ${resource} ${route.envelope === "object" ? "object" : route.envelope === "paged" ? "page" : "list"}.`,
      headers: rateLimitHeaders(),
      content: {
        "application/json": {
          schema: ref(envelopeName),
          ...(example
            ? { examples: { demo: { summary: `GET ${example.request} on the demo data (lists cut to two items)`, value: example.body } } }
            : {}),
        },
      },
    },
  };
  // Query parameters have values to reject; so have text path parameters (control characters, length).
  if (queryParams.length > 0 || Object.values(route.pathParams).includes("string")) responses["400"] = responseRef("BadRequest");
  responses["401"] = responseRef("Unauthorized");
  if (pathParams.length > 0) responses["404"] = responseRef("NotFound");
  responses["405"] = responseRef("MethodNotAllowed");
  responses["429"] = responseRef("TooManyRequests");
  responses["500"] = responseRef("InternalError");
  responses["503"] = responseRef("ServiceUnavailable");
  return {
    operationId: route.operation,
    summary: route.description,
    tags: [tagOf(route.path)],
    security: [{ bearer: [] }],
    ...(pathParams.length + queryParams.length > 0 ? { parameters: [...pathParams, ...queryParams] } : {}),
    responses,
  };
}

function failureResponse(description: string, headers: Json = {}, schema: Json = ref("Failure")): Json {
  return { description, ...(Object.keys(headers).length ? { headers } : {}), content: json(schema) };
}

function rootOperation(operationId: string): Json {
  return {
    operationId,
    summary: "What the API is and how to use it: operations, authentication, limits, terms.",
    tags: [SERVICE_TAG.name],
    security: [],
    responses: {
      "200": { description: "The service description.", content: json(ref("RootResponse")) },
      "405": responseRef("MethodNotAllowed"),
    },
  };
}

/** What the health checks answer to a method other than GET or HEAD. */
const HEALTH_METHOD_NOT_ALLOWED: Json = {
  description: "A method other than GET or HEAD; `Allow` names those two.",
  headers: { Allow: { schema: { type: "string", const: "GET, HEAD" } } },
  content: json({
    type: "object",
    required: ["status"],
    additionalProperties: false,
    properties: { status: { type: "string", const: "method not allowed" } },
  }),
};

/**
 * Where the API is: `npm start`'s default address. The gateway serves the
 * document with its own address instead (rest/plugin.ts).
 */
export const DEFAULT_SERVER = {
  url: "http://127.0.0.1:4000",
  description: "A gateway started with npm start on its default HOST and PORT.",
};

/** The OpenAPI 3.1 document of the v1 contract for `routes` (the v1 table by default). */
export function buildOpenApi(routes: readonly Route[] = ROUTES): object {
  const examples = committedExamples();
  const envelopes: Record<string, Json> = {};
  const paths: Record<string, Json> = {
    // `/api/v1/` answers the same; a document lists one of the two (a path with a trailing slash is a lint error).
    "/api/v1": { get: rootOperation("root") },
  };
  for (const route of routes) {
    const resource = RESOURCES[route.path];
    if (!resource) throw new Error(`rest/openapi.ts: no response schema for route ${route.path}; add it to RESOURCES`);
    const { name, schema } = envelopeSchema(route, resource);
    envelopes[name] = schema;
    paths[route.path] = { get: operation(route, resource, name, examples) };
  }
  paths["/openapi.json"] = {
    get: {
      operationId: "openapi",
      summary: "This document.",
      tags: [SERVICE_TAG.name],
      security: [],
      responses: {
        "200": { description: "The OpenAPI 3.1 document.", content: json({ type: "object" }) },
        "405": responseRef("MethodNotAllowed"),
      },
    },
  };
  paths["/healthz"] = {
    get: {
      operationId: "healthz",
      summary: "Liveness: answers while the process runs.",
      tags: [SERVICE_TAG.name],
      security: [],
      responses: { "200": { description: "Alive.", content: json(ref("Health")) }, "405": HEALTH_METHOD_NOT_ALLOWED },
    },
  };
  paths["/readyz"] = {
    get: {
      operationId: "readyz",
      summary: "Readiness: the database is reachable and every migration is applied.",
      tags: [SERVICE_TAG.name],
      security: [],
      responses: {
        "200": { description: "Ready.", content: json(ref("Ready")) },
        "405": HEALTH_METHOD_NOT_ALLOWED,
        "503": {
          description: "Not ready. The answer is reused for up to a second, and the check waits at most 800 ms.",
          headers: { "Retry-After": { $ref: "#/components/headers/Retry-After" } },
          content: json(ref("NotReady")),
        },
      },
    },
  };

  const tagNames = new Set([...routes.map((r) => tagOf(r.path)), SERVICE_TAG.name]);
  const tags = [...tagNames].map((name) => {
    if (name === SERVICE_TAG.name) return SERVICE_TAG;
    const known = Object.values(TAGS).find((t) => t.name === name && t.description);
    return known ? { name, description: known.description } : { name };
  });

  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    info: {
      title: "Public Data API",
      version: "v1",
      summary: "Read-only public data of the learning platform: schools, public courses, papers, school environment data and hub Packs.",
      description: [
        "A read-only HTTP and JSON interface to low-sensitivity public data of an online learning platform.",
        "",
        "- Every `/api/v1/*` operation needs an API key sent as `Authorization: Bearer <API_KEY>`; the root `/api/v1` does not.",
        "- Every response is JSON (`Content-Type: application/json; charset=utf-8`), errors included, in an envelope:",
        "  `{success: true, data}`, `{success: true, items, total}`, `{success: true, items, page, page_size, total}`",
        "  or `{success: false, error}`.",
        "- Only GET (and HEAD) are allowed; other methods get 405 with `Allow: GET, HEAD`. Unknown query parameters are ignored;",
        "  an empty parameter is treated as absent.",
        "- A field with no value is `null`, never left out. Dates are `YYYY-MM-DD`; instants are ISO 8601 UTC with `Z`.",
        "- Where several errors apply: unknown path (404) and wrong method (405) first, then 401, then 429, then 400,",
        "  then 404 for a missing resource. A filter that matches nothing is not an error.",
        "- Each key has its own limits per minute and per day (fixed, clock-aligned windows in UTC); over a limit the answer",
        "  is 429 with `Retry-After`. While the database is unreachable or too slow the answer is 503 with `Retry-After`.",
        "- Only public courses and public, safety-checked Packs appear. Join codes, Pack content bodies and personal data never appear.",
        "",
        "Terms: no commercial bulk scraping or resale of the data; attribute data obtained through the API to the platform;",
        "abuse or breach of the terms may lead to revocation of the key.",
        "",
        "The same data is served over GraphQL at `/graphql` and over MCP (streamable HTTP) at `/mcp`, with the same key.",
      ].join("\n"),
    },
    servers: [DEFAULT_SERVER],
    tags,
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "API key",
          description:
            "An API key created on the 'My API Keys' page, sent as `Authorization: Bearer <API_KEY>`. A missing, malformed, " +
            "invalid or revoked key gives 401.",
        },
      },
      headers: {
        "RateLimit-Policy": {
          description:
            "The key's limit policies (draft-ietf-httpapi-ratelimit-headers), like " +
            '`"minute";q=60;w=60, "day";q=10000;w=86400`. Sent on responses to requests with a valid key.',
          schema: { type: "string", pattern: '^"\\w+";q=\\d+;w=\\d+(, "\\w+";q=\\d+;w=\\d+)*$' },
        },
        RateLimit: {
          description:
            'Remaining quota (`r`) and seconds until reset (`t`) of each window counted, like `"minute";r=59;t=30, "day";r=9999;t=3600`. ' +
            "Sent with a valid key.",
          schema: { type: "string", pattern: '^"\\w+";r=\\d+;t=\\d+(, "\\w+";r=\\d+;t=\\d+)*$' },
        },
        "X-RateLimit-Limit": {
          description: "Requests allowed in the window closest to running out. Sent with a valid key.",
          schema: { type: "integer", minimum: 0 },
        },
        "X-RateLimit-Remaining": {
          description: "Requests left in that window. Sent with a valid key.",
          schema: { type: "integer", minimum: 0 },
        },
        "X-RateLimit-Reset": {
          description: "When that window resets, in epoch seconds. Sent with a valid key.",
          schema: { type: "integer", minimum: 0 },
        },
        "Retry-After": {
          description: "Whole seconds to wait before trying again (on a 429, before the key may be used again).",
          required: true,
          schema: { type: "integer", minimum: 0 },
        },
        "WWW-Authenticate": {
          description: "The authentication scheme: `Bearer`.",
          required: true,
          schema: { type: "string", pattern: "^Bearer" },
        },
        Allow: {
          description: "The allowed methods.",
          required: true,
          schema: { type: "string", const: "GET, HEAD" },
        },
      },
      responses: {
        BadRequest: failureResponse(
          "A parameter has an invalid value (not an integer, out of range, not an allowed value); the message names it and what is allowed, " +
            "like `page_size must be an integer from 1 to 100`.",
          rateLimitHeaders(),
        ),
        Unauthorized: failureResponse("The API key is missing, malformed, invalid or revoked.", {
          "WWW-Authenticate": { $ref: "#/components/headers/WWW-Authenticate" },
        }),
        NotFound: failureResponse("No such resource, or it is not public.", rateLimitHeaders()),
        MethodNotAllowed: failureResponse("Only GET and HEAD are allowed.", { Allow: { $ref: "#/components/headers/Allow" } }),
        TooManyRequests: failureResponse("The per-minute or per-day limit of the key is exceeded.", {
          "Retry-After": { $ref: "#/components/headers/Retry-After" },
          ...rateLimitHeaders(),
        }),
        InternalError: failureResponse("An unexpected failure; nothing of its cause is returned.", {}, ref("InternalFailure")),
        ServiceUnavailable: failureResponse(
          "The database is unreachable or did not answer within the time limit; retry after `Retry-After` seconds.",
          { "Retry-After": { $ref: "#/components/headers/Retry-After" } },
          ref("UnavailableFailure"),
        ),
      },
      schemas: {
        ...resourceSchemas(),
        ...Object.fromEntries(Object.entries(envelopes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
        Failure: object("Failure envelope.", {
          success: { type: "boolean", const: false },
          error: text("What went wrong; for a parameter, its name and what is allowed.", { minLength: 1 }),
        }),
        InternalFailure: object("Failure envelope of an unexpected failure.", {
          success: { type: "boolean", const: false },
          error: { type: "string", const: "internal error" },
        }),
        UnavailableFailure: object("Failure envelope while the database cannot answer.", {
          success: { type: "boolean", const: false },
          error: { type: "string", const: UNAVAILABLE_MESSAGE },
        }),
        RootResponse: object("The API root.", {
          success: { type: "boolean", const: true },
          data: object("What the API is and how to use it.", {
            name: text("Name of the API."),
            version: { type: "string", const: "v1" },
            graphql: { type: "string", const: "/graphql", description: "Path of the GraphQL endpoint." },
            mcp: { type: "string", const: "/mcp", description: "Path of the MCP endpoint." },
            auth: { type: "string", const: "Authorization: Bearer <API_KEY>", description: "How to send the key." },
            limits: object("Default limits of a key.", {
              per_minute: count("Requests per minute.", 1),
              per_day: count("Requests per day.", 1),
            }),
            endpoints: {
              type: "array",
              description: "Every operation, its path written as in this document.",
              items: object("An operation.", {
                method: { type: "string", const: "GET" },
                path: text("Path, as in this document.", { pattern: "^/api/v1/" }),
                description: text("What it returns."),
              }),
            },
            terms: { type: "array", minItems: 1, items: { type: "string" }, description: "Terms of use." },
            attribution: text("How to attribute data obtained through the API."),
          }),
        }),
        Health: object("Liveness.", { status: { type: "string", const: "ok" } }),
        Ready: object("Readiness.", { status: { type: "string", const: "ready" } }),
        NotReady: object("Not ready, and why.", { status: { type: "string", const: "not ready" }, reason: text("Why.") }),
      },
    },
  };
}
