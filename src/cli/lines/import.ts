/**
 * The command line of `npm run import` (../commands/import.ts), apart from
 * the command: the entry (src/cli/import.ts) answers `--help` and a usage mistake
 * from it alone, before it loads the command, the configuration and the
 * database's packages.
 */
import type { CommandLine } from "../args.js";

export const LINE = {
  name: "import",
  usage: `usage: npm run import -- <export.json | ->

Imports a platform export (- reads standard input) into the configured
database, migrating it first. All or nothing: a refused export changes nothing.`,
  options: {},
  positionals: { min: 1, max: 1 },
} satisfies CommandLine;
