/**
 * `npm run db:backup -- <file>`: a logical copy of every table, one moment's
 * data (src/db/backup.ts), on the embedded server or DATABASE_URL's, written
 * to a temporary name then renamed, so the file is whole or absent; it works
 * while gateways serve.
 *
 * `npm run db:restore -- <file>`: replaces every table's rows with the copy's
 * in one transaction, also while gateways serve (they answer from the old
 * data until it commits, then from the copy, and forget what they cached).
 */
import { once } from "node:events";
import { createReadStream, createWriteStream, renameSync, rmSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { BackupFormatError, restoreBackup, writeBackup } from "../../db/backup.js";
import { readArgs } from "../args.js";
import { BACKUP, RESTORE } from "../lines/backup.js";
import { answerUsage, type Command, type CommandSpec } from "../command.js";

const backup: Command = async (args, io, withDatabase) => {
  const read = readArgs(BACKUP, args);
  if (!read.ok) return answerUsage(io, read);
  const file = resolve(read.positionals[0]!);
  const partial = `${file}.partial-${process.pid}`;
  return withDatabase(async (db) => {
    try {
      const gzip = createGzip();
      const written = pipeline(gzip, createWriteStream(partial, { flags: "wx", mode: 0o600 }));
      const tables = await writeBackup(db.url, gzip).finally(() => gzip.end());
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
  run: backup,
};

const count = (n: number) => n.toLocaleString("en-US");

const restore: Command = async (args, io, withDatabase) => {
  const read = readArgs(RESTORE, args);
  if (!read.ok) return answerUsage(io, read);
  const file = resolve(read.positionals[0]!);
  // Opened before the database, so that a missing file changes nothing.
  const input = createReadStream(file);
  await once(input, "open");
  return withDatabase(async (db) => {
    try {
      const tables = await restoreBackup(db.url, input);
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
};

export const restoreCommand: CommandSpec = {
  name: "db:restore",
  prefix: "db:restore failed",
  run: restore,
};
