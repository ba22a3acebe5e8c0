/**
 * `npm run db:backup -- <file>`: a copy of the embedded database, as PGlite's
 * gzipped tar of its directory. It works while a gateway serves (the gateway
 * writes the copy), and is written to a temporary name then renamed, so the
 * file is whole or absent.
 *
 * `npm run db:restore -- <file>`: replaces DATA_DIR with a copy. The database
 * must not be open: with a gateway or a command running it refuses (exit 2).
 * The copy is loaded into a new directory and migrated first; only then is
 * DATA_DIR swapped for it, and the previous directory is kept beside it.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { loadConfig } from "../../config.js";
import { openPGlite } from "../../db/driver.js";
import { migrate } from "../../db/migrate.js";
import { claim, LOCK_FILE, ownedMessage } from "../../db/owner.js";
import { type CommandLine, readArgs } from "../args.js";
import { answerUsage, type Command, type CommandSpec } from "../command.js";

const BACKUP = {
  name: "db:backup",
  usage: `usage: npm run db:backup -- <file>

Writes a copy of the embedded database (a gzipped tar of DATA_DIR) to <file>,
also while a gateway serves.`,
  options: {},
  positionals: { min: 1, max: 1 },
} satisfies CommandLine;

const RESTORE = {
  name: "db:restore",
  usage: `usage: npm run db:restore -- <file>

Replaces DATA_DIR with a copy written by npm run db:backup; the previous
directory is kept beside it. Refuses while a gateway or command has it open.`,
  options: {},
  positionals: { min: 1, max: 1 },
} satisfies CommandLine;

const backup: Command = async (args, io, withDatabase) => {
  const read = readArgs(BACKUP, args);
  if (!read.ok) return answerUsage(io, read);
  const file = resolve(read.positionals[0]!);
  return withDatabase(async (db) => {
    if (!db.dump) throw new Error("db:backup copies the embedded database; for a PostgreSQL server use pg_dump");
    const bytes = Buffer.from(await (await db.dump()).arrayBuffer());
    const partial = `${file}.partial-${process.pid}`;
    writeFileSync(partial, bytes);
    renameSync(partial, file);
    io.out(`backed up the embedded database to ${file} (${bytes.length.toLocaleString("en-US")} bytes)\n`);
    return 0;
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

const restore: Command = async (args, io) => {
  const read = readArgs(RESTORE, args);
  if (!read.ok) return answerUsage(io, read);
  const config = loadConfig();
  if (config.databaseUrl) throw new Error("db:restore replaces the embedded database; for a PostgreSQL server use pg_restore");
  const file = resolve(read.positionals[0]!);
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
