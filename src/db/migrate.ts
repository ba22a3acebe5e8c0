/**
 * Applies the SQL migrations under prisma/migrations, each once, in name order.
 *
 * Prisma's own `migrate deploy` needs a native engine these machines cannot
 * download, so the gateway applies the same files itself and records them in
 * Prisma's `_prisma_migrations` table with the same checksum, so a deployment
 * that does have the engine sees them as applied.
 */
import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "./driver.js";
import { FILES_ROOT } from "../files.js";

/** Where the migration folders live. */
export const MIGRATIONS_DIR = join(FILES_ROOT, "prisma", "migrations");

/** One migration folder. */
export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** Reads the migration folders, sorted by name. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/** Where applied migrations are recorded (Prisma's own table). */
export const MIGRATIONS_TABLE = "_prisma_migrations";

const CREATE_TABLE = `CREATE TABLE "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

// Any constant works: it only has to be the same for every gateway process.
const LOCK_KEY = 727_001;

/** An applied migration's file differs from what was applied: nothing is applied, and the message says what to do. */
export class MigrationChangedError extends Error {
  constructor(readonly migration: string) {
    super(
      `migration ${migration} was changed after it was applied (checksum differs): put prisma/migrations/${migration}/migration.sql back as it was applied (git log -p shows it), and make the change a new migration`,
    );
    this.name = "MigrationChangedError";
  }
}

/**
 * Applies every pending migration, all in one transaction: either all of them
 * are applied or none is. Concurrent
 * callers on one PostgreSQL server wait for each other on an advisory lock.
 * Returns the names applied now. Throws when an applied migration's file has
 * changed since (its checksum differs), naming it.
 */
export async function migrate(db: Pick<Database, "transaction">, migrations = readMigrations()): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [LOCK_KEY]);
    // Created only where missing: a role that may not create in the schema (the serving role of
    // docs/roles.md) finds every migration applied, and needs no more than to read the table.
    const [table] = await tx.query<{ t: string | null }>(`SELECT to_regclass('"${MIGRATIONS_TABLE}"')::text AS t`);
    if (!table?.t) await tx.exec(CREATE_TABLE);
    const rows = await tx.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    const done: string[] = [];
    for (const m of migrations) {
      const checksum = applied.get(m.name);
      if (checksum !== undefined) {
        if (checksum !== m.checksum) {
          throw new MigrationChangedError(m.name);
        }
        continue;
      }
      await tx.exec(m.sql);
      await tx.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
        [randomUUID(), m.checksum, m.name],
      );
      done.push(m.name);
    }
    return done;
  });
}

/** Names of the migrations not yet applied (empty when the database is current). */
export async function pendingMigrations(db: Pick<Database, "query">, migrations = readMigrations()): Promise<string[]> {
  const exists = await db.query<{ t: string | null }>(`SELECT to_regclass('"${MIGRATIONS_TABLE}"')::text AS t`);
  if (!exists[0]?.t) return migrations.map((m) => m.name);
  const rows = await db.query<{ migration_name: string }>(
    `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  const applied = new Set(rows.map((r) => r.migration_name));
  return migrations.filter((m) => !applied.has(m.name)).map((m) => m.name);
}
