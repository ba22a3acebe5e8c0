/**
 * Databases for tests: a fresh in-memory PGlite, or a fresh database on the
 * run's PostgreSQL server (the private one of the global setup, or
 * TEST_DATABASE_URL), dropped again when the test file is done.
 */
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import pg from "pg";
import { inject } from "vitest";
import { type Database, openDatabase } from "../../src/db/driver.js";
import { migrate } from "../../src/db/migrate.js";
import { importExport } from "../../src/import/apply.js";

/** The run's PostgreSQL server (see `global-setup.ts`). */
const postgresUrl = () => inject("postgresUrl");

/** A migrated in-memory PGlite database. */
export async function freshPGlite(): Promise<Database> {
  const db = await openDatabase({ dataDir: "memory://" });
  await migrate(db);
  return db;
}

/** A new, empty, migrated database on the PostgreSQL server; `close` drops it. */
export async function freshPostgres(server = postgresUrl()): Promise<Database & { url: string }> {
  const name = `gw_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString() });
  await migrate(db);
  return {
    ...db,
    url: url.toString(),
    close: async () => {
      await db.close();
      const drop = new pg.Client({ connectionString: server });
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
