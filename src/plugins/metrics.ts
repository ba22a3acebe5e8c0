/**
 * `useMetricsEndpoint`: `GET /metrics` answers the process's Prometheus
 * metrics (src/observe/metrics.ts), without a key. Put it before `usePaths`;
 * without this plugin (METRICS_PORT set: src/main.ts serves them on a port of
 * their own) `/metrics` is an unknown path like any other.
 */
import type { RequestListener } from "node:http";
import type { Plugin } from "graphql-yoga";
import { metricsText, registry } from "../observe/metrics.js";
import { failure } from "../refusal.js";

export const METRICS_PATH = "/metrics";

export function useMetricsEndpoint(): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== METRICS_PATH) return;
      if (request.method !== "GET" && request.method !== "HEAD") {
        endResponse(
          new fetchAPI.Response(JSON.stringify(failure(`method ${request.method} not allowed; use GET`)), {
            status: 405,
            headers: { allow: "GET, HEAD", "content-type": "application/json; charset=utf-8" },
          }),
        );
        return;
      }
      const text = await metricsText().catch(() => undefined);
      if (text === undefined) {
        endResponse(
          new fetchAPI.Response(JSON.stringify(failure("metrics unavailable; retry")), {
            status: 503,
            headers: { "retry-after": "1", "content-type": "application/json; charset=utf-8" },
          }),
        );
        return;
      }
      endResponse(
        new fetchAPI.Response(request.method === "HEAD" ? null : text, {
          headers: { "content-type": registry.contentType, "cache-control": "no-store" },
        }),
      );
    },
  };
}

/** The listener of METRICS_PORT: `GET /metrics`, and 404 for every other path. */
export const metricsListener: RequestListener = (request, response) => {
  const path = new URL(request.url ?? "/", "http://metrics").pathname;
  const json = (status: number, message: string, headers: Record<string, string> = {}) =>
    response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify(failure(message)));
  if (path !== METRICS_PATH) return json(404, `no such path: ${path}; this port serves ${METRICS_PATH}`);
  if (request.method !== "GET" && request.method !== "HEAD")
    return json(405, `method ${request.method} not allowed; use GET`, { allow: "GET, HEAD" });
  metricsText().then(
    (text) =>
      response
        .writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" })
        .end(request.method === "HEAD" ? undefined : text),
    () => json(503, "metrics unavailable; retry", { "retry-after": "1" }),
  );
};
