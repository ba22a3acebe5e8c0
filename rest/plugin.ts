/**
 * `useRestApi`: answers `/api/v1/*` through RestApi (api.ts), which runs each
 * route's fixed GraphQL operation in-process with the same schema and
 * per-request context as `/graphql`.
 *
 * Order of checks (docs/contract.md §2): unknown path 404 and wrong method 405, then
 * the key (401) and limits (429) through `authorize`, then parameters (400),
 * then a missing resource (404). Anything unexpected is a masked 500.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Plugin } from "graphql-yoga";
import type { Logger } from "pino";
import type { Context } from "../src/context.js";
import { requestIdOf } from "../src/plugins/access-log.js";
import type { RestApi } from "./api.js";
import { type Body, failure } from "./envelope.js";
import type { Limits } from "../src/limits/rate-limits.js";
import { rootBody } from "./root.js";
import { FILES_ROOT } from "../src/files.js";

export const OPENAPI_FILE = join(FILES_ROOT, "rest", "openapi.json");

export interface RestApiOptions {
  /** The v1 operations. */
  api: RestApi;
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
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };
const ALLOW = "GET, HEAD";

export function useRestApi(options: RestApiOptions): Plugin {
  const { api } = options;
  const root = JSON.stringify(rootBody(api.routes, options.limits));
  let openapi: Record<string, unknown> | undefined;
  /** The document as served at each origin it was asked at (a few at most: the gateway's own addresses). */
  const served = new Map<string, string>();
  /** The committed document, naming as its server the address it is served from, so "try it" calls this gateway. */
  const openapiAt = (origin: string): string => {
    openapi ??= JSON.parse(readFileSync(OPENAPI_FILE, "utf8")) as Record<string, unknown>;
    let text = served.get(origin);
    if (text === undefined) {
      text = JSON.stringify({ ...openapi, servers: [{ url: origin, description: "This gateway." }] }, null, 2);
      if (served.size < 16) served.set(origin, text);
    }
    return text;
  };

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
      const notAllowed = () => respond(405, failure(`method ${request.method} not allowed; use GET`), { allow: ALLOW });

      if (path === "/openapi.json") {
        if (!readOnly) return notAllowed();
        return respond(200, openapiAt(url.origin));
      }
      if (path !== "/api/v1" && !path.startsWith("/api/v1/")) return;
      if (path === "/api/v1" || path === "/api/v1/") return readOnly ? respond(200, root) : notAllowed();

      const match = api.match(path);
      if (!match) return respond(404, failure(`no such path: ${path}`));
      if (!readOnly) return notAllowed();

      const refusal = await options.authorize?.(request);
      if (refusal) return endResponse(refusal);

      const answer = await api.call(match, url.searchParams, await options.context(request), (error) =>
        options.log?.error({ err: error, path: match.route.path, requestId: requestIdOf(request) }, "REST operation failed"),
      );
      return respond(answer.status, answer.text ?? answer.body, answer.headers);
    },
  };
}
