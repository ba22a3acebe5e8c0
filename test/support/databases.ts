/**
 * Databases for tests: a fresh in-memory PGlite, or a fresh database on the
 * local PostgreSQL server (TEST_DATABASE_URL, default the machine's trust-auth
 * server), dropped again when the test file is done.
 */
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import pg from "pg";
import { type Database, openDatabase } from "../../src/db/driver.js";
import { migrate } from "../../src/db/migrate.js";
import { importExport } from "../../src/import/apply.js";

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

/** A migrated in-memory PGlite database. */
export async function freshPGlite(): Promise<Database> {
  const db = await openDatabase({ dataDir: "memory://" });
  await migrate(db);
  return db;
}

/** A new, empty, migrated database on the PostgreSQL server; `close` drops it. */
export async function freshPostgres(): Promise<Database & { url: string }> {
  const name = `gw_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString() });
  await migrate(db);
  return {
    ...db,
    url: url.toString(),
    close: async () => {
      await db.close();
      const drop = new pg.Client({ connectionString: POSTGRES_URL });
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await drop.end();
    },
  };
}

/** Imports an export given as an object. */
export function importObject(db: Database, value: unknown) {
  return importExport(db, Readable.from([JSON.stringify(value)]));
}
