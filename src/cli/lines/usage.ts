/**
 * The command line of `npm run usage` (../commands/usage.ts), apart from
 * the command: the entry (src/cli/usage.ts) answers `--help` and a usage mistake
 * from it alone, before it loads the command, the configuration and the
 * database's packages.
 */
import type { CommandLine } from "../args.js";

export const LINE = {
  name: "usage",
  usage: `usage: npm run usage -- [--since YYYY-MM-DD | --days N] [--key ID] [--coordinate C] [--deprecated] [--json]

Lists what the API keys used since a UTC date (default: 30 days ago): each
coordinate (a GraphQL field like EnvironmentDay.dateTaipei, an argument like
Query.courses(q:), an enum value, a REST route or parameter like
/api/v1/courses?q, an MCP tool like "MCP list_courses", an entry like /graphql)
with its requests, the keys that used it and its last use.

  --deprecated    every deprecated coordinate, used or not, with the keys that used it
  --key ID        only what key ID used
  --coordinate C  only C, with the keys that used it
  --json          one JSON document (the removal check reads it: docs/usage.md)`,
  options: {
    since: { type: "string" },
    days: { type: "string" },
    key: { type: "string" },
    coordinate: { type: "string" },
    deprecated: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
} satisfies CommandLine;
