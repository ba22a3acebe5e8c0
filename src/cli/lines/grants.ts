/**
 * The command line of `npm run db:grants` (../commands/grants.ts), apart from
 * the command: the entry (src/cli/grants.ts) answers `--help` and a usage mistake
 * from it alone, before it loads the command, the configuration and the
 * database's packages.
 */
import type { CommandLine } from "../args.js";

export const LINE = {
  name: "db:grants",
  usage: `usage: npm run db:grants -- --role NAME [--database NAME]

Prints the GRANT statements that give role NAME what the gateway needs to
serve (DATABASE_URL) when another role owns the schema (DATABASE_OWNER_URL):
SELECT on what answers read, except join codes and Pack payloads; writes only
on what serving keeps (keys' last use, sessions, usage counts, environment
snapshots). Run them as the schema's owner, after its migrations:

  npm run -s db:grants -- --role gateway | psql "$DATABASE_OWNER_URL"

  --role NAME      the serving role (DATABASE_URL's user)
  --database NAME  the database to grant CONNECT on (default: DATABASE_URL's)`,
  options: {
    role: { type: "string" },
    database: { type: "string" },
  },
} satisfies CommandLine;
