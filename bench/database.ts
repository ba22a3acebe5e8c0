/**
 * A throwaway database for a benchmark: PGlite in a temporary directory on
 * disk (as `npm start` keeps it; an in-memory one would count the whole
 * database as RSS), or a new database on the PostgreSQL server at
 * TEST_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test).
 * `drop` removes it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, openDatabase } from "../src/db/driver.js";
import { createThrowawayDatabase } from "../test/support/throwaway-postgres.js";

export async function benchDatabase(pglite: boolean): Promise<Database & { drop: () => Promise<void> }> {
  if (pglite) {
    const dir = mkdtempSync(join(tmpdir(), "gw-bench-"));
    const db = await openDatabase({ dataDir: dir });
    return Object.assign(db, { drop: async () => rmSync(dir, { recursive: true, force: true }) });
  }
  const { url, drop } = await createThrowawayDatabase(
    process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test",
    "gw_bench",
  );
  const db = await openDatabase({ databaseUrl: url });
  return Object.assign(db, { drop });
}
