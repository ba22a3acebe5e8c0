/**
 * WEB_CONCURRENCY=N: this process becomes the primary of N workers
 * (node:cluster) that share the port, each a whole gateway (src/serve.ts).
 * The primary prepares the database once (migrations, demo data and, on an
 * empty embedded one, the development key) before any worker starts, and
 * holds what must be one across them:
 *
 * - the embedded PostgreSQL, when DATABASE_URL is unset: the primary uses it
 *   from before the first worker to after the last, so a worker that dies
 *   does not take it down, and the primary stops it at the end;
 *
 * - the rate-limit counters without Redis (rate-limiter-flexible's cluster
 *   master; workers count through it, so a key's limits stay exact);
 * - the metrics: a worker asked for `/metrics` gets every worker's, summed
 *   (prom-client's AggregatorRegistry, through the primary).
 *
 * A worker that dies is replaced. SIGTERM or SIGINT is passed to every
 * worker, which drains as a single gateway does; the primary exits when they
 * all have (0 if every one exited 0).
 */
import cluster, { type Worker } from "node:cluster";
import type { Logger } from "pino";
import { AggregatorRegistry } from "prom-client";
import { RateLimiterClusterMaster } from "rate-limiter-flexible";
import type { Config } from "./config.js";
import { CLUSTER_METRICS, type MetricsRequest } from "./observe/metrics.js";
import {
  announce,
  developmentKey,
  LISTENING,
  type Listening,
  openForGateway,
  prepareToServe,
  printDevelopmentKey,
  START_FAILED,
} from "./serve.js";

/** A worker that dies sooner than this after its start waits before it is replaced (no crash loop at full speed). */
const STEADY_MS = 5_000;

export async function runPrimary(config: Config, log: Logger): Promise<void> {
  const db = await openForGateway(config, log);
  let newKey: string | undefined;
  if (await prepareToServe(config, db, log)) {
    newKey = await developmentKey(db).catch(async (error: unknown) => {
      await db.close().catch(() => undefined);
      throw error;
    });
  }
  /** Ends the primary once every worker has: its database last (the embedded server stops with it). */
  const exit = (code: number) => {
    void db.close().then(
      () => process.exit(code),
      () => process.exit(code),
    );
  };
  new RateLimiterClusterMaster();
  const metrics = new AggregatorRegistry();
  let stopping = false;
  /** Set when a worker could not listen: the primary exits 1 once the others have stopped. */
  let failed = false;
  const started = new Map<Worker, number>();
  const listening = new Set<Worker>();
  const fork = () => {
    if (!stopping) started.set(cluster.fork(), Date.now());
  };

  /** A worker listens: once all do, the start is announced with the ports they got. */
  const listened = (worker: Worker, at: Listening) => {
    listening.add(worker);
    if (listening.size !== config.webConcurrency) return;
    announce(config, at);
    console.log(`Workers:   ${config.webConcurrency}`);
    if (newKey) printDevelopmentKey(config, at, newKey);
    newKey = undefined;
  };
  type WorkerMessage = MetricsRequest | { type: typeof START_FAILED; message: string } | { type: typeof LISTENING; at: Listening };
  cluster.on("message", (worker, message: WorkerMessage) => {
    if (message?.type === LISTENING) return listened(worker, message.at);
    // A worker that cannot listen (a port in use): every other would fail alike. Said once; the start ends with 1.
    if (message?.type === START_FAILED) {
      if (!failed) process.stderr.write(`npm start: ${message.message}\n`);
      failed = true;
      stop("SIGTERM");
      return;
    }
    if (message?.type !== CLUSTER_METRICS) return;
    metrics.clusterMetrics().then(
      (text) => worker.send({ type: CLUSTER_METRICS, id: message.id, text }),
      (error: unknown) => worker.send({ type: CLUSTER_METRICS, id: message.id, error: String(error) }),
    );
  });
  const codes: (number | null)[] = [];
  cluster.on("exit", (worker, code, signal) => {
    const since = started.get(worker) ?? 0;
    started.delete(worker);
    if (stopping) {
      // A worker still starting when the signal came ends by it (its handler is set just before it
      // listens): it had nothing in flight, so that is a clean stop too.
      codes.push(code === null && (signal === "SIGTERM" || signal === "SIGINT") && !listening.has(worker) ? 0 : code);
      if (started.size === 0) exit(!failed && codes.every((c) => c === 0) ? 0 : 1);
      return;
    }
    listening.delete(worker);
    log.error({ pid: worker.process.pid, code, signal }, "a worker ended; starting another");
    setTimeout(fork, Date.now() - since < STEADY_MS ? 1_000 : 0);
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    if (!failed) log.info({ signal, workers: started.size }, "stopping: every worker drains its requests in flight");
    setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 15_000).unref();
    for (const worker of started.keys()) worker.process.kill("SIGTERM");
    if (started.size === 0) exit(0);
  };
  // Before the first fork: a signal that comes while the workers start must reach them through
  // stop, not end this process by its default action and leave them to notice.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => stop(signal));
  for (let i = 0; i < config.webConcurrency; i++) fork();
}
