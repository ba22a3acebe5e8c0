/**
 * The command line of `npm run ingest` (../commands/ingest.ts), apart from
 * the command: the entry (src/cli/ingest.ts) answers `--help` and a usage mistake
 * from it alone, before it loads the command, the configuration and the
 * database's packages.
 */
import type { CommandLine } from "../args.js";

export const LINE = {
  name: "ingest",
  usage: `usage: npm run ingest -- --source cwa|moenv|nws|airnow [--sites <file>] <payload.json | - | --fetch>

Stores one payload of an agency's own JSON (- reads standard input): CWA
O-A0001-001, MOENV aqx_p_432, api.weather.gov observations, or AirNow current
observations, whose site positions come from AirNow's monitoring-site list
(--sites, required with airnow). --fetch gets the payload from the agency's
URL with its API key (INGEST_<SOURCE>_URL, INGEST_<SOURCE>_KEY). A bad record
is skipped and reported; the rest is stored. The same payload twice changes
nothing.`,
  options: {
    source: { type: "string" },
    sites: { type: "string" },
    fetch: { type: "boolean", default: false },
  },
  positionals: { min: 0, max: 1 },
} satisfies CommandLine;
