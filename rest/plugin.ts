/**
 * `useRestApi`: answers `/api/v1/*` by running each route's fixed GraphQL
 * operation in-process, with the same schema and per-request context as
 * `/graphql`, and reshaping its result into the v1 envelope.
 *
 * Order of checks (CONTRACT §2): unknown path 404 and wrong method 405, then
 * the key (401) and limits (429) through `authorize`, then parameters (400),
 * then a missing resource (404). Anything unexpected is a masked 500.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type DocumentNode, execute, type GraphQLSchema } from "graphql";
import type { Plugin } from "graphql-yoga";
import type { Logger } from "pino";
import type { Context } from "../src/context.js";
import { type Body, envelope, failure } from "./envelope.js";
import { loadOperations } from "./operations.js";
import { readParams } from "./params.js";
import { type Limits, rootBody } from "./root.js";
import { ROUTES, type Route } from "./routes.js";

export const OPENAPI_FILE = join(dirname(fileURLToPath(import.meta.url)), "openapi.json");

export interface RestApiOptions {
  /** The schema the operation documents run against (the one `/graphql` serves). */
  schema: GraphQLSchema;
  /** The per-request context factory, the same one `/graphql` uses. */
  context: (request: Request) => Context | Promise<Context>;
  /**
   * Checks the key and limits of a request to an operation, after routing and
   * before parameters. Returns a finished response to refuse it (401, 429).
   */
  authorize?: (request: Request) => Promise<Response | undefined>;
  /** The per-key limits announced by the root path. */
  limits: Limits;
  /** Where failures are logged (with their cause; clients only see `internal error`). */
  log?: Pick<Logger, "error">;
  /** The routes; defaults to the v1 table. */
  routes?: readonly Route[];
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };
const ALLOW = "GET, HEAD";

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{(\w+)\\?\}|\{(\w+)\}/g, (_m, a, b) => {
    names.push(a ?? b);
    return "([^/]+)";
  });
  return { route, pattern: new RegExp(`^${source}$`), names };
}

export function useRestApi(options: RestApiOptions): Plugin {
  const routes = (options.routes ?? ROUTES).map(compile);
  const operations: Map<string, DocumentNode> = loadOperations(options.schema);
  for (const { route } of routes) {
    if (!operations.has(route.operation)) throw new Error(`route ${route.path} names a missing operation ${route.operation}`);
  }
  const root = JSON.stringify(rootBody(options.routes ?? ROUTES, options.limits));
  let openapi: string | undefined;

  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      const path = url.pathname;
      const respond = (status: number, body: Body | string, headers: Record<string, string> = {}) =>
        endResponse(
          new fetchAPI.Response(request.method === "HEAD" ? null : typeof body === "string" ? body : JSON.stringify(body), {
            status,
            headers: { ...JSON_HEADERS, ...headers },
          }),
        );
      const readOnly = request.method === "GET" || request.method === "HEAD";

      if (path === "/openapi.json") {
        if (!readOnly) return respond(405, failure("method not allowed"), { allow: ALLOW });
        openapi ??= readFileSync(OPENAPI_FILE, "utf8");
        return respond(200, openapi);
      }
      if (path !== "/api/v1" && !path.startsWith("/api/v1/")) return;
      if (path === "/api/v1" || path === "/api/v1/") {
        return readOnly ? respond(200, root) : respond(405, failure("method not allowed"), { allow: ALLOW });
      }

      let match: { compiled: CompiledRoute; values: string[] } | undefined;
      for (const compiled of routes) {
        const m = compiled.pattern.exec(path);
        if (m) {
          match = { compiled, values: m.slice(1) };
          break;
        }
      }
      if (!match) return respond(404, failure(`no such path: ${path}`));
      if (!readOnly) return respond(405, failure(`method ${request.method} not allowed; use GET`), { allow: ALLOW });

      const refusal = await options.authorize?.(request);
      if (refusal) return endResponse(refusal);

      const { route, names } = match.compiled;
      const params = readParams(route.query, url.searchParams);
      if (!params.ok) return respond(400, failure(params.message));
      const values: Record<string, unknown> = { ...params.value };
      for (const [i, name] of names.entries()) {
        let raw: string;
        try {
          raw = decodeURIComponent(match.values[i] ?? "");
        } catch {
          return respond(404, failure("not found"));
        }
        if (route.pathParams[name] === "integer") {
          if (!/^\d{1,10}$/.test(raw) || Number(raw) > 2_147_483_647) return respond(404, failure(`${name} ${raw} not found`));
          values[name] = Number(raw);
        } else {
          values[name] = raw;
        }
      }

      try {
        const result = await execute({
          schema: options.schema,
          document: operations.get(route.operation)!,
          variableValues: route.variables(values as never),
          contextValue: await options.context(request),
        });
        if (result.errors?.length) throw new AggregateError(result.errors, "operation failed");
        const body = envelope(route.envelope, (result.data as { result?: unknown } | null | undefined)?.result);
        if (!body) return respond(404, failure(`${names.map((n) => `${n} ${String(values[n])}`).join(", ") || "resource"} not found`));
        return respond(200, body);
      } catch (error) {
        options.log?.error({ err: error, path: route.path }, "REST operation failed");
        return respond(500, failure("internal error"));
      }
    },
  };
}
