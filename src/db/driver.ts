/**
 * Opens the database: a PostgreSQL server named by DATABASE_URL, or the
 * embedded one in DATA_DIR (./embedded.ts), or (still, until it is carried
 * over) a DATA_DIR written by PGlite. Each gives the same two things: a Prisma
 * driver adapter and a plain SQL runner (for migrations and the few
 * statements Prisma cannot express).
 */
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { INT32_MAX } from "../input-limits.js";
import { isPGliteDir, useEmbeddedServer } from "./embedded.js";

/** A connection to the database, whichever kind. */
export interface Database {
  /** `pglite` (the previous embedded engine), `embedded` (the server in DATA_DIR) or `postgres` (DATABASE_URL). */
  readonly kind: "pglite" | "embedded" | "postgres";
  /** The connection string of a PostgreSQL server (the embedded one's socket included); absent on PGlite. */
  readonly url?: string;
  /** What the generated Prisma client is built on. */
  readonly adapter: PrismaPg | PrismaPGlite;
  /** Runs one or more statements without parameters. */
  exec(sql: string): Promise<void>;
  /** Runs one statement with positional parameters ($1, $2, ...). */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs `work` on one connection inside BEGIN/COMMIT (ROLLBACK on error). */
  transaction<T>(work: (tx: Pick<Database, "exec" | "query">) => Promise<T>): Promise<T>;
  /** Closes every connection. */
  close(): Promise<void>;
  /** The output of one `COPY (…) TO STDOUT` (PGlite only: the source of a carry-over, src/db/carry-over.ts). */
  copyOut?(sql: string): AsyncIterable<Uint8Array>;
  /** The embedded database's whole directory as a gzipped tar (PGlite's dump); absent on a server. */
  dump?(): Promise<Blob>;
  /** A server's connection pool, as it is now; absent on the embedded database (one connection, in the process). */
  poolStats?(): PoolStats;
  /**
   * Calls `onNotify` on every NOTIFY on `channel` (from any connection or
   * process), and once more whenever listening resumes after its connection
   * was lost, since a notice may have been missed meanwhile. On a server the
   * listening connection is its own, outside the pool, and comes back by itself.
   */
  listen(channel: string, onNotify: () => void): Promise<Listener>;
}

/** A LISTEN in place; `close` ends it. */
export interface Listener {
  close(): Promise<void>;
}

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
  /** Directory of the embedded database; `memory://` keeps it in memory (PGlite, for tests). */
  dataDir?: string | undefined;
  /** What this process is (`gateway`, `import`…), as the embedded server lists its connections. */
  role?: string | undefined;
  /**
   * Time limits of a PostgreSQL server's connections (the embedded database
   * runs in the process and needs none). Statements of `transaction` (imports,
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

/** Opens the database the options name. */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options);
  const dataDir = options.dataDir ?? "./data";
  if (dataDir.startsWith("memory://") || isPGliteDir(dataDir)) return openPGlite(dataDir);
  return openEmbedded(dataDir, options);
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

/** PGlite could not open a data directory (it aborts on a damaged one). */
export class DataDirError extends Error {
  constructor(dataDir: string, cause: unknown) {
    const reason =
      cause instanceof Error && /Aborted\(\)/.test(cause.message) ? "PGlite aborted while reading it" : String(cause).split("\n")[0];
    super(
      `cannot open the embedded database in ${resolve(dataDir)} (${reason}): it is damaged or not a database. ` +
        "Restore a copy with npm run db:restore -- <file>, or move the directory away to start with an empty one",
    );
  }
}

/**
 * PostgreSQL's memory inside PGlite's WebAssembly heap, which never shrinks.
 * The defaults are a server's (128 MB of shared buffers, 64 MB for
 * maintenance); the embedded database's tables are small and its files sit
 * in the operating system's cache anyway.
 */
const PGLITE_SETTINGS = ["shared_buffers = 16MB", "wal_buffers = 1MB", "temp_buffers = 2MB", "maintenance_work_mem = 16MB"];

/** Opens an embedded database in `dataDir`; with `loadDataDir`, a new one from a dump. */
export async function openPGlite(dataDir: string, loadDataDir?: Blob): Promise<Database> {
  if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true });
  let client: PGlite;
  try {
    // pg_trgm: the search indexes (migration 20261125000000_title_search).
    client = await PGlite.create(dataDir, {
      postgresqlconf: PGLITE_SETTINGS,
      extensions: { pg_trgm },
      ...(loadDataDir ? { loadDataDir } : {}),
    });
  } catch (error) {
    throw new DataDirError(dataDir, error);
  }
  // PGlite is one connection; it queues statements behind a running
  // transaction itself.
  return {
    kind: "pglite",
    adapter: new PrismaPGlite(client),
    exec: async (sql) => {
      await client.exec(sql);
    },
    query: async <Row>(sql: string, params: unknown[] = []) => (await client.query<Row>(sql, params)).rows,
    transaction: (work) =>
      client.transaction((tx) =>
        work({
          exec: async (sql) => {
            await tx.exec(sql);
          },
          query: async <Row>(sql: string, params: unknown[] = []) => (await tx.query<Row>(sql, params)).rows,
        }),
      ),
    close: () => client.close(),
    copyOut: async function* (sql) {
      const { blob } = await client.query(sql.replace(/ TO STDOUT$/, " TO '/dev/blob'"));
      if (blob) yield new Uint8Array(await blob.arrayBuffer());
    },
    dump: () => client.dumpDataDir("gzip"),
    listen: async (channel, onNotify) => {
      const stop = await client.listen(channel, onNotify);
      return { close: () => stop() };
    },
  };
}

async function openPostgres(connectionString: string, options: OpenOptions): Promise<Database> {
  const timeouts = options.timeouts;
  // One pool for Prisma and the plain statements (keys, readiness, imports).
  const pool = new pg.Pool({
    connectionString,
    max: 10,
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
  // An idle connection the server dropped (a restart, a network fault) emits
  // `error`; unheard, that would end the process. The pool replaces it.
  const onConnectionError = (error: Error) => options.onConnectionError?.(error);
  pool.on("error", onConnectionError);
  const adapter = new PrismaPg(pool, { onPoolError: () => undefined, onConnectionError });
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
    listen: async (channel, onNotify) => listenOn(connectionString, channel, onNotify, onConnectionError),
  };
}

/** Longest pause between two attempts to listen again. */
const MAX_RETRY_MS = 30_000;

/**
 * LISTEN on a connection of its own that is opened again, with a growing
 * pause, whenever it fails; each return calls `onNotify` (notices sent while
 * it was away are lost). Resolves once the first LISTEN is in place or has
 * failed (then it keeps trying in the background).
 */
async function listenOn(
  connectionString: string,
  channel: string,
  onNotify: () => void,
  onError: (error: Error) => void,
): Promise<Listener> {
  let closed = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let pause = 500;
  const connect = async (again: boolean): Promise<void> => {
    const c = new pg.Client({ connectionString, keepAlive: true, connectionTimeoutMillis: 5_000 });
    let retried = false;
    const retry = (error: Error) => {
      if (retried || closed) return;
      retried = true;
      onError(error);
      c.end().catch(() => undefined);
      timer = setTimeout(() => void connect(true), pause);
      pause = Math.min(pause * 2, MAX_RETRY_MS);
    };
    c.on("error", retry);
    c.on("end", () => retry(new Error(`the connection listening on ${channel} ended`)));
    c.on("notification", (n) => {
      if (n.channel === channel) onNotify();
    });
    try {
      await c.connect();
      await c.query(`LISTEN "${channel}"`);
    } catch (error) {
      retry(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (closed) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
    pause = 500;
    if (again) onNotify();
  };
  await connect(false);
  return {
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}
