/**
 * Opens the database: embedded PGlite in a directory, or a PostgreSQL server.
 * Both give the same two things: a Prisma driver adapter and a plain SQL
 * runner (for migrations and the few statements Prisma cannot express).
 */
import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";

/** A connection to the database, whichever kind. */
export interface Database {
  /** `pglite` (embedded) or `postgres` (a server). */
  readonly kind: "pglite" | "postgres";
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
}

export interface OpenOptions {
  /** PostgreSQL connection string; without it the embedded database is used. */
  databaseUrl?: string | undefined;
  /** Directory of the embedded database; `memory://` keeps it in memory. */
  dataDir?: string | undefined;
}

/** Opens the database the options name. */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl)
    : openPGlite(options.dataDir ?? "./data");
}

async function openPGlite(dataDir: string): Promise<Database> {
  if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir);
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
  };
}

async function openPostgres(connectionString: string): Promise<Database> {
  const pool = new pg.Pool({ connectionString, max: 4 });
  const adapter = new PrismaPg({ connectionString });
  return {
    kind: "postgres",
    adapter,
    exec: async (sql) => {
      await pool.query(sql);
    },
    query: async <Row>(sql: string, params: unknown[] = []) =>
      (await pool.query(sql, params)).rows as Row[],
    transaction: async (work) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work({
          exec: async (sql) => {
            await client.query(sql);
          },
          query: async <Row>(sql: string, params: unknown[] = []) =>
            (await client.query(sql, params)).rows as Row[],
        });
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: async () => {
      await pool.end();
    },
  };
}
