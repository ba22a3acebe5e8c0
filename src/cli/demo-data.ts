/**
 * `npm run demo-data -- [file|-] [--seed N] [--days N] [--now ISO]`: writes
 * the deterministic demo export (docs/contract.md §6) to a file, or to standard
 * output by default, ready for `npm run import`.
 */
import { writeDemoExportFile } from "../demo/index.js";
import { type CommandLine, commandLine, integerOption } from "./args.js";

const LINE = {
  name: "demo-data",
  usage: `usage: npm run demo-data -- [file|-] [--seed N] [--days N] [--now 2026-11-20T00:00:00Z]

Writes the deterministic demo export (to standard output by default), ready
for npm run import.`,
  options: { seed: { type: "string" }, days: { type: "string" }, now: { type: "string" } },
  positionals: { min: 0, max: 1 },
} satisfies CommandLine;

function fail(message: string): never {
  process.stderr.write(`demo-data: ${message}\n${LINE.usage}\n`);
  process.exit(2);
}

const { values, positionals } = commandLine(LINE);
const now = values.now === undefined ? undefined : new Date(values.now);
if (now && Number.isNaN(now.getTime())) fail("--now must be an ISO 8601 instant");
const seed = integerOption(LINE, "seed", values.seed, 0);
const days = integerOption(LINE, "days", values.days, 1);
const stats = await writeDemoExportFile(positionals[0] ?? "-", {
  ...(seed !== undefined ? { seed } : {}),
  ...(days !== undefined ? { days } : {}),
  ...(now ? { now } : {}),
});
if ((positionals[0] ?? "-") !== "-") process.stderr.write(`demo-data: wrote ${stats.bytes.toLocaleString("en")} bytes\n`);
