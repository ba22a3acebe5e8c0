/**
 * Databases for tests: a fresh in-memory PGlite, or a fresh database on the
 * run's PostgreSQL server (the private one of the global setup, or
 * TEST_DATABASE_URL), dropped again when the test file is done.
 */
import { Readable } from "node:stream";
import { inject } from "vitest";
import { type Database, openDatabase, openPGlite } from "../../src/db/driver.js";
import { migrate } from "../../src/db/migrate.js";
import { importExport } from "../../src/import/apply.js";
import { copyTemplate, templateDump } from "./pglite-template.js";
import { createThrowawayDatabase } from "./throwaway-postgres.js";

/** The run's PostgreSQL server (see `global-setup.ts`). */
const postgresUrl = () => inject("postgresUrl");

/** A migrated in-memory PGlite database, loaded from the run's template. */
export async function freshPGlite(): Promise<Database> {
  const db = await openPGlite("memory://", templateDump(inject("pgliteTemplate")));
  // Finds nothing to apply, unless the template is older than the migrations.
  await migrate(db);
  return db;
}

/**
 * A migrated, empty DATA_DIR at `dataDir` (which must not exist), copied from
 * the run's template, for tests of what a command or gateway does with one
 * rather than of how one is created.
 */
export function migratedDataDir(dataDir: string): string {
  return copyTemplate(inject("pgliteTemplate"), dataDir);
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
