/**
 * Builds the gateway: one yoga server answering `/graphql`, with each other
 * concern (health, REST, keys, limits, MCP) a small plugin. Nothing here
 * listens on a socket; src/main.ts does, and tests call `gateway.fetch`.
 */
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import type { Logger } from "pino";
import { createContext, type Context } from "./context.js";
import type { AnswerCache } from "./cache/answers.js";
import type { DocumentRedis } from "./cache/persisted-queries.js";
import type { ReadClient } from "./db/client.js";
import type { Database } from "./db/driver.js";
import { useAccessLog } from "./plugins/access-log.js";
import { type ApiKeyOptions, useApiKeys } from "./plugins/api-keys.js";
import { maskUnavailable, useExecutionDeadline } from "./plugins/availability.js";
import { useCompiledExecution } from "./plugins/compiled-execution.js";
import { useConditionalGet } from "./plugins/conditional.js";
import { useErrorShapes } from "./plugins/error-shapes.js";
import { useGraphQLCache } from "./plugins/graphql-cache.js";
import { useHealth } from "./plugins/health.js";
import { useInputLimits } from "./plugins/input-limits.js";
import { corsPolicy, useCors, useSecurityHeaders } from "./plugins/cors.js";
import { type LeanPath, leanPath } from "./lean/path.js";
import { useMcp, useMcpOrigins } from "./mcp/plugin.js";
import { METRICS_PATH, useMetricsEndpoint } from "./plugins/metrics.js";
import { type TrustedDocuments, usePersistedDocuments } from "./plugins/persisted-documents.js";
import { PlannedDocuments, usePlannedDocuments } from "./plugins/planned-documents.js";
import { MAX_COST } from "./input-limits.js";
import { ownerOf } from "./path-owners.js";
import { surfaceOf, usePaths } from "./plugins/paths.js";
import { type QueryLimitOptions, useQueryLimits } from "./plugins/query-limits.js";
import { useUsage } from "./plugins/usage.js";
import { useOperationSpans } from "./plugins/tracing.js";
import { tracingOn } from "./observe/tracing.js";
import { RestApi } from "../rest/api.js";
import { useRestApi } from "../rest/plugin.js";
import { schema } from "./schema/index.js";
import { GRAPHIQL_OPTIONS, renderGraphiQLPage } from "./pages/graphiql.js";
import { usePages } from "./pages/plugin.js";
import { type AccountOptions, useAccount } from "./account/plugin.js";
import type { UsageRecorder } from "./usage/recorder.js";

export interface GatewayOptions {
  /** The open database (for readiness checks). */
  db: Database;
  /** Whether the process is shutting down: `/readyz` then answers 503. */
  stopping?: () => boolean;
  /** The guarded read client every answer is built from. */
  prisma: ReadClient;
  /**
   * Key verification and limits for every surface. `false` serves without
   * keys: only for tests of other concerns, never in a running gateway.
   */
  auth: ApiKeyOptions | false;
  /** Default per-key limits, announced by the REST root. */
  limits?: { perMinute: number; perDay: number };
  /** Where request problems are logged. */
  log?: Logger;
  /** The clock; tests fix it. */
  now?: () => Date;
  /**
   * Longest one request's GraphQL execution may take (REST and MCP operations
   * included) before it is answered 503. Default 5,000 ms.
   */
  requestTimeoutMs?: number;
  /** Origins whose pages may read answers and call `/mcp`; unset: any may read, only same-origin pages call `/mcp`. */
  corsOrigins?: readonly string[];
  /** The service listens on loopback only (then `/mcp` also checks `Host`, against DNS rebinding). */
  loopback?: boolean;
  /** Bounds on one GraphQL document and its cost (src/plugins/query-limits.ts); each defaults to its measured value. */
  queryLimits?: QueryLimitOptions;
  /** Serve `/metrics` on this gateway (default); `false` when they have a port of their own. */
  metrics?: boolean;
  /** Where answers (REST, MCP and GraphQL) are kept for a short while; none: every call executes. */
  answers?: AnswerCache;
  /** "My API Keys" under `/account/`; unset: those paths answer 404. */
  account?: AccountOptions;
  /** Where what each key uses is counted (src/usage/recorder.ts); unset: not counted. */
  usage?: UsageRecorder;
  /** The only documents `/graphql` runs (TRUSTED_DOCUMENTS); unset: any document, and automatic persisted queries. */
  trustedDocuments?: TrustedDocuments;
  /** Where automatic persisted queries are shared with every other gateway process (REDIS_URL); unset: this process alone. */
  persistedQueries?: { redis?: DocumentRedis | undefined; log?: Pick<Logger, "warn" | "info"> };
  /**
   * Execute `/graphql` documents compiled by graphql-jit (default), falling
   * back to graphql-js where that cannot give the same answer
   * (src/plugins/compiled-execution.ts); `false`: graphql-js only (tests
   * compare the two).
   */
  compile?: boolean;
}

export type Gateway = YogaServerInstance<Record<string, unknown>, Context> & {
  /**
   * The lean path (src/lean/path.ts), which the HTTP server (src/http.ts)
   * offers each request before yoga: it answers every v1 GET, and a GraphQL
   * or MCP request whose answer is kept as bytes.
   */
  readonly lean: LeanPath;
};

export function createGateway(options: GatewayOptions): Gateway {
  const now = options.now ?? (() => new Date());
  const context = () => createContext(options.prisma, now());
  const guard = options.auth ? useApiKeys(options.auth) : undefined;
  const requestTimeoutMs = options.requestTimeoutMs ?? 5_000;
  const limits = options.limits ?? { perMinute: 60, perDay: 10_000 };
  const api = new RestApi(schema, { timeoutMs: requestTimeoutMs, ...(options.answers ? { cache: options.answers } : {}) });
  const access = useAccessLog({
    ...(options.log ? { log: options.log } : {}),
    surfaceOf,
    usage: options.usage,
    routeOf: (path) => routeOf(api, path),
    ...(guard ? { keyOutcomeOf: guard.outcomeOf } : {}),
  });
  const compiledExecution = options.compile === false ? undefined : useCompiledExecution();
  // Documents the lean path runs itself once the gateway has answered them; not while traces are on, whose
  // spans the gateway's plugins make.
  const plans = compiledExecution && !tracingOn() ? new PlannedDocuments() : undefined;
  const yoga = createYoga<Record<string, unknown>, Context>({
    schema,
    graphqlEndpoint: "/graphql",
    cors: false, // useCors below: no credentials, and OPTIONS as docs/contract.md §1 says
    landingPage: false,
    graphiql: GRAPHIQL_OPTIONS,
    renderGraphiQL: renderGraphiQLPage,
    context,
    maskedErrors: { maskError: maskUnavailable },
    ...(options.log ? { logging: options.log } : {}),
    plugins: [
      access.arrive,
      ...(tracingOn() ? [useOperationSpans()] : []),
      ...(options.metrics === false ? [] : [useMetricsEndpoint()]),
      usePaths(),
      useErrorShapes(),
      useSecurityHeaders(),
      useCors({ origins: options.corsOrigins }),
      useMcpOrigins({ origins: options.corsOrigins, loopback: options.loopback }),
      useHealth({ db: options.db, ...(options.stopping ? { stopping: options.stopping } : {}) }),
      usePages({ limits }),
      ...(options.account ? [useAccount(options.account)] : []),
      ...(guard ? [guard.plugin] : []),
      useRestApi({
        api,
        context,
        limits,
        ...(guard ? { authorize: (request: Request) => guard.authorize(request, "rest") } : {}),
        ...(options.log ? { log: options.log } : {}),
      }),
      useMcp({ api, context, answers: options.answers, ...(options.log ? { log: options.log } : {}) }),
      ...usePersistedDocuments({ trusted: options.trustedDocuments, ...options.persistedQueries }),
      useUsage(),
      ...(options.answers ? [useGraphQLCache({ cache: options.answers })] : []),
      useInputLimits(),
      ...useQueryLimits(options.queryLimits),
      // Before the plugins that wrap the execution: it replaces the executor they wrap.
      ...(compiledExecution ? [compiledExecution] : []),
      ...(plans && compiledExecution ? [usePlannedDocuments({ plans, compiled: compiledExecution.compiled })] : []),
      useExecutionDeadline({ ms: requestTimeoutMs }),
      useConditionalGet(),
      access.depart,
    ],
  });
  const lean = leanPath({
    api,
    answers: options.answers,
    context,
    guard,
    cors: corsPolicy({ origins: options.corsOrigins }),
    mcpOrigins: { origins: options.corsOrigins, loopback: options.loopback },
    log: options.log,
    usage: options.usage,
    graphql: plans && { plans, maxCost: options.queryLimits?.maxCost ?? MAX_COST, timeoutMs: requestTimeoutMs },
  });
  return Object.assign(yoga, { lean });
}

/** The route label of a path: a REST route's template, a known path itself, or `(unknown)`. */
function routeOf(api: RestApi, path: string): string {
  if (path === METRICS_PATH) return path;
  const owner = ownerOf(path);
  if (owner === "account") return path.replace(/\/\d+(?=\/|$)/g, "/{id}");
  if (owner !== "rest") return owner ? path : "(unknown)";
  if (path === "/api/v1" || path === "/api/v1/") return "/api/v1";
  return api.match(path)?.route.path ?? "(unknown)";
}
