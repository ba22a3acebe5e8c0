/**
 * A throwaway database for a benchmark: the embedded PostgreSQL in a
 * temporary DATA_DIR (as `npm start` keeps it), or a new database on the
 * PostgreSQL server at TEST_DATABASE_URL (default
 * postgresql://postgres@127.0.0.1:5432/test). `drop` removes it, after `close`.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type Database, openDatabase } from "../src/db/driver.js";
import { tempDir } from "../test/support/temp.js";
import { createThrowawayDatabase } from "../test/support/throwaway-postgres.js";

export async function benchDatabase(embedded: boolean): Promise<Database & { drop: () => Promise<void> }> {
  if (embedded) {
    const dir = tempDir("gw-bench-");
    const db = await openDatabase({ dataDir: join(dir, "data"), role: "bench" });
    // Called after `close`, which stopped the server (its only user).
    return Object.assign(db, { drop: async () => rmSync(dir, { recursive: true, force: true }) });
  }
  const { url, drop } = await createThrowawayDatabase(
    process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test",
    "gw_bench",
  );
  const db = await openDatabase({ databaseUrl: url });
  return Object.assign(db, { drop });
}
