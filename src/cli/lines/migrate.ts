/**
 * The command line of `npm run db:migrate` (../commands/migrate.ts), apart from
 * the command: the entry (src/cli/migrate.ts) answers `--help` and a usage mistake
 * from it alone, before it loads the command, the configuration and the
 * database's packages.
 */
import type { CommandLine } from "../args.js";

export const LINE = {
  name: "db:migrate",
  usage: `usage: npm run db:migrate

Applies the pending migrations of the configured database (DATABASE_URL, or
the embedded one in DATA_DIR).`,
  options: {},
} satisfies CommandLine;
