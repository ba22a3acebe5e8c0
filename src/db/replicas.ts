/**
 * Read replicas (DATABASE_REPLICA_URLS): the answers' statements go to
 * streaming replicas of the primary, and never to one that could give an
 * answer older than one this process may already have given.
 *
 * - **Routing, statement by statement.** The read client (src/db/client.ts)
 *   is built on {@link ReadRouter.adapter}, a Prisma driver adapter that sends
 *   each read to a replica in rotation, or to the primary when none may
 *   serve. Everything else (keys, sessions, imports, migrations, LISTEN, the
 *   stored snapshots' refresh) keeps the primary's `Database`. Prisma's
 *   `@prisma/extension-read-replicas` was not used: it is a client extension
 *   (which costs every result a walk of its rows, src/db/client.ts), picks a
 *   replica at random, and has no health check, no lag and no fence.
 * - **Fences.** PostgreSQL does not write NOTIFY to the WAL, and a standby
 *   cannot LISTEN: a data-change notice reaches this process when the primary
 *   commits, maybe before a replica has replayed the change. So each notice
 *   (and the start) takes the primary's WAL position as a fence, and until it
 *   is known every read goes to the primary; after, only a replica whose
 *   replay position is past the fence may serve (as GitLab's database load
 *   balancing does). The answer cache, emptied by the same notice, is then
 *   only ever filled from data at least as new as the change.
 * - **Health.** Every `pollMs` each replica is asked whether it is in
 *   recovery and how far it has replayed; its lag is how long ago the primary
 *   was first seen past that position. A replica that does not answer within
 *   `checkTimeoutMs`, is not in recovery, or lags more than `maxLagMs` leaves
 *   the rotation, and returns once a check finds it well. A statement that
 *   fails for want of the replica is sent again to the primary, and the
 *   replica leaves at once: a replica going away costs no request.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import { statementNames } from "./statement-names.js";
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { readPostgresUrl } from "./urls.js";
import { readRetries, readTargets } from "../observe/metrics.js";
import { isUnavailable } from "./availability.js";
import { DATA_CHANGED } from "./changes.js";
import { type Database, type DatabaseTimeouts, type Listener, postgresPool } from "./driver.js";

/** Where a replica stands: only a `healthy` one is in the rotation. */
export type ReplicaState = "healthy" | "down" | "not_in_recovery" | "lagging";

/** A replica as the last check (or a failed statement) found it. */
export interface ReplicaStatus {
  /** Its name in metrics and logs: `host:port` of its URL, or `replica-N` for a socket. */
  name: string;
  state: ReplicaState;
  /** How long ago the primary was first seen past this replica's replay position, in ms (0: caught up). */
  lagMs: number;
  /** Its replay position (`pg_last_wal_replay_lsn()`), as a number. */
  replay: bigint;
}

export interface ReplicaOptions {
  /** Connection strings of streaming replicas of `primary` (DATABASE_REPLICA_URLS). */
  urls: readonly string[];
  /** Most a replica may lag, in ms, and stay in the rotation (REPLICA_MAX_LAG_MS). */
  maxLagMs: number;
  /** Pause between two checks of every replica, in ms (default 500). */
  pollMs?: number;
  /** Longest a check may take before its replica counts as down, in ms (default 1,000). */
  checkTimeoutMs?: number;
  /** The statements' time limits, as on the primary. */
  timeouts?: DatabaseTimeouts | undefined;
  /** Told when a replica leaves or returns to the rotation, and of lost connections. */
  log?: { info(object: object, message: string): void; warn(object: object, message: string): void };
}

/** A replica: its pools (statements, and one connection for checks) and what was last found. */
interface Replica extends ReplicaStatus {
  readonly url: string;
  readonly pool: pg.Pool;
  readonly checks: pg.Pool;
  readonly factory: PrismaPg;
  adapter?: SqlDriverAdapter;
  /** Whether a check has found it yet. */
  seen: boolean;
}

/** What a check of a replica reads. */
interface CheckRow {
  recovery: boolean;
  replay: string | null;
  own_lag_ms: number | null;
}

/** The primary's WAL position at an instant. */
interface Sample {
  at: number;
  lsn: bigint;
}

/** `16/B374D848` as a number. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split("/");
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** The name of a replica in metrics and logs: never its user or password. */
export function replicaName(url: string, index: number): string {
  const { host, port } = readPostgresUrl(url);
  return host.startsWith("/") ? `replica-${index + 1}` : `${host}:${port}`;
}

/** The SQLSTATE of a failed statement, wherever the driver adapter put it. */
function sqlState(error: unknown): string | undefined {
  const cause = (error as { cause?: { originalCode?: unknown } } | undefined)?.cause;
  return typeof cause?.originalCode === "string" ? cause.originalCode : undefined;
}

/**
 * Whether a read that failed on a replica is sent again to the primary: the
 * replica could not answer (it is gone, restarting, frozen, out of
 * connections), or cancelled the statement for a conflict with recovery
 * (40001). A statement that ran out of its own time (57014) would do the
 * same on the primary, and is not sent again.
 */
function sendToPrimary(error: unknown): { replicaFailed: boolean } | undefined {
  const state = sqlState(error);
  if (state === "40001") return { replicaFailed: false };
  if (state === "57014") return undefined;
  return isUnavailable(error) ? { replicaFailed: true } : undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** A pool of one connection for checks, with short limits, that never ends the process. */
function checkPool(connectionString: string, timeoutMs: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: 1,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    statement_timeout: timeoutMs,
    idleTimeoutMillis: 0,
  });
  pool.on("error", () => undefined);
  return pool;
}

export class ReadRouter {
  /** The replicas, in the order configured. */
  private readonly replicas: Replica[];
  /** Checks of the primary's WAL position (fences and lag). */
  private readonly primaryChecks: pg.Pool;
  private readonly pollMs: number;
  private readonly maxLagMs: number;
  /** The primary's WAL positions seen, oldest first, as long as they can tell a lag up to `maxLagMs`. */
  private readonly samples: Sample[] = [];
  /** The newest fence: no replica replayed to before it may serve. */
  private fence = 0n;
  /** Notices heard (the start counts as one). */
  private notices = 1;
  /** Notices the fence covers: a fence taken after the last of them. Below `notices`, the primary serves. */
  private covered = 0;
  /** The data version, read in the same statement as the fence: every replica past the fence holds it. */
  private fencedVersion: number | undefined;
  private turn = 0;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private listener: Listener | undefined;

  constructor(
    private readonly primary: Pick<Database, "adapter" | "url">,
    private readonly options: ReplicaOptions,
  ) {
    this.pollMs = options.pollMs ?? 500;
    this.maxLagMs = options.maxLagMs;
    const checkMs = options.checkTimeoutMs ?? 1_000;
    this.primaryChecks = checkPool(primary.url, checkMs);
    this.replicas = options.urls.map((url, index) => {
      const pool = postgresPool(url, options.timeouts);
      const name = replicaName(url, index);
      const lost = (error: Error) => options.log?.warn({ replica: name, err: String(error) }, "replica connection lost");
      pool.on("error", lost);
      return {
        name,
        url,
        pool,
        checks: checkPool(url, checkMs),
        factory: new PrismaPg(pool, { onPoolError: () => undefined, onConnectionError: lost, statementNameGenerator: statementNames() }),
        state: "down" as ReplicaState,
        seen: false,
        lagMs: Number.POSITIVE_INFINITY,
        replay: 0n,
      };
    });
  }

  /** Checks every replica once (the first fence included), then keeps checking every `pollMs`. */
  async start(): Promise<void> {
    await this.check();
    const loop = async () => {
      if (this.closed) return;
      await this.check();
      this.timer = setTimeout(() => void loop(), this.pollMs);
      this.timer.unref();
    };
    this.timer = setTimeout(() => void loop(), this.pollMs);
    this.timer.unref();
  }

  /**
   * The data changed (a DATA_CHANGED notice, or listening resumed): from now
   * until a fence taken after this call is known, the primary serves every
   * read. The fence is taken, and the replicas checked, at once.
   */
  notice(): void {
    this.notices++;
    void this.check();
  }

  /** Hears every DATA_CHANGED notice on `db` (the primary), as {@link notice}. */
  async follow(db: Pick<Database, "listen">): Promise<void> {
    this.listener = await db.listen(DATA_CHANGED, () => this.notice());
  }

  /**
   * `db`'s LISTEN, where a DATA_CHANGED notice calls {@link notice} before
   * the listener's own callback: an answer cache that follows it is emptied
   * only once the primary serves, so no answer begun after the emptying is
   * read from a replica that may not have the change. (The process's LISTENs
   * share one connection, whose notices reach the subscribers in the order
   * they subscribed, ./listening.ts: this holds whatever that order.)
   */
  fenced(db: Pick<Database, "listen">): Pick<Database, "listen"> {
    return {
      listen: (channel, onNotify) =>
        db.listen(
          channel,
          channel === DATA_CHANGED
            ? () => {
                this.notice();
                onNotify();
              }
            : onNotify,
        ),
    };
  }

  /** Each replica as last found, in the order configured. */
  status(): ReplicaStatus[] {
    return this.replicas.map(({ name, state, lagMs, replay }) => ({ name, state, lagMs, replay }));
  }

  /** The current fence, and whether a notice is still waiting for one. */
  fenceStatus(): { fence: bigint; pending: boolean } {
    return { fence: this.fence, pending: this.covered < this.notices };
  }

  /**
   * The data version as of the newest fence, once a fence covers every
   * notice heard so far: the reads that follow see at least that version,
   * on the primary or on any replica that may serve. Rejects when the
   * primary does not answer within a few checks.
   */
  async dataVersion(): Promise<number> {
    for (let attempt = 0; attempt < 5 && !this.closed; attempt++) {
      if (this.covered >= this.notices && this.fencedVersion !== undefined) return this.fencedVersion;
      await this.check();
    }
    throw new Error("the primary did not answer: no fence, no data version");
  }

  /** The replica the next read goes to, in rotation; undefined: the primary. */
  pick(): ReplicaStatus | undefined {
    return this.pickReplica();
  }

  private pickReplica(): Replica | undefined {
    if (this.covered < this.notices) return undefined;
    const n = this.replicas.length;
    for (let i = 0; i < n; i++) {
      const replica = this.replicas[(this.turn + i) % n]!;
      if (replica.state === "healthy" && replica.replay >= this.fence) {
        this.turn = (this.turn + i + 1) % n;
        return replica;
      }
    }
    return undefined;
  }

  /**
   * The driver adapter of the read client: its statements go to {@link
   * pick}'s choice; transactions and scripts (which it never starts) to the
   * primary.
   */
  readonly adapter: SqlDriverAdapterFactory = {
    provider: "postgres",
    adapterName: "@prisma/adapter-pg",
    connect: async () => {
      const primary = await this.primary.adapter.connect();
      await Promise.all(
        this.replicas.map(async (replica) => {
          replica.adapter = await replica.factory.connect();
        }),
      );
      const read = async <T>(run: (adapter: SqlDriverAdapter) => Promise<T>): Promise<T> => {
        const replica = this.pickReplica();
        if (!replica?.adapter) {
          readTargets.inc({ target: "primary" });
          return run(primary);
        }
        readTargets.inc({ target: replica.name });
        try {
          return await run(replica.adapter);
        } catch (error) {
          const retry = sendToPrimary(error);
          if (!retry) throw error;
          if (retry.replicaFailed) this.leave(replica, "down", String(error));
          readRetries.inc({ replica: replica.name });
          readTargets.inc({ target: "primary" });
          return run(primary);
        }
      };
      return {
        provider: primary.provider,
        adapterName: primary.adapterName,
        queryRaw: (query: SqlQuery) => read((adapter) => adapter.queryRaw(query)),
        // The read client has no writes to send (src/db/guards.ts); a statement it sends as one goes where its reads go, and a replica refuses it.
        executeRaw: (query: SqlQuery) => read((adapter) => adapter.executeRaw(query)),
        executeScript: (script: string) => primary.executeScript(script),
        startTransaction: (isolation) => primary.startTransaction(isolation),
        getConnectionInfo: () => primary.getConnectionInfo?.() ?? { supportsRelationJoins: true },
        dispose: async () => {
          await Promise.all(this.replicas.map((replica) => replica.adapter?.dispose()));
          await primary.dispose();
        },
      };
    },
  };

  /** Stops checking and closes the replicas' connections (the primary's `Database` is its owner's to close). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.listener?.close();
    await this.checking;
    await Promise.all([
      this.primaryChecks.end().catch(() => undefined),
      ...this.replicas.flatMap((r) => [r.pool.end().catch(() => undefined), r.checks.end().catch(() => undefined)]),
    ]);
  }

  /** One check of the primary and every replica; a check asked for while one runs follows it. */
  private check(): Promise<void> {
    if (this.checking) {
      this.again = true;
      return this.checking;
    }
    this.checking = (async () => {
      do {
        this.again = false;
        await this.checkOnce();
        // A notice's fence waits for replicas to pass it: look again soon rather than at the next poll.
        if (!this.closed && this.replicas.some((r) => r.state === "healthy" && r.replay < this.fence)) {
          await sleep(Math.min(50, this.pollMs));
          this.again = true;
        }
      } while (this.again && !this.closed);
      this.checking = undefined;
    })();
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    // The notices this fence covers: those heard before it is asked for.
    const covers = this.notices;
    const now = Date.now();
    let primaryLsn: bigint | undefined;
    try {
      const { rows } = await this.primaryChecks.query<{ lsn: string; version: number }>(
        "SELECT pg_current_wal_lsn()::text AS lsn, (SELECT version FROM data_version) AS version",
      );
      primaryLsn = parseLsn(rows[0]!.lsn);
      this.samples.push({ at: now, lsn: primaryLsn });
      // Kept: the newest sample older than the longest lag to tell, and those after it.
      while (this.samples.length > 2 && this.samples[1]!.at < now - this.maxLagMs - this.pollMs) this.samples.shift();
      // Only a notice moves the fence: between two, the data is the same at every WAL position.
      if (covers > this.covered) {
        if (primaryLsn > this.fence) this.fence = primaryLsn;
        this.fencedVersion = rows[0]!.version;
        this.covered = covers;
      }
    } catch {
      // The primary does not answer: the fence waits (reads go to the primary, and fail there as they would without replicas).
    }
    await Promise.all(this.replicas.map((replica) => this.checkReplica(replica, primaryLsn)));
  }

  private async checkReplica(replica: Replica, primaryLsn: bigint | undefined): Promise<void> {
    let row: CheckRow | undefined;
    try {
      ({
        rows: [row],
      } = await replica.checks.query<CheckRow>(
        `SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS replay,
                (extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS own_lag_ms`,
      ));
    } catch (error) {
      this.leave(replica, "down", String(error));
      return;
    }
    if (!row?.recovery || row.replay === null) {
      this.leave(replica, "not_in_recovery", "the server is not in recovery: it is no streaming replica");
      return;
    }
    const replay = parseLsn(row.replay);
    replica.replay = replay;
    replica.lagMs = this.lagOf(replay, primaryLsn, row.own_lag_ms);
    if (replica.lagMs > this.maxLagMs) {
      this.leave(replica, "lagging", `${Math.round(replica.lagMs)} ms behind the primary`);
      return;
    }
    if (replica.state !== "healthy") this.options.log?.info({ replica: replica.name, lagMs: replica.lagMs }, "replica in the rotation");
    replica.state = "healthy";
    replica.seen = true;
  }

  /**
   * How long ago the primary was first seen past `replay`: 0 when the
   * replica has replayed all the primary had just written. When it is behind
   * every sample kept since this process started (fewer than `maxLagMs` of
   * them), the replica's own measure counts too: the time since it last
   * replayed a commit.
   */
  private lagOf(replay: bigint, primaryLsn: bigint | undefined, ownLagMs: number | null): number {
    if (primaryLsn !== undefined && replay >= primaryLsn) return 0;
    const now = Date.now();
    const first = this.samples.findIndex((s) => s.lsn > replay);
    if (first < 0) return 0;
    const since = now - this.samples[first]!.at;
    return first === 0 ? Math.max(since, ownLagMs ?? 0) : since;
  }

  /** Takes a replica out of the rotation, saying so once (and at the first check, if it is out from the start). */
  private leave(replica: Replica, state: Exclude<ReplicaState, "healthy">, why: string): void {
    if (replica.state === "healthy" || !replica.seen)
      this.options.log?.warn({ replica: replica.name, state, why }, "replica out of the rotation");
    replica.state = state;
    replica.seen = true;
  }
}

/**
 * Which of `urls`, if any, reaches the primary itself under another name (a
 * host alias, another address of the same machine): a server not in recovery
 * that started at the same instant as the primary. Checked once at start,
 * before anything is written; a replica or primary that does not answer
 * within `timeoutMs` is not judged (the replica's checks find it later).
 */
export async function primaryAmong(primaryUrl: string, urls: readonly string[], timeoutMs = 2_000): Promise<number | undefined> {
  const identify = async (url: string) => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
    client.on("error", () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ recovery: boolean; started: string }>(
        "SELECT pg_is_in_recovery() AS recovery, pg_postmaster_start_time()::text AS started",
      );
      return rows[0];
    } catch {
      return undefined;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const [primary, ...replicas] = await Promise.all([primaryUrl, ...urls].map(identify));
  if (!primary) return undefined;
  const found = replicas.findIndex((r) => r && !r.recovery && r.started === primary.started);
  return found < 0 ? undefined : found;
}
