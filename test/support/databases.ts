/**
 * Databases for tests: a fresh in-memory PGlite, or a fresh database on the
 * run's PostgreSQL server (the private one of the global setup, or
 * TEST_DATABASE_URL), dropped again when the test file is done.
 */
import { Readable } from "node:stream";
import { inject } from "vitest";
import { type Database, openDatabase } from "../../src/db/driver.js";
import { migrate } from "../../src/db/migrate.js";
import { importExport } from "../../src/import/apply.js";
import { createThrowawayDatabase } from "./throwaway-postgres.js";

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
  const { url, drop } = await createThrowawayDatabase(server, "gw_test");
  const db = await openDatabase({ databaseUrl: url });
  await migrate(db);
  return {
    ...db,
    url,
    close: async () => {
      await db.close();
      await drop();
    },
  };
}

/** Imports an export given as an object. */
export function importObject(db: Database, value: unknown) {
  return importExport(db, Readable.from([JSON.stringify(value)]));
}
