/**
 * `useAccessLog`: every answer carries an `X-Request-Id` (a sane incoming one
 * is echoed, otherwise one is made), is written as one JSON log line at
 * `info`, and is counted in the metrics (src/observe/metrics.ts); what an
 * accepted key's request used is counted too (src/usage/recorder.ts).
 *
 * The line holds the method, the route (a REST route's template), the path
 * without its query (so never the value of `q`), the status, the duration,
 * the bytes of the body (before compression; absent for a stream), the surface, the key's id (never the key), the
 * client's address and the request id, and with tracing on
 * (src/observe/tracing.ts) the `trace_id` of the request's trace, whose HTTP
 * span it names by the route. Other log lines about the same
 * request carry the same `requestId` ({@link requestIdOf}).
 */
import { randomUUID } from "node:crypto";
import type { Plugin } from "graphql-yoga";
import type { Logger } from "pino";
import { authFailures, countOperation, latency, rateLimitRefusals, requests, restrictionRefusals } from "../observe/metrics.js";
import { nameRequestSpan, traceId } from "../observe/tracing.js";
import { GRAPHQL_ENTRY, refusedBy, restUses, usesNoted } from "../usage/coordinates.js";
import type { UsageRecorder } from "../usage/recorder.js";
import type { surfaceOf } from "./paths.js";

/** Where an answered request is told: its access log line, and the count of what its key used. */
export interface AccessSinks {
  /** Where each request's line is written, at `info`; without it, only the id and the metrics. */
  log?: Pick<Logger, "info"> | undefined;
  /** Where the uses of each request of an accepted key are counted (src/usage/recorder.ts). */
  usage?: Pick<UsageRecorder, "record"> | undefined;
}

export interface AccessLogOptions extends AccessSinks {
  /** The route label of a path: a REST route's template (`/api/v1/courses/{course_id}`), a page's path, or `(unknown)`. */
  routeOf(pathname: string): string;
  /** The surface that answers a request. */
  surfaceOf: typeof surfaceOf;
  /** What the key check of a request found, if it was checked. */
  keyOutcomeOf?(request: Request): KeyOutcome | undefined;
}

/** What checking a request's key found (api-keys.ts): the key's id, and why it was refused. */
interface KeyOutcome {
  keyId?: number;
  refusal?: string;
}

interface Arrival {
  id: string;
  started: number;
  url: URL;
  address: string | undefined;
}

const arrivals = new WeakMap<Request, Arrival>();

/** An incoming id kept as it is: short, and only characters that are safe in a header and a log. */
const SANE_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The id of a request seen by {@link useAccessLog}. */
export function requestIdOf(request: Request): string | undefined {
  return arrivals.get(request)?.id;
}

/** A fresh request id, for answers written before the gateway sees the request (src/http.ts). */
export const newRequestId = (): string => randomUUID();

/** The id of a request: its incoming `X-Request-Id` when that is sane, otherwise a fresh one. */
export const requestIdFrom = (incoming: string | null | undefined): string =>
  incoming && SANE_ID.test(incoming) ? incoming : newRequestId();

/** One answered request, as the access log and the metrics see it. */
export interface AccessRecord {
  requestId: string;
  method: string;
  /** The route label (a REST route's template). */
  route: string;
  /** The path, without its query. */
  path: string;
  status: number;
  seconds: number;
  /** Bytes of the body before compression; undefined for a stream. */
  bytes: number | undefined;
  surface: ReturnType<typeof surfaceOf>;
  /** What the key check found, if the request was checked. */
  outcome: KeyOutcome | undefined;
  address: string | undefined;
  /** What the request used (src/usage/coordinates.ts), when its surface said. */
  uses: readonly string[] | undefined;
}

/**
 * What a request the gateway answered used: a REST route's and parameters'
 * names, or what its surface's plugin noted (for GraphQL, at least its entry:
 * a document that did not validate executes nothing).
 */
function usesOf(request: Request, surface: AccessRecord["surface"], route: string, url: URL): readonly string[] | undefined {
  if (surface === "rest") return route === "(unknown)" ? undefined : restUses(route, url.searchParams);
  return usesNoted(request) ?? (surface === "graphql" ? [GRAPHQL_ENTRY] : undefined);
}

/** Whether an answer is a use: what the request asked for was answered (a REST 404 is an answer of its route too). */
const isUse = (status: number) => status < 400 || status === 404;

/** The uses that are operations, for the metrics: a REST route, an MCP tool, a root field of the GraphQL schema. */
function isOperation(surface: AccessRecord["surface"], use: string, index: number): boolean {
  if (surface === "rest") return index === 0;
  if (surface === "mcp") return use.startsWith("MCP ");
  return use.startsWith("Query.") && !use.includes("(");
}

/**
 * Counts an answered request in the metrics, writes its access log line (at
 * `info`, when there is a log), and counts its uses when its key was accepted.
 */
export function recordAccess(sinks: AccessSinks, r: AccessRecord): void {
  const { log } = sinks;
  const { surface, route, status, outcome, uses } = r;
  if (uses && outcome?.keyId !== undefined && !outcome.refusal && isUse(status)) {
    sinks.usage?.record(outcome.keyId, uses);
    for (let i = 0; i < uses.length; i++) if (isOperation(surface, uses[i]!, i)) countOperation(surface, uses[i]!);
  }
  requests.inc({ surface, route, method: r.method, status });
  latency.observe({ surface, route }, r.seconds);
  if (status === 401 && outcome?.refusal) authFailures.inc({ surface, reason: outcome.refusal });
  if (status === 403 && outcome?.refusal && outcome.keyId !== undefined) {
    // A key used outside its restrictions: counted by restriction, and for the key (`npm run usage -- --key ID`).
    restrictionRefusals.inc({ surface, restriction: outcome.refusal });
    sinks.usage?.record(outcome.keyId, [refusedBy(outcome.refusal)]);
  }
  if (status === 429 && outcome?.refusal) rateLimitRefusals.inc({ surface, limit: outcome.refusal });
  nameRequestSpan(r.method, route);
  log?.info(
    {
      requestId: r.requestId,
      method: r.method,
      route,
      path: r.path,
      status,
      ms: Math.round(r.seconds * 10_000) / 10,
      bytes: r.bytes,
      surface,
      keyId: outcome?.keyId,
      address: r.address,
      trace_id: traceId(),
    },
    "request",
  );
}

/**
 * Two plugins: `arrive` goes first in the list (its `onRequest` must run even
 * when a later plugin answers at once), `depart` last (it must see the answer
 * as it goes out, after every plugin that may replace it, a 304 for one).
 */
export function useAccessLog(options: AccessLogOptions): { arrive: Plugin; depart: Plugin } {
  const arrive: Plugin = {
    onRequest({ request, url, serverContext }) {
      const address = (serverContext as { req?: { socket?: { remoteAddress?: string } } }).req?.socket?.remoteAddress;
      arrivals.set(request, {
        id: requestIdFrom(request.headers.get("x-request-id")),
        started: performance.now(),
        url,
        address,
      });
    },
  };
  const depart: Plugin = {
    onResponse({ request, response }) {
      const arrival = arrivals.get(request);
      if (!arrival) return;
      response.headers.set("x-request-id", arrival.id);
      // The declared length first: asking a response for its body makes a stream of it.
      const length = response.headers.get("content-length") ?? (response.body === null ? "0" : null);
      const route = options.routeOf(arrival.url.pathname);
      const surface = options.surfaceOf(request, arrival.url);
      recordAccess(options, {
        requestId: arrival.id,
        method: request.method,
        route,
        path: arrival.url.pathname,
        status: response.status,
        seconds: (performance.now() - arrival.started) / 1000,
        bytes: length === null ? undefined : Number(length),
        surface,
        outcome: options.keyOutcomeOf?.(request),
        address: arrival.address,
        uses: usesOf(request, surface, route, arrival.url),
      });
    },
  };
  return { arrive, depart };
}
