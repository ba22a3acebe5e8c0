/**
 * The OpenAPI 3.1 description of the v1 REST contract (docs/contract.md §1–§5).
 *
 * Paths, path parameters and query parameters come from the route table
 * (rest/routes.ts) and the parameter rules (rest/params.ts), and the answers'
 * schemas from the operation documents (rest/schemas.ts), so a new row or a
 * new field appears here without more work. What is written here is the
 * service's own: the envelopes of failures, the root, the health checks,
 * headers and responses.
 *
 * The document is committed as rest/openapi.json (`npm run openapi:print`),
 * which `GET /openapi.json` serves; test/rest checks that every response of
 * the REST tests matches it.
 */
import { UNAVAILABLE_MESSAGE } from "../src/db/availability.js";
import { schema } from "../src/schema/index.js";
import { committedExamples, type Example } from "./example-file.js";
import { loadOperations, OPERATIONS_DIR } from "./operations.js";
import { pathParamSchema } from "./params.js";
import { deprecationNote, PATH_PARAM_DESCRIPTIONS, type Route, ROUTES } from "./routes.js";
import { type BodySchema, deriveSchemas, FAILURE_SCHEMA, type Json, ref, strictObject } from "./schemas.js";

export { OPENAPI_FILE } from "./plugin.js";

const text = (description: string, extra: Json = {}): Json => ({ type: "string", description, ...extra });
const count = (description: string, minimum = 0): Json => ({ type: "integer", minimum, description });

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

const RATE_LIMIT_HEADERS = ["RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"];
const rateLimitHeaders = () => Object.fromEntries(RATE_LIMIT_HEADERS.map((h) => [h, { $ref: `#/components/headers/${h}` }]));
const json = (schema: Json) => ({ "application/json": { schema } });
const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

function operation(route: Route, body: BodySchema, examples: Record<string, Example>): Json {
  const pathParams = Object.entries(route.pathParams).map(([name, kind]) => ({
    name,
    in: "path",
    required: true,
    description: PATH_PARAM_DESCRIPTIONS[name] ?? `The ${name}.`,
    schema: pathParamSchema(kind),
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
      description: `The ${body.resource} ${route.envelope === "object" ? "object" : route.envelope === "paged" ? "page" : "list"}.`,
      headers: rateLimitHeaders(),
      content: {
        "application/json": {
          schema: ref(body.name),
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
    ...(route.deprecated
      ? {
          deprecated: true,
          description: `${deprecationNote(route)} Every answer carries \`Deprecation\` and \`Sunset\` headers. See CHANGELOG.md for what replaces it.`,
        }
      : {}),
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

/** The derived schemas, sorted by name, then the service's own; a derived name may not take one of these. */
function withoutClash(derived: Record<string, Json>, own: Record<string, Json>): Record<string, Json> {
  const clash = Object.keys(derived).find((name) => name in own);
  if (clash) throw new Error(`a fragment or envelope is named ${clash}, a schema of the service's own; rename the fragment`);
  const sorted = Object.keys(derived).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { ...Object.fromEntries(sorted.map((name) => [name, derived[name]!])), ...own };
}

/**
 * Where the API is: `npm start`'s default address. The gateway serves the
 * document with its own address instead (rest/plugin.ts).
 */
export const DEFAULT_SERVER = {
  url: "http://127.0.0.1:4000",
  description: "A gateway started with npm start on its default HOST and PORT.",
};

/**
 * The OpenAPI 3.1 document of the v1 contract for `routes` (the v1 table by
 * default), their answers described by the operation documents in
 * `operationsDir` (graphql/operations by default).
 */
export function buildOpenApi(routes: readonly Route[] = ROUTES, operationsDir = OPERATIONS_DIR): object {
  const examples = committedExamples();
  const derived = deriveSchemas(schema, loadOperations(schema, operationsDir), routes);
  const paths: Record<string, Json> = {
    // `/api/v1/` answers the same; a document lists one of the two (a path with a trailing slash is a lint error).
    "/api/v1": { get: rootOperation("root") },
  };
  for (const route of routes) {
    const body = derived.bodies.get(route.operation);
    if (!body) throw new Error(`route ${route.path}: no schema derived for operation ${route.operation}`);
    paths[route.path] = { get: operation(route, body, examples) };
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
            "unknown, revoked or expired key, or a rolled key's old secret after its overlap, gives 401 with a message that says which.",
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
          description:
            "The authentication scheme, `Bearer`, with the RFC 6750 `error` (`invalid_request` or `invalid_token`) and the " +
            "refusal's message as `error_description`. The service publishes no OAuth metadata: keys come from the 'My API Keys' page.",
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
        Unauthorized: failureResponse(
          "The API key is missing, malformed, unknown, revoked or expired, or an old secret of a rolled key after its overlap.",
          {
            "WWW-Authenticate": { $ref: "#/components/headers/WWW-Authenticate" },
          },
        ),
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
      schemas: withoutClash(derived.components, {
        Failure: FAILURE_SCHEMA,
        InternalFailure: strictObject("Failure envelope of an unexpected failure.", {
          success: { type: "boolean", const: false },
          error: { type: "string", const: "internal error" },
        }),
        UnavailableFailure: strictObject("Failure envelope while the database cannot answer.", {
          success: { type: "boolean", const: false },
          error: { type: "string", const: UNAVAILABLE_MESSAGE },
        }),
        RootResponse: strictObject("The API root.", {
          success: { type: "boolean", const: true },
          data: strictObject("What the API is and how to use it.", {
            name: text("Name of the API."),
            version: { type: "string", const: "v1" },
            graphql: { type: "string", const: "/graphql", description: "Path of the GraphQL endpoint." },
            mcp: { type: "string", const: "/mcp", description: "Path of the MCP endpoint." },
            auth: { type: "string", const: "Authorization: Bearer <API_KEY>", description: "How to send the key." },
            limits: strictObject("Default limits of a key.", {
              per_minute: count("Requests per minute.", 1),
              per_day: count("Requests per day.", 1),
            }),
            endpoints: {
              type: "array",
              description: "Every operation, its path written as in this document.",
              items: strictObject("An operation.", {
                method: { type: "string", const: "GET" },
                path: text("Path, as in this document.", { pattern: "^/api/v1/" }),
                description: text("What it returns."),
              }),
            },
            terms: { type: "array", minItems: 1, items: { type: "string" }, description: "Terms of use." },
            attribution: text("How to attribute data obtained through the API."),
          }),
        }),
        Health: strictObject("Liveness.", { status: { type: "string", const: "ok" } }),
        Ready: strictObject("Readiness.", { status: { type: "string", const: "ready" } }),
        NotReady: strictObject("Not ready, and why.", { status: { type: "string", const: "not ready" }, reason: text("Why.") }),
      }),
    },
  };
}
