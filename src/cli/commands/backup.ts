/**
 * `npm run db:backup -- <file>`: a copy of the database, written to a
 * temporary name then renamed, so the file is whole or absent; it works while
 * gateways serve.
 *
 * - On PostgreSQL (the embedded server, or DATABASE_URL): a logical copy of
 *   every table, one moment's data (src/db/backup.ts).
 * - On a DATA_DIR still written by PGlite: PGlite's gzipped tar of its
 *   directory (the gateway that owns it writes the copy).
 *
 * `npm run db:restore -- <file>`: brings a copy back.
 *
 * - On PostgreSQL: replaces every table's rows with the copy's in one
 *   transaction, also while gateways serve (they answer from the old data
 *   until it commits, then from the copy, and forget what they cached).
 * - On a PGlite DATA_DIR: replaces the directory. The database must not be
 *   open: with a gateway or a command running it refuses (exit 2). The copy is
 *   loaded into a new directory and migrated first; only then is DATA_DIR
 *   swapped for it, and the previous directory is kept beside it.
 */
import { once } from "node:events";
import { createReadStream, createWriteStream, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { loadConfig } from "../../config.js";
import { BackupFormatError, restoreBackup, writeBackup } from "../../db/backup.js";
import { isPGliteDir } from "../../db/embedded.js";
import { openPGlite } from "../../db/driver.js";
import { migrate } from "../../db/migrate.js";
import { claim, LOCK_FILE, ownedMessage } from "../../db/owner.js";
import { type CommandLine, readArgs } from "../args.js";
import { answerUsage, type Command, type CommandSpec } from "../command.js";

const BACKUP = {
  name: "db:backup",
  usage: `usage: npm run db:backup -- <file>

Writes a copy of the database to <file>, also while gateways serve: every
table's rows, gzipped (a PGlite DATA_DIR: a gzipped tar of it).`,
  options: {},
  positionals: { min: 1, max: 1 },
} satisfies CommandLine;

const RESTORE = {
  name: "db:restore",
  usage: `usage: npm run db:restore -- <file>

Replaces the database's rows with a copy written by npm run db:backup, in one
transaction, also while gateways serve. (A PGlite DATA_DIR is replaced whole,
the previous directory kept beside it; it refuses while a gateway or command
has it open.)`,
  options: {},
  positionals: { min: 1, max: 1 },
} satisfies CommandLine;

const backup: Command = async (args, io, withDatabase) => {
  const read = readArgs(BACKUP, args);
  if (!read.ok) return answerUsage(io, read);
  const file = resolve(read.positionals[0]!);
  const partial = `${file}.partial-${process.pid}`;
  return withDatabase(async (db) => {
    if (db.dump) {
      const bytes = Buffer.from(await (await db.dump()).arrayBuffer());
      writeFileSync(partial, bytes);
      renameSync(partial, file);
      io.out(`backed up the embedded database to ${file} (${bytes.length.toLocaleString("en-US")} bytes)\n`);
      return 0;
    }
    try {
      const gzip = createGzip();
      const written = pipeline(gzip, createWriteStream(partial, { flags: "wx", mode: 0o600 }));
      const tables = await writeBackup(db.url!, gzip).finally(() => gzip.end());
      await written;
      renameSync(partial, file);
      const rows = tables.reduce((sum, t) => sum + t.rows, 0);
      const bytes = statSync(file).size;
      io.out(`backed up ${count(rows)} rows of ${tables.length} tables to ${file} (${count(bytes)} bytes)\n`);
      return 0;
    } finally {
      rmSync(partial, { force: true });
    }
  });
};

export const backupCommand: CommandSpec = {
  name: "db:backup",
  prefix: "db:backup failed",
  line: BACKUP,
  run: backup,
  // The gateway that writes the copy resolves the path as the command line would.
  sendArgs: (args) => {
    const read = readArgs(BACKUP, args);
    return read.ok ? [resolve(read.positionals[0]!)] : args;
  },
};

const count = (n: number) => n.toLocaleString("en-US");

const restore: Command = async (args, io, withDatabase) => {
  const read = readArgs(RESTORE, args);
  if (!read.ok) return answerUsage(io, read);
  const config = loadConfig();
  const file = resolve(read.positionals[0]!);
  if (config.databaseUrl || !isPGliteDir(config.dataDir)) {
    // Opened before the database, so that a missing file changes nothing.
    const input = createReadStream(file);
    await once(input, "open");
    return withDatabase(async (db) => {
      try {
        const tables = await restoreBackup(db.url!, input);
        const rows = tables.reduce((sum, t) => sum + t.rows, 0);
        io.out(`restored ${count(rows)} rows of ${tables.length} tables from ${file}\n`);
        return 0;
      } catch (error) {
        if (!(error instanceof BackupFormatError)) throw error;
        io.err(`db:restore failed: ${file}: ${error.message}; nothing was changed\n`);
        return 1;
      } finally {
        input.destroy();
      }
    });
  }
  const copy = new Blob([readFileSync(file)]);
  const dataDir = resolve(config.dataDir);
  const claimed = existsSync(dataDir) ? claim(dataDir, "db:restore") : undefined;
  if (claimed && !claimed.held) {
    io.err(`db:restore: ${ownedMessage(dataDir, claimed.owner)}\n`);
    return 2;
  }
  const fresh = `${dataDir}.restoring-${process.pid}`;
  try {
    rmSync(fresh, { recursive: true, force: true });
    const db = await openPGlite(fresh, copy);
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    // A copy taken while a gateway served holds that gateway's lock: not this directory's owner.
    rmSync(`${fresh}/${LOCK_FILE}`, { force: true });
    const kept = `${dataDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    if (existsSync(dataDir)) renameSync(dataDir, kept);
    renameSync(fresh, dataDir);
    rmSync(`${kept}/${LOCK_FILE}`, { force: true });
    io.out(`restored ${file} into ${dataDir}${existsSync(kept) ? `; the previous directory is kept as ${kept}` : ""}\n`);
    return 0;
  } finally {
    rmSync(fresh, { recursive: true, force: true });
    if (claimed?.held) claimed.release();
  }
};

export const restoreCommand: CommandSpec = {
  name: "db:restore",
  prefix: "db:restore failed",
  line: RESTORE,
  run: restore,
  exclusive: true,
};
