/**
 * Databases for tests: a fresh database on the run's PostgreSQL server (the
 * private one of the global setup, or TEST_DATABASE_URL), copied from the
 * run's migrated template and dropped again when the test file is done; or
 * a DATA_DIR for the embedded server, copied from the template cluster.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { inject } from "vitest";
import { type Database, openDatabase } from "../../src/db/driver.js";
import { migrate } from "../../src/db/migrate.js";
import { importExport } from "../../src/import/apply.js";
import { copyDataDir, demoTemplate } from "./templates.js";
import { tempDir } from "./temp.js";
import { createThrowawayDatabase } from "./throwaway-postgres.js";

/**
 * A new, empty, migrated database; `close` drops it. On the run's server it
 * is a copy of the run's template; on another `server` (a fault test's own)
 * the migrations are applied.
 */
export async function freshDatabase(server?: string): Promise<Database> {
  return copyOf(server ? undefined : inject("templates").database, server);
}

/**
 * A new, migrated database holding the demo data, as a gateway's first start
 * on an empty one leaves it, but without paying that import again: a copy of
 * the run's demo template. For tests that start a gateway to serve the demo
 * data and are not testing its import. `close` drops it.
 */
export async function demoDatabase(): Promise<Database> {
  return copyOf(await demoTemplate(inject("postgresUrl"), inject("templates")));
}

/** A new database on `server` (the run's, unless given), a copy of `template` when one is given, and migrated. */
async function copyOf(template: string | undefined, server?: string): Promise<Database> {
  const { url, drop } = await createThrowawayDatabase(server ?? inject("postgresUrl"), "gw_test", template);
  const db = await openDatabase({ databaseUrl: url });
  try {
    // Finds nothing to apply on a copy of the template.
    await migrate(db);
  } catch (error) {
    await db.close();
    await drop();
    throw error;
  }
  return {
    ...db,
    close: async () => {
      await db.close();
      await drop();
    },
  };
}

/**
 * A migrated, empty DATA_DIR at `dataDir` (which must not exist), copied from
 * the run's template, for tests of what a command or gateway does with one
 * rather than of how one is created.
 */
export function migratedDataDir(dataDir: string): string {
  return copyDataDir(inject("templates"), dataDir);
}

/**
 * The embedded PostgreSQL (the default's engine, which may be another
 * version than the run's server) on a copy of the template DATA_DIR;
 * `close` stops its server and deletes the directory.
 */
export async function freshEmbedded(): Promise<Database> {
  const dir = tempDir("embedded-");
  try {
    const db = await openDatabase({ dataDir: migratedDataDir(join(dir, "data")), role: "test" });
    return {
      ...db,
      close: async () => {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Imports an export given as an object. */
export function importObject(db: Database, value: unknown) {
  return importExport(db, Readable.from([JSON.stringify(value)]));
}
