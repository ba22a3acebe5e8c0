/**
 * The MCP tools: one per v1 route, with the REST parameter names, defaults
 * and ranges (docs/contract.md §8). A tool's structured content is exactly the REST
 * body of its twin and its text is that body as JSON; a REST failure is a
 * tool result with `isError: true` carrying the same body.
 *
 * Every schema here is JSON Schema made from what REST uses: the arguments
 * from the parameter rules, the output from the operation documents
 * (rest/schemas.ts). Both are written to be portable to clients that read
 * only a subset of JSON Schema: no reference, and one `type` per schema (a
 * value that may be null is `anyOf` the type and null).
 */
import { ProtocolError, ProtocolErrorCode, type Server, type ServerOptions, type Tool } from "@modelcontextprotocol/server";
import type { Answer } from "../../rest/api.js";
import { failure } from "../../rest/envelope.js";
import { pathParamSchema, type RawArgs, type RawValue } from "../../rest/params.js";
import { deprecationNote, PATH_PARAM_DESCRIPTIONS, type Route } from "../../rest/routes.js";
import { type DerivedSchemas, FAILURE_SCHEMA, type Json, standalone } from "../../rest/schemas.js";

/** Answers one route call given its arguments by REST parameter name. */
export type RouteCaller = (route: Route, args: RawArgs) => Promise<Answer>;

/** The server's name and version, as announced to clients over HTTP and stdio. */
export const SERVER_INFO = { name: "public-data-api", version: "1.0.0" };

/** How long a client may keep the tool list: it changes only with a deploy. */
const TOOL_LIST_TTL_MS = 3_600_000;

/**
 * What the server offers: tools only, whose list changes only with a deploy
 * and is the same for every key (so any cache may keep it for an hour, the
 * 2026-07-28 cache hints), and what they are for.
 */
export const SERVER_OPTIONS: ServerOptions = {
  capabilities: { tools: { listChanged: false } },
  cacheHints: {
    "tools/list": { ttlMs: TOOL_LIST_TTL_MS, cacheScope: "public" },
    "server/discover": { ttlMs: TOOL_LIST_TTL_MS, cacheScope: "public" },
  },
  instructions:
    "Public data of an online learning platform: universities, public courses, course statistics, papers, conferences, school environment (air quality and weather) and public hub Packs. Each tool mirrors one GET of the v1 REST API and returns its JSON body.",
};

/**
 * `schema` in the portable form: a `type` that lists `null` beside another
 * type becomes `anyOf` the two, each with one `type` (an `enum` keeps its
 * values with the first, and `null` goes to the second).
 */
export function portable(schema: Json): Json {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    const own = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)])) as Json;
    if (!Array.isArray(own.type)) return own;
    const { type, description, enum: values, ...rest } = own;
    const types = type as string[];
    const branches = types.map((t): Json => {
      if (t === "null") return { type: "null" };
      const branch: Json = { type: t, ...rest };
      if (Array.isArray(values)) branch.enum = values.filter((v) => v !== null);
      return branch;
    });
    return { anyOf: branches, ...(description === undefined ? {} : { description }) };
  };
  return walk(schema) as Json;
}

/** The arguments of a route's tool: its path parameters (required) and query parameters (optional). */
function inputSchema(route: Route): Json {
  const properties: Record<string, Json> = {};
  for (const [name, kind] of Object.entries(route.pathParams)) {
    properties[name] = { ...pathParamSchema(kind), description: PATH_PARAM_DESCRIPTIONS[name] ?? `The ${name}.` };
  }
  for (const [name, rule] of Object.entries(route.query)) properties[name] = { ...rule.schema, description: rule.description };
  return { type: "object", properties, required: Object.keys(route.pathParams), additionalProperties: false };
}

/** The tools of `routes`, in the routes' order, with their schemas; a deprecated route's tool says so first. */
export function toolDefinitions(routes: readonly Route[], schemas: DerivedSchemas): Tool[] {
  return routes.map((route) => {
    const body = schemas.bodies.get(route.operation);
    if (!body) throw new Error(`tool ${route.tool}: no schema derived for operation ${route.operation}`);
    return {
      name: route.tool,
      title: route.description,
      description: [deprecationNote(route), `${route.description} Mirrors GET ${route.path}; returns its JSON body.`]
        .filter(Boolean)
        .join(" "),
      inputSchema: portable(inputSchema(route)) as Tool["inputSchema"],
      // Failures carry their REST body too (with isError), so a client that checks every result finds it valid.
      outputSchema: portable({
        type: "object",
        description: `The body of GET ${route.path}: the ${body.name} envelope, or a failure (then isError is true).`,
        anyOf: [standalone(body.schema, schemas.components), FAILURE_SCHEMA],
      }) as Tool["outputSchema"],
      annotations: { title: route.description, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    };
  });
}

/**
 * The arguments as the parameter rules read them (a string or a number as
 * given, null as not given), or the problem with the first that is neither.
 */
function rawArgs(route: Route, given: Record<string, unknown>): { ok: true; args: RawArgs } | { ok: false; message: string } {
  const args: Record<string, RawValue> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined || value === null) continue;
    if (typeof value === "string" || typeof value === "number") {
      args[name] = value;
      continue;
    }
    const integer = route.pathParams[name] === "integer" || route.query[name]?.schema.type === "integer";
    return { ok: false, message: `${name} must be ${integer ? "an integer" : "a string"}` };
  }
  return { ok: true, args };
}

/** The tool definitions made for each set of schemas: a server is built per request, its tools once. */
const made = new WeakMap<DerivedSchemas, Tool[]>();

/** Answers `tools/list` and `tools/call` on `server` for `routes`, calling them through `call`. */
export function serveTools(server: Server, routes: readonly Route[], schemas: DerivedSchemas, call: RouteCaller): void {
  let tools = made.get(schemas);
  if (!tools) {
    tools = toolDefinitions(routes, schemas);
    made.set(schemas, tools);
  }
  const byName = new Map(routes.map((route) => [route.tool, route]));
  server.setRequestHandler("tools/list", () => ({ tools }));
  server.setRequestHandler("tools/call", async (request) => {
    const route = byName.get(request.params.name);
    if (!route) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `unknown tool: ${request.params.name}; tools/list names the ${tools.length} tools`,
      );
    }
    const args = rawArgs(route, request.params.arguments ?? {});
    const answer: Answer = args.ok ? await call(route, args.args) : { status: 400, body: failure(args.message) };
    return {
      content: [{ type: "text" as const, text: JSON.stringify(answer.body) }],
      structuredContent: answer.body,
      ...(answer.status === 200 ? {} : { isError: true }),
    };
  });
}
