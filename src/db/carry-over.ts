/**
 * Carrying a DATA_DIR written by PGlite (the embedded engine before the
 * embedded PostgreSQL) into the embedded PostgreSQL, keys and all:
 *
 * 1. the directory is taken (src/db/owner.ts): no gateway or command of the
 *    previous version may have it open;
 * 2. PGlite opens it and applies any pending migration, so both databases
 *    have the same tables;
 * 3. every table's rows are copied into the new cluster (`DATA_DIR/postgres`)
 *    in one transaction (src/db/backup.ts), then checked row for row: each
 *    table's count and checksum on both sides;
 * 4. only then are PGlite's files moved, whole, into `DATA_DIR/pglite-<time>`
 *    (`PG_VERSION` first: from then on DATA_DIR is the new engine's). They
 *    are never deleted.
 *
 * A carry-over stopped at any point is done again, whole, by the next one:
 * until step 4 the directory is still PGlite's, and the copy replaces every
 * row it wrote before.
 *
 * The first process of this version to open such a DATA_DIR (`npm start`, a
 * command) carries it over before anything else (`openCarryingOver`);
 * `npm run db:carry-over` does it alone. PGlite is loaded only then.
 */
import { mkdirSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { restoreBackup, type TableRows, tableChecksums, writeBackupFrom } from "./backup.js";
import { type Database, type OpenOptions, openDatabase, openEmbedded } from "./driver.js";
import { CLUSTER_DIR } from "./cluster-dir.js";
import { isPGliteDir } from "./embedded.js";
import { migrate } from "./migrate.js";
import { claim, LOCK_FILE, ownedMessage } from "./owner.js";

/** Tables a restore moves on (the data version) or empties to be computed again (snapshots): not compared. */
const RECOMPUTED = ["data_version", "school_snapshot", "school_day"];

/** The carry-over cannot go on (one line); nothing was changed in the PGlite files. */
export class CarryOverError extends Error {
  /** The directory is in use by a process of the previous version (its owner lock). */
  constructor(
    message: string,
    readonly inUse = false,
  ) {
    super(message);
  }
}

export interface CarriedOver {
  tables: TableRows;
  /** Where PGlite's files are now. */
  kept: string;
}

/** A DATA_DIR's own entries that are not PGlite's (the new cluster, its log, earlier carry-overs, the lock). */
const notPGlite = (name: string) =>
  name === CLUSTER_DIR ||
  name === "postgres.log" ||
  name === LOCK_FILE ||
  name.startsWith("pglite-") ||
  name.startsWith(`.${CLUSTER_DIR}-`);

/** A database's `query` in node-postgres's shape (`{ rows }`), as the copy reads it. */
const rowsOf =
  (db: Pick<Database, "query">) =>
  async <Row>(sql: string, params?: unknown[]) => ({ rows: await db.query<Row>(sql, params) });

/** Carries `dataDir`'s PGlite database into the embedded PostgreSQL; see the module's comment. */
export async function carryOver(dataDir: string, onPhase: (phase: string) => void = () => undefined): Promise<CarriedOver> {
  if (!isPGliteDir(dataDir)) throw new CarryOverError(`${dataDir} holds no PGlite database: there is nothing to carry over`);
  const claimed = claim(dataDir, "db:carry-over");
  if (!claimed.held) throw new CarryOverError(ownedMessage(dataDir, claimed.owner), true);
  try {
    onPhase("opening PGlite");
    const { openPGlite } = await import("./pglite.js");
    // A directory PGlite cannot read: its one line, as this module's error.
    const old = await openPGlite(dataDir).catch((error: unknown) => {
      throw new CarryOverError(error instanceof Error ? error.message : String(error));
    });
    let tables: TableRows;
    let server: Database | undefined;
    try {
      await migrate(old);
      onPhase("starting PostgreSQL");
      server = await openEmbedded(dataDir, { role: "db:carry-over", besidePGlite: true });
      await migrate(server);
      onPhase("copying");
      const source = { query: rowsOf(old), copyOut: old.copyOut };
      const text = new PassThrough();
      const restored = restoreBackup(server.url, text, false);
      // Whichever side fails stops the other: a writer left waiting for a reader that stopped would wait forever.
      restored.catch(() => text.destroy(new Error("the copy into PostgreSQL stopped")));
      const written = writeBackupFrom(source, text).then(
        (rows) => {
          text.end();
          return rows;
        },
        (error: unknown) => {
          text.destroy(error as Error);
          throw error;
        },
      );
      [tables] = await Promise.all([restored, written]);
      onPhase("checking row for row");
      const [before, after] = await Promise.all([
        tableChecksums(source, RECOMPUTED),
        tableChecksums({ query: rowsOf(server) }, RECOMPUTED),
      ]);
      const differ = Object.keys(before).filter((name) => before[name] !== after[name]);
      if (differ.length || Object.keys(after).length !== Object.keys(before).length) {
        throw new CarryOverError(
          `the copy differs from PGlite's data in ${differ.join(", ") || "its tables"}; PGlite's files are unchanged`,
        );
      }
    } finally {
      await old.close();
      await server?.close();
    }
    onPhase("keeping PGlite's files");
    const kept = join(dataDir, `pglite-${new Date().toISOString().replace(/[:.]/g, "-")}`);
    mkdirSync(kept);
    renameSync(join(dataDir, "PG_VERSION"), join(kept, "PG_VERSION"));
    for (const name of readdirSync(dataDir)) if (!notPGlite(name)) renameSync(join(dataDir, name), join(kept, name));
    return { tables, kept };
  } finally {
    claimed.release();
  }
}

/**
 * Opens the database as `openDatabase` does, carrying a PGlite DATA_DIR over
 * first (telling `onPhase` of each phase) when there is one.
 */
export async function openCarryingOver(options: OpenOptions, onPhase?: (phase: string) => void): Promise<Database> {
  if (!options.databaseUrl && isPGliteDir(options.dataDir ?? "./data")) await carryOver(options.dataDir ?? "./data", onPhase);
  return openDatabase(options);
}
