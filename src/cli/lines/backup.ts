/**
 * The command lines of `npm run db:backup` and `npm run db:restore` (../commands/backup.ts), apart from
 * the command: the entry (src/cli/backup.ts and src/cli/restore.ts) answers `--help` and a usage mistake
 * from it alone, before it loads the command, the configuration and the
 * database's packages.
 */
import type { CommandLine } from "../args.js";

export const BACKUP = {
  name: "db:backup",
  usage: `usage: npm run db:backup -- <file>

Writes a copy of the database to <file>, also while gateways serve: every
table's rows, gzipped.`,
  options: {},
  positionals: { min: 1, max: 1 },
} satisfies CommandLine;

export const RESTORE = {
  name: "db:restore",
  usage: `usage: npm run db:restore -- <file>

Replaces the database's rows with a copy written by npm run db:backup, in one
transaction, also while gateways serve.`,
  options: {},
  positionals: { min: 1, max: 1 },
} satisfies CommandLine;
