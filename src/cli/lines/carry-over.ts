/**
 * The command line of `npm run db:carry-over` (../commands/carry-over.ts), apart from
 * the command: the entry (src/cli/carry-over.ts) answers `--help` and a usage mistake
 * from it alone, before it loads the command, the configuration and the
 * database's packages.
 */
import type { CommandLine } from "../args.js";

export const LINE = {
  name: "db:carry-over",
  usage: `usage: npm run db:carry-over

Carries the PGlite database in DATA_DIR (written by an earlier version of the
gateway) into the embedded PostgreSQL, in DATA_DIR/postgres: every row, API
keys included, checked row for row. PGlite's files are then kept, whole, in
DATA_DIR/pglite-<time>; nothing is deleted. It refuses while a gateway of the
earlier version has the directory open. (npm start and the other commands
carry such a directory over by themselves, first.)`,
  options: {},
} satisfies CommandLine;
