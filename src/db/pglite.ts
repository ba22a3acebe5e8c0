/**
 * PGlite, the embedded engine of earlier versions, kept only to read a
 * DATA_DIR it wrote so that its data can be carried over into the embedded
 * PostgreSQL (./carry-over.ts). It serves nothing. This module is loaded, and
 * PGlite's WebAssembly with it, only when such a directory is found.
 */
import { resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import type { Database } from "./driver.js";

/** A PGlite database opened to be read (and migrated, so that its tables match the new cluster's). */
export interface PGliteDatabase extends Pick<Database, "exec" | "query" | "transaction" | "close"> {
  /** The output of one `COPY (…) TO STDOUT`. */
  copyOut(sql: string): AsyncIterable<Uint8Array>;
}

/** PGlite could not open a data directory (it aborts on a damaged one). */
class PGliteDirError extends Error {
  constructor(dataDir: string, cause: unknown) {
    const reason =
      cause instanceof Error && /Aborted\(\)/.test(cause.message) ? "PGlite aborted while reading it" : String(cause).split("\n")[0];
    super(
      `cannot read the PGlite database in ${resolve(dataDir)} (${reason}): it is damaged or not a database. ` +
        "Move the directory away to start with an empty one, and restore a copy with npm run db:restore -- <file>",
    );
  }
}

/** Opens the PGlite database of `dataDir` (created when empty: the tests write one this way). */
export async function openPGlite(dataDir: string): Promise<PGliteDatabase> {
  let client: PGlite;
  try {
    // pg_trgm: the search indexes (migration 20261125000000_title_search). Small buffers: the
    // WebAssembly heap never shrinks, and a carry-over reads each table once.
    client = await PGlite.create(dataDir, {
      postgresqlconf: ["shared_buffers = 16MB", "wal_buffers = 1MB", "temp_buffers = 2MB", "maintenance_work_mem = 16MB"],
      extensions: { pg_trgm },
    });
  } catch (error) {
    throw new PGliteDirError(dataDir, error);
  }
  return {
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
          // PGlite reads a COPY's input from a blob, whole.
          copyIn: async (sql, chunks) => {
            const parts: string[] = [];
            for await (const chunk of chunks) parts.push(chunk);
            await tx.query(sql.replace(/ FROM STDIN$/, " FROM '/dev/blob'"), [], { blob: new Blob(parts) });
          },
        }),
      ),
    close: () => client.close(),
    copyOut: async function* (sql) {
      const { blob } = await client.query(sql.replace(/ TO STDOUT$/, " TO '/dev/blob'"));
      if (blob) yield new Uint8Array(await blob.arrayBuffer());
    },
  };
}
