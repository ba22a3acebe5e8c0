/**
 * Opens the database: a PostgreSQL server named by DATABASE_URL, or the
 * embedded one in DATA_DIR (./embedded.ts). Either gives the same two things:
 * a Prisma driver adapter and a plain SQL runner (for migrations and the few
 * statements Prisma cannot express). (A DATA_DIR still written by PGlite, the
 * embedded engine of earlier versions, is refused here: the gateway and the
 * commands carry it over first, ./carry-over.ts.)
 */
import { PrismaPg } from "@prisma/adapter-pg";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { INT32_MAX } from "../input-limits.js";
import { useEmbeddedServer } from "./embedded.js";
import { type Listener, Listening } from "./listening.js";
import { statementNames } from "./statement-names.js";

/** A connection to the database, whichever kind. */
export interface Database {
  /** `embedded` (the server in DATA_DIR) or `postgres` (DATABASE_URL). */
  readonly kind: "embedded" | "postgres";
  /** The server's connection string (the embedded one's socket included). */
  readonly url: string;
  /** What the generated Prisma client is built on. */
  readonly adapter: PrismaPg;
  /** Runs one or more statements without parameters. */
  exec(sql: string): Promise<void>;
  /** Runs one statement with positional parameters ($1, $2, ...). */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs `work` on one connection inside BEGIN/COMMIT (ROLLBACK on error). */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  /** Closes every connection. */
  close(): Promise<void>;
  /** The connection pool, as it is now. */
  poolStats(): PoolStats;
  /**
   * Calls `onNotify` on every NOTIFY on `channel` (from any connection or
   * process), and once more whenever listening resumes after its connection
   * was lost, since a notice may have been missed meanwhile. The process's
   * LISTENs share one connection, outside the pool, which comes back by
   * itself (./listening.ts).
   */
  listen(channel: string, onNotify: () => void): Promise<Listener>;
}

/** What a transaction of the server can run: statements, and rows in bulk. */
export interface Transaction extends Pick<Database, "exec" | "query"> {
  /**
   * Runs one `COPY … FROM STDIN` and sends it `chunks`, text in COPY's text
   * format (./copy-text.ts): the cheapest way into a table, for the
   * server and for us, when rows come by the thousand.
   */
  copyIn(sql: string, chunks: Iterable<string> | AsyncIterable<string>): Promise<void>;
}

export type { Listener } from "./listening.js";

/** Connection counts of a PostgreSQL pool. */
export interface PoolStats {
  /** Connections open, busy or idle. */
  total: number;
  /** Connections open and idle. */
  idle: number;
  /** Requests waiting for a connection. */
  waiting: number;
}

export interface OpenOptions {
  /** PostgreSQL connection string; without it the embedded database is used. */
  databaseUrl?: string | undefined;
  /** Directory of the embedded database. */
  dataDir?: string | undefined;
  /** What this process is (`gateway`, `import`…), as the embedded server lists its connections. */
  role?: string | undefined;
  /**
   * Time limits of the connections. Statements of `transaction` (imports,
   * migrations) are exempt: they may legitimately take long.
   */
  timeouts?: DatabaseTimeouts | undefined;
  /** Told of a connection the server dropped (restart, network); the pool replaces it. */
  onConnectionError?: ((error: Error) => void) | undefined;
  /** Told when the embedded server went away and when it is back. */
  onServerEvent?: ((event: { message: string; error?: string }) => void) | undefined;
}

export interface DatabaseTimeouts {
  /** Longest a statement may run on the server (`statement_timeout`). */
  statementMs: number;
  /** Longest wait for a connection: a free one from the pool, or a new one to the server. */
  acquireMs: number;
}

/** A statement that may run as long as it needs (`query_timeout` must be truthy to override the pool's). */
const UNBOUNDED_MS = INT32_MAX;

/**
 * How long a connection of the pool may stay idle before it is closed. `pg`'s
 * default, 10 s, closes the pool between two bursts a little apart, and the
 * next burst pays for new backends: each starts, loads the catalog and
 * prepares its named statements again. Under the bench's interleaved rounds
 * that tripled the database's CPU per request of a 20-row list (0.23-0.44
 * against 0.08-0.12 ms), on PostgreSQL's side alone.
 */
export const POOL_IDLE_MS = 300_000;

/** A pool of 10 connections to `connectionString`, with the time limits of `timeouts` (src/db/replicas.ts opens one per replica). */
export function postgresPool(connectionString: string, timeouts: DatabaseTimeouts | undefined): pg.Pool {
  return new pg.Pool({
    connectionString,
    max: 10,
    idleTimeoutMillis: POOL_IDLE_MS,
    keepAlive: true,
    ...(timeouts
      ? {
          connectionTimeoutMillis: timeouts.acquireMs,
          statement_timeout: timeouts.statementMs,
          // A frozen or unreachable server cannot cancel its own statements:
          // the client gives up a little later, and the pool drops that connection.
          query_timeout: timeouts.statementMs + 500,
        }
      : {}),
  });
}

/** Opens the database the options name. */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options);
  return openEmbedded(options.dataDir ?? "./data", options);
}

/**
 * Opens the embedded PostgreSQL of `dataDir` (src/db/embedded.ts); with
 * `besidePGlite`, also in a DATA_DIR that PGlite's files still hold (to carry
 * them over).
 */
export async function openEmbedded(dataDir: string, options: OpenOptions & { besidePGlite?: boolean }): Promise<Database> {
  const server = await useEmbeddedServer(dataDir, {
    role: options.role ?? "gateway",
    onEvent: options.onServerEvent,
    besidePGlite: options.besidePGlite === true,
  });
  try {
    const db = await openPostgres(server.url, options);
    return {
      ...db,
      kind: "embedded",
      close: async () => {
        await db.close();
        await server.release();
      },
    };
  } catch (error) {
    await server.release();
    throw error;
  }
}

async function openPostgres(connectionString: string, options: OpenOptions): Promise<Database> {
  // One pool for Prisma and the plain statements (keys, readiness, imports).
  const pool = postgresPool(connectionString, options.timeouts);
  // An idle connection the server dropped (a restart, a network fault) emits
  // `error`; unheard, that would end the process. The pool replaces it.
  const onConnectionError = (error: Error) => options.onConnectionError?.(error);
  pool.on("error", onConnectionError);
  const adapter = new PrismaPg(pool, { onPoolError: () => undefined, onConnectionError, statementNameGenerator: statementNames() });
  // Every LISTEN of this process on one connection, opened with the first.
  const listening = new Listening(connectionString, onConnectionError);
  return {
    kind: "postgres",
    url: connectionString,
    adapter,
    exec: async (sql) => {
      await pool.query(sql);
    },
    query: async <Row>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as Row[],
    transaction: async (work) => {
      const client = await pool.connect();
      // Between statements a checked-out connection reports its loss as an event.
      let lost: Error | undefined;
      const onLost = (error: Error) => {
        lost = error;
        onConnectionError(error);
      };
      client.on("error", onLost);
      // pg reads a per-statement `query_timeout` (its typings do not declare it).
      const run = (text: string, values?: unknown[]) => client.query({ text, values, query_timeout: UNBOUNDED_MS } as pg.QueryConfig);
      try {
        await run("BEGIN");
        await run("SET LOCAL statement_timeout = 0");
        const result = await work({
          exec: async (sql) => {
            await run(sql);
          },
          query: async <Row>(sql: string, params: unknown[] = []) => (await run(sql, params)).rows as Row[],
          // A row the server refuses ends the copy with the server's error, which the pipeline rejects with.
          copyIn: (sql, chunks) => pipeline(Readable.from(chunks, { objectMode: false }), client.query(copyFrom(sql))),
        });
        await run("COMMIT");
        return result;
      } catch (error) {
        await run("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.off("error", onLost);
        client.release(lost);
      }
    },
    close: async () => {
      await pool.end();
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    listen: (channel, onNotify) => listening.listen(channel, onNotify),
  };
}
