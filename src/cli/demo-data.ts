/**
 * `npm run demo-data -- [file|-] [--seed N] [--days N] [--now ISO]`: writes
 * the deterministic demo export (docs/contract.md §6) to a file, or to standard
 * output by default, ready for `npm run import`.
 */
import { parseArgs } from "node:util";
import { writeDemoExportFile } from "../demo/index.js";

const USAGE = "usage: npm run demo-data -- [file|-] [--seed N] [--days N] [--now 2026-11-20T00:00:00Z]";

function fail(message: string): never {
  process.stderr.write(`demo-data: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const parse = () =>
  parseArgs({
    allowPositionals: true,
    options: { seed: { type: "string" }, days: { type: "string" }, now: { type: "string" } },
  });
let parsed: ReturnType<typeof parse>;
try {
  parsed = parse();
} catch (error) {
  fail((error as Error).message);
}
const { values, positionals } = parsed;
if (positionals.length > 1) fail("give at most one output file");
const integer = (name: string, raw: string | undefined, min: number) => {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min) fail(`--${name} must be an integer of at least ${min}`);
  return Number(raw);
};
const now = values.now === undefined ? undefined : new Date(values.now);
if (now && Number.isNaN(now.getTime())) fail("--now must be an ISO 8601 instant");
const seed = integer("seed", values.seed, 0);
const days = integer("days", values.days, 1);
const stats = await writeDemoExportFile(positionals[0] ?? "-", {
  ...(seed !== undefined ? { seed } : {}),
  ...(days !== undefined ? { days } : {}),
  ...(now ? { now } : {}),
});
if ((positionals[0] ?? "-") !== "-") process.stderr.write(`demo-data: wrote ${stats.bytes.toLocaleString("en")} bytes\n`);
