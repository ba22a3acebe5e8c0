/**
 * The process's Prometheus metrics (prom-client), served at `/metrics`. One
 * registry per process, as prom-client intends: a counter counts what this
 * process did, whichever gateway or command in it did it.
 */
import cluster from "node:cluster";
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { PoolStats } from "../db/driver.js";

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: "gateway_" });
// A worker of WEB_CONCURRENCY answers the primary's AggregatorRegistry from this registry
// (prom-client starts answering once an AggregatorRegistry exists in the process).
if (cluster.isWorker) {
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry();
}

/** The message type of a worker's request for every worker's metrics, and of the primary's answer (src/cluster.ts). */
export const CLUSTER_METRICS = "uedu:cluster-metrics";

export interface MetricsRequest {
  type: typeof CLUSTER_METRICS;
  id: number;
}

interface MetricsAnswer extends MetricsRequest {
  text?: string;
  error?: string;
}

let asked = 0;

/**
 * The metrics text to serve: this process's, or in a worker of
 * WEB_CONCURRENCY every worker's, summed by the primary.
 */
export function metricsText(): Promise<string> {
  if (!cluster.isWorker) return registry.metrics();
  const id = ++asked;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.off("message", onAnswer);
      reject(new Error("the primary did not send the metrics in time"));
    }, 5_000);
    const onAnswer = (message: MetricsAnswer) => {
      if (message?.type !== CLUSTER_METRICS || message.id !== id) return;
      clearTimeout(timer);
      process.off("message", onAnswer);
      if (message.text === undefined) reject(new Error(message.error ?? "no metrics"));
      else resolve(message.text);
    };
    process.on("message", onAnswer);
    process.send!({ type: CLUSTER_METRICS, id } satisfies MetricsRequest);
  });
}

export const requests = new Counter({
  name: "gateway_http_requests_total",
  help: "Requests answered, by surface, route (a REST route's template, never its values), method and status.",
  labelNames: ["surface", "route", "method", "status"] as const,
  registers: [registry],
});

export const latency = new Histogram({
  name: "gateway_http_request_duration_seconds",
  help: "Time from a request's arrival to its answer's headers, by surface and route.",
  labelNames: ["surface", "route"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const rateLimitRefusals = new Counter({
  name: "gateway_rate_limit_refusals_total",
  help: "Requests refused with 429, by surface and the limit that refused them (minute, day, visitor-minute, visitor-day, or failed_checks of one address).",
  labelNames: ["surface", "limit"] as const,
  registers: [registry],
});

export const restrictionRefusals = new Counter({
  name: "gateway_key_restriction_refusals_total",
  help: "Requests refused with 403 because their key was used outside its restrictions, by surface and restriction (origin, address, surface, document); per key: npm run usage.",
  labelNames: ["surface", "restriction"] as const,
  registers: [registry],
});

export const authFailures = new Counter({
  name: "gateway_auth_failures_total",
  help: "Requests refused with 401, by surface and reason (missing, malformed, invalid: an unknown or revoked key, expired, or rolled: an old secret after its overlap).",
  labelNames: ["surface", "reason"] as const,
  registers: [registry],
});

export const importRows = new Counter({
  name: "gateway_import_rows_total",
  help: "Rows stored by imports this process ran (the demo data at first start, and npm run import sent to it), by section.",
  labelNames: ["section"] as const,
  registers: [registry],
});

export const cacheLookups = new Counter({
  name: "gateway_response_cache_lookups_total",
  help: "Lookups in the response cache (RESPONSE_CACHE_MS), by result: hit (answered from memory) or miss (executed).",
  labelNames: ["result"] as const,
  registers: [registry],
});

export const graphqlExecutions = new Counter({
  name: "gateway_graphql_executions_total",
  help: "GraphQL executions on /graphql, by executor: sql (the whole document as one statement), compiled (graphql-jit) or graphql-js (a document, variables or a result that compiling cannot answer the same).",
  labelNames: ["executor"] as const,
  registers: [registry],
});

export const sharedAnswerLookups = new Counter({
  name: "gateway_response_cache_shared_total",
  help: "Answers looked up in Redis (RESPONSE_CACHE_SHARED_MS, after a miss in this process), by result: hit, miss, or error (a failed lookup or store).",
  labelNames: ["result"] as const,
  registers: [registry],
});

export const cacheClears = new Counter({
  name: "gateway_response_cache_clears_total",
  help: "Times the response cache was emptied because the data changed (an import committed).",
  registers: [registry],
});

/** What the response cache holds: its size in bytes (as it counts them) and its answers. */
interface CacheSize {
  readonly calculatedSize: number;
  readonly size: number;
}
let cacheSize: CacheSize | undefined;

/** Reports the response cache of this process (the last one given). */
export function followCacheSize(cache: CacheSize): void {
  cacheSize = cache;
}

new Gauge({
  name: "gateway_response_cache_bytes",
  help: "Bytes the response cache holds (keys, answers and their compressed forms, as RESPONSE_CACHE_MAX_BYTES counts them).",
  registers: [registry],
  collect() {
    this.set(cacheSize?.calculatedSize ?? 0);
  },
});

new Gauge({
  name: "gateway_response_cache_answers",
  help: "Answers the response cache holds.",
  registers: [registry],
  collect() {
    this.set(cacheSize?.size ?? 0);
  },
});

let poolStats: (() => PoolStats) | undefined;

/** Reports the pool of the database this process serves from (the last one given). */
export function observePool(stats: () => PoolStats): void {
  poolStats = stats;
}

new Gauge({
  name: "gateway_db_pool_connections",
  help: "PostgreSQL pool connections: in_use and idle ones, and requests waiting for one.",
  labelNames: ["state"] as const,
  registers: [registry],
  collect() {
    this.reset();
    const stats = poolStats?.();
    if (!stats) return;
    this.set({ state: "in_use" }, stats.total - stats.idle);
    this.set({ state: "idle" }, stats.idle);
    this.set({ state: "waiting" }, stats.waiting);
  },
});

export const readTargets = new Counter({
  name: "gateway_db_reads_total",
  help: "Read statements of the answers (DATABASE_REPLICA_URLS set), by target: the primary, or a replica by host:port.",
  labelNames: ["target"] as const,
  registers: [registry],
});

export const readRetries = new Counter({
  name: "gateway_db_replica_retries_total",
  help: "Reads a replica could not answer (gone, frozen, in conflict with recovery), answered by the primary instead.",
  labelNames: ["replica"] as const,
  registers: [registry],
});

/** A replica as metrics report it (src/db/replicas.ts). */
interface ReplicaReport {
  name: string;
  state: string;
  lagMs: number;
}
let replicaReports: (() => ReplicaReport[]) | undefined;

/** The states a replica is reported in (one series each, 1 for the current one). */
const REPLICA_STATES = ["healthy", "down", "not_in_recovery", "lagging"] as const;

/** Reports the read replicas of this process (the last ones given). */
export function observeReplicas(reports: () => ReplicaReport[]): void {
  replicaReports = reports;
}

new Gauge({
  name: "gateway_db_replica_state",
  help: "Each read replica's state: 1 for the one it is in (healthy: in the rotation; down, not_in_recovery, lagging: out).",
  labelNames: ["replica", "state"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const replica of replicaReports?.() ?? []) {
      for (const state of REPLICA_STATES) this.set({ replica: replica.name, state }, replica.state === state ? 1 : 0);
    }
  },
});

new Gauge({
  name: "gateway_db_replica_lag_seconds",
  help: "How long ago the primary was first seen past each read replica's replay position (0: caught up; +Inf: never reached).",
  labelNames: ["replica"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const replica of replicaReports?.() ?? []) this.set({ replica: replica.name }, replica.lagMs / 1_000);
  },
});

/** Operations counted since the last scrape, by surface and operation: a request adds to a number, and a scrape adds them to the counter. */
const operationCounts = new Map<string, Map<string, number>>();

/** Counts one request of an accepted key for `operation` (a REST route, an MCP tool, a root field) on `surface`. */
export function countOperation(surface: string, operation: string): void {
  let counts = operationCounts.get(surface);
  if (!counts) {
    counts = new Map();
    operationCounts.set(surface, counts);
  }
  counts.set(operation, (counts.get(operation) ?? 0) + 1);
}

new Counter({
  name: "gateway_operation_uses_total",
  help:
    "Requests of accepted keys, by surface and operation: a REST route's template, an MCP tool, or a root field of the GraphQL schema " +
    "(`Query.courses`). Never a key, and never a name an unknown document chose: only what the schema and the routes name.",
  labelNames: ["surface", "operation"] as const,
  registers: [registry],
  collect() {
    for (const [surface, counts] of operationCounts) {
      for (const [operation, count] of counts) if (count > 0) this.inc({ surface, operation }, count);
      counts.clear();
    }
  },
});

export const usageWrites = new Counter({
  name: "gateway_usage_writes_total",
  help: "Writes of the usage counts to the primary (npm run usage), by outcome: written, or failed (the counts are kept for the next).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const usageDropped = new Counter({
  name: "gateway_usage_dropped_total",
  help: "Uses not recorded because the primary did not take the counts for so long that the process held its most.",
  registers: [registry],
});
