/**
 * One gateway process: open the database (the embedded PostgreSQL in DATA_DIR
 * unless DATABASE_URL is set), apply pending migrations, import the demo data
 * into an empty database (and, on the embedded one, create a development key
 * and print it once), then serve the gateway. `npm start` (src/main.ts) runs it, alone or as each
 * worker of WEB_CONCURRENCY (src/cluster.ts).
 */
import cluster from "node:cluster";
import type { AddressInfo } from "node:net";
import { AnswerCache } from "./cache/answers.js";
import { SharedAnswers } from "./cache/shared-answers.js";
import type { Config } from "./config.js";
import { CarryOverError, openCarryingOver } from "./db/carry-over.js";
import { createReadClient } from "./db/client.js";
import { SnapshotStore } from "./environment/stored.js";
import { type Database, openDatabase } from "./db/driver.js";
import { EmbeddedServerError } from "./db/cluster-dir.js";
import { MigrationChangedError, migrate } from "./db/migrate.js";
import { ReadRouter } from "./db/replicas.js";
import {
  cannotMigrate,
  checkSameDatabase,
  checkServingGrants,
  DatabaseStartError,
  isPermissionDenied,
  probe,
  type UrlSetting,
} from "./db/start-failures.js";
import { demoExportRecords } from "./demo/index.js";
import { importExport } from "./import/apply.js";
import { KeyStore } from "./keys/store.js";
import { OidcSignIn } from "./account/oidc.js";
import { AccountSessions } from "./account/sessions.js";
import { RateLimits } from "./limits/rate-limits.js";
import type { Logger } from "pino";
import { USAGE_DAYS } from "./account/pages.js";
import { serviceDeprecations } from "./usage/deprecated.js";
import { keyUsages } from "./usage/report.js";
import { UsageRecorder } from "./usage/recorder.js";
import { createHttpServer, drain } from "./http.js";
import { ListenError, listen } from "./listen.js";
import { setHeapGrowth } from "./observe/heap.js";
import { observePool, observeReplicas } from "./observe/metrics.js";
import { stopTracing } from "./observe/tracing.js";
import { metricsListener } from "./plugins/metrics.js";
import type { TrustedDocuments } from "./plugins/persisted-documents.js";
import { createGateway } from "./server.js";

/** What a worker of WEB_CONCURRENCY tells the primary when it cannot listen (src/cluster.ts): the start has failed. */
export const START_FAILED = "uedu:start-failed";
/** What a worker of WEB_CONCURRENCY tells the primary once it listens, with the ports it got. */
export const LISTENING = "uedu:listening";

/** The ports the gateway got (with PORT=0 or METRICS_PORT=0, not the ones asked for). */
export interface Listening {
  port: number;
  /** The metrics listener's, when METRICS_PORT is set. */
  metricsPort?: number | undefined;
}

/** An address the gateway listens on, as a URL. */
const baseUrl = (config: Config, port: number) => `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;

/** Says on standard output where the gateway is (once it listens). */
export function announce(config: Config, at: Listening): void {
  const base = baseUrl(config, at.port);
  console.log(`GraphiQL:  ${base}/graphql`);
  console.log(`REST root: ${base}/api/v1`);
  console.log(`Metrics:   ${at.metricsPort === undefined ? base : baseUrl(config, at.metricsPort)}/metrics`);
}

/** The advisory lock a process holds while it prepares the database (migrate's own is another). */
const PREPARE_LOCK = 727_002;
/** Longest a start waits for another process's preparation (a demo import takes seconds). */
const PREPARE_WAIT_MS = 300_000;

/**
 * Applies pending migrations and, into a database without any university,
 * imports the demo data; says whether it did. Processes that start at once
 * (a double launch, several hosts on a new database) prepare it one after
 * the other, under an advisory lock: the first imports, the others wait, then
 * find the data. An applied migration since edited, a wait for another
 * process of over 5 minutes, and a role that may not create what the
 * migrations create end the start in one line, exit 1
 * ({@link DatabaseStartError}). `as`: the setting and URL `db` was opened
 * with, which that line names.
 */
async function prepare(db: Database, log: Logger, as?: { setting: UrlSetting; url: string }): Promise<boolean> {
  // The lock is held by a transaction of its own, on one connection, while the work runs on others.
  return db
    .transaction(async (lock) => {
      await lock.exec(`SET LOCAL lock_timeout = ${PREPARE_WAIT_MS}`);
      await lock.query("SELECT pg_advisory_xact_lock($1)", [PREPARE_LOCK]);
      const applied = await migrate(db);
      if (applied.length) log.info({ applied }, "applied migrations");
      const [{ count }] = (await db.query<{ count: string }>("SELECT count(*)::text AS count FROM university")) as [{ count: string }];
      if (count !== "0") return false;
      log.info("the database holds no university: importing the demo data");
      const started = Date.now();
      const summary = await importExport(db, demoExportRecords());
      log.info({ ...summary, ms: Date.now() - started }, "imported the demo data");
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof MigrationChangedError) throw new DatabaseStartError(error.message);
      if ((error as { code?: unknown }).code === "55P03") {
        throw new DatabaseStartError(
          `another process has been preparing the database for over ${PREPARE_WAIT_MS / 60_000} minutes; is it stuck?`,
        );
      }
      if (as && isPermissionDenied(error)) throw cannotMigrate(as.setting, as.url, error);
      throw error;
    });
}

/**
 * Prepares the database for serving (`prepare`), as the owner of
 * DATABASE_OWNER_URL when it is set, and then checks that `db`'s role holds
 * every grant serving needs (src/db/grants.ts). Closes `db` on a failure.
 */
export async function prepareToServe(config: Config, db: Database, log: Logger): Promise<boolean> {
  try {
    const serving = config.databaseUrl ? { setting: "DATABASE_URL" as const, url: config.databaseUrl } : undefined;
    const imported = config.ownerUrl ? await prepareAsOwner(config.ownerUrl, db, config, log) : await prepare(db, log, serving);
    if (serving) await checkServingGrants(db, serving.url);
    return imported;
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}

/** `prepare` on a connection of DATABASE_OWNER_URL's own (to the database `db` serves), closed after. */
async function prepareAsOwner(url: string, db: Database, config: Config, log: Logger): Promise<boolean> {
  await probe("DATABASE_OWNER_URL", url, config.timeouts.acquireMs);
  const owner = await openDatabase({ databaseUrl: url, role: "gateway", timeouts: config.timeouts });
  try {
    await checkSameDatabase(db, owner);
    return await prepare(owner, log, { setting: "DATABASE_OWNER_URL", url });
  } finally {
    await owner.close().catch(() => undefined);
  }
}

/**
 * Opens the configured database for a gateway process, carrying a PGlite
 * DATA_DIR over first. A DATA_DIR that cannot be used is told in one line on
 * standard error, and the process exits 1 (2 while a process of an earlier
 * version holds it); a DATABASE_URL whose server cannot be used is a
 * {@link DatabaseStartError} (src/db/start-failures.ts), which src/start.ts
 * says in one line.
 */
export async function openForGateway(config: Config, log: Logger): Promise<Database> {
  if (config.databaseUrl) await probe("DATABASE_URL", config.databaseUrl, config.timeouts.acquireMs);
  return openCarryingOver(
    {
      ...config,
      role: cluster.isWorker ? "gateway worker" : "gateway",
      onConnectionError: (error) => log.warn({ err: String(error) }, "database connection lost; the pool replaces it"),
      onServerEvent: ({ message, error }) => (error ? log.error({ err: error }, message) : log.warn(message)),
    },
    (phase) =>
      log.warn(
        { dataDir: config.dataDir, phase },
        "DATA_DIR holds PGlite's data (an earlier version's): carrying it into the embedded PostgreSQL",
      ),
  ).catch((error: unknown) => {
    if (!(error instanceof CarryOverError || error instanceof EmbeddedServerError)) throw error;
    process.stderr.write(`npm start: ${error.message}\n`);
    process.exit(error instanceof CarryOverError && error.inUse ? 2 : 1);
  });
}

/** On the embedded database, a key for the developer who just started it on an empty DATA_DIR. */
export async function developmentKey(db: Database): Promise<string | undefined> {
  if (db.kind === "postgres") return undefined;
  return (await new KeyStore(db).create({ name: "development", owner: "npm start" })).key;
}

/** Prints the development key, once, with a request that uses it. */
export function printDevelopmentKey(config: Config, at: Listening, key: string): void {
  console.log(`\nA development key was created. It is shown this once; keep it:\n\n  ${key}\n`);
  console.log(`  curl -H "Authorization: Bearer ${key}" ${baseUrl(config, at.port)}/api/v1/universities\n`);
}

/** What `serve` is given beside the configuration, read once by src/main.ts. */
export interface ServeOptions {
  /** The trusted documents of TRUSTED_DOCUMENTS, read and checked; unset: any document runs. */
  trusted?: TrustedDocuments | undefined;
}

/**
 * The connection to REDIS_URL, and the channel on which key changes are
 * announced and heard. ioredis (a fifth of a second of CPU to load) is loaded
 * only here, so that a gateway without Redis never loads it.
 */
async function openRedis(url: string, log: Logger) {
  const [{ connectRedis }, changes] = await Promise.all([import("./limits/redis.js"), import("./keys/redis-changes.js")]);
  const redis = await connectRedis(url, log);
  return {
    redis,
    announceKeyChange: () => changes.publishKeyChange(redis, log),
    followKeyChanges: (onChange: () => void) => changes.followKeyChangesOnRedis(url, onChange, log),
  };
}

/** Serves until SIGTERM or SIGINT (then the process exits). */
export async function serve(config: Config, log: Logger, options: ServeOptions = {}): Promise<void> {
  setHeapGrowth(config.heapGrowthPercent);
  const db = await openForGateway(config, log);
  // With WEB_CONCURRENCY, the primary has prepared the database (and printed the key) before forking.
  const newKey = (await prepareToServe(config, db, log)) ? await developmentKey(db) : undefined;
  const onRedis = config.redisUrl ? await openRedis(config.redisUrl, log) : undefined;
  const redis = onRedis?.redis;
  const keys = new KeyStore(db, onRedis ? { announce: onRedis.announceKeyChange } : {});
  // A key revoked or changed by any process (a page, a command) is forgotten here at once:
  // told by the database, and by Redis where it is set.
  const keyChanges = await keys.follow(db);
  const keyChangesOnRedis = onRedis?.followKeyChanges(() => keys.forgetAll());

  const limits = new RateLimits({
    defaults: { perMinute: config.perMinute, perDay: config.perDay },
    redis,
    // A worker of WEB_CONCURRENCY counts through the primary (src/cluster.ts), so the limits stay exact.
    cluster: cluster.isWorker,
    onFallback: (error) => log.warn({ err: String(error) }, "rate limits answered by this process alone"),
  });
  const account = {
    sessions: new AccountSessions(db, { secret: await AccountSessions.secretOf(db, config.account.sessionSecret) }),
    keys,
    limits,
    defaults: { perMinute: config.perMinute, perDay: config.perDay },
    publicUrl: config.publicUrl,
    oidc: config.account.oidc ? new OidcSignIn(config.account.oidc) : undefined,
    maxKeys: config.account.maxKeys,
    creationsPerHour: config.account.creationsPerHour,
    // Each key's last days as `npm run usage` counts them, from the primary, where they are written.
    usage: (ids: readonly number[]) => keyUsages(db, ids, { days: USAGE_DAYS, today: new Date(), deprecated: serviceDeprecations() }),
    redis,
    log,
  };
  // With DATABASE_REPLICA_URLS, the answers' reads go to replicas past the newest data change (src/db/replicas.ts).
  const replicas = config.replicaUrls.length
    ? new ReadRouter(db, { urls: config.replicaUrls, maxLagMs: config.replicaMaxLagMs, timeouts: config.timeouts, log })
    : undefined;
  await replicas?.start();
  await replicas?.follow(db);
  if (replicas) observeReplicas(() => replicas.status());
  const prisma = createReadClient(replicas ?? db);
  // Prisma loads its query compiler (WebAssembly) on first use, holding the event loop about 100 ms:
  // here, before the port opens, rather than under the first requests (and the snapshots' first refresh).
  await prisma.$connect();
  const answers = new AnswerCache({ ttlMs: config.responseCacheMs, maxBytes: config.responseCacheMaxBytes });
  await answers.follow(replicas ? replicas.fenced(db) : db);
  // With Redis, a second level of answers every process shares, stored under the data version they hold.
  if (redis && config.responseCacheSharedMs > 0) {
    const store = new SharedAnswers({ redis, ttlMs: config.responseCacheSharedMs, log });
    answers.share(
      store,
      replicas
        ? () => replicas.dataVersion()
        : async () => (await db.query<{ version: number }>("SELECT version FROM data_version"))[0]!.version,
    );
  }
  // Every school's environment snapshot, computed when the data changes rather than per request,
  // from the primary: it stores what it computed only if the data version it read is still the current one.
  const stored = new SnapshotStore(db, replicas ? createReadClient(db) : prisma, { log });
  await stored.follow(db);
  observePool(db.poolStats);
  // What each key uses, added to the primary's usage_day every USAGE_FLUSH_MS by this process.
  const usage = new UsageRecorder({ db, flushMs: config.usageFlushMs, log });
  usage.start();
  // Set by the first SIGTERM or SIGINT (stop, below); from then on /readyz answers 503.
  let stopping = false;
  const gateway = createGateway({
    db,
    stopping: () => stopping,
    prisma,
    auth: {
      keys,
      limits,
      trustedProxies: config.trustedProxies,
      trustedDocuments: options.trusted,
      onError: (error, call) => log.error({ err: error, requestId: call.requestId }, "API key check failed"),
    },
    limits: { perMinute: config.perMinute, perDay: config.perDay },
    requestTimeoutMs: config.requestTimeoutMs,
    queryLimits: { maxCost: config.queryMaxCost },
    persistedQueries: { redis, log },
    ...(config.corsOrigins ? { corsOrigins: config.corsOrigins } : {}),
    loopback: ["127.0.0.1", "::1", "localhost"].includes(config.host),
    log,
    metrics: config.metricsPort === undefined,
    answers,
    account,
    usage,
    ...(options.trusted ? { trustedDocuments: options.trusted } : {}),
  });
  const server = createHttpServer(gateway, { log, first: gateway.lean });
  // With METRICS_PORT, /metrics has a listener of its own (kept off the public one by the operator's firewall).
  const metricsServer = config.metricsPort === undefined ? undefined : createHttpServer(metricsListener, { log });

  /** Closes what this process opened, in order: the last usage counts, Redis, the caches' followers, then the database (the last process to leave the embedded server stops it). */
  async function close(): Promise<void> {
    metricsServer?.close();
    // The requests drained: their uses are all counted, and the last of them written before the database closes.
    await usage.close();
    redis?.disconnect();
    keyChangesOnRedis?.close();
    await answers.close();
    await stored.close();
    await replicas?.close();
    await keyChanges.close();
    await prisma.$disconnect().catch(() => undefined);
    await db.close().catch((error: unknown) => log.error({ err: String(error) }, "closing the database failed"));
    await stopTracing();
  }

  try {
    await Promise.all([
      listen(server, { port: config.port, host: config.host, portSetting: "PORT" }),
      metricsServer && listen(metricsServer, { port: config.metricsPort ?? 0, host: config.host, portSetting: "METRICS_PORT" }),
    ]);
  } catch (error) {
    if (!(error instanceof ListenError)) throw error;
    server.close();
    await close();
    // Workers of WEB_CONCURRENCY: the primary says it, once, and stops the others (src/cluster.ts).
    if (cluster.isWorker) await new Promise((sent) => process.send?.({ type: START_FAILED, message: error.message }, undefined, {}, sent));
    else process.stderr.write(`npm start: ${error.message}\n`);
    process.exit(1);
  }
  const at: Listening = { port: (server.address() as AddressInfo).port };
  if (metricsServer) at.metricsPort = (metricsServer.address() as AddressInfo).port;
  // Workers of WEB_CONCURRENCY tell the primary, which says where the gateway is, once.
  if (cluster.isWorker) process.send?.({ type: LISTENING, at });
  else {
    announce(config, at);
    if (newKey) printDevelopmentKey(config, at, newKey);
  }

  /**
   * Graceful shutdown: stop accepting, let the requests in flight finish (up to
   * SHUTDOWN_TIMEOUT_MS, then their connections are cut), and only then close
   * Redis and the database (the last process to leave the embedded server
   * stops it), and exit 0.
   */
  async function stop(signal: NodeJS.Signals): Promise<void> {
    // A second signal (an impatient operator, or a process group's and a
    // parent's) must not cut the first one's close short.
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "stopping: answering the requests in flight and those queued, then closing");
    // Past the wait and as long again for closing, the process ends anyway.
    setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 10_000).unref();
    if (!(await drain(server, config.shutdownTimeoutMs))) {
      log.warn({ timeoutMs: config.shutdownTimeoutMs }, "requests still in flight at SHUTDOWN_TIMEOUT_MS: their connections were cut");
    }
    await close();
    log.info("stopped");
    process.exit(0);
  }
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void stop(signal));
}
