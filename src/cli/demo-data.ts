/**
 * `npm run demo-data -- [file|-] [--dataset demo|taiwan] [--seed N] [--days N]
 * [--now ISO] [--courses N]`: writes a deterministic export (docs/contract.md
 * §6) to a file, or to standard output by default, ready for `npm run import`:
 * the demo data, or the `taiwan` dataset (src/demo/taiwan.ts), a million
 * public courses by default.
 */
import { demoExportChunks, writeExportFile } from "../demo/index.js";
import { type CommandLine, commandLine, integerOption } from "./args.js";

const LINE = {
  name: "demo-data",
  usage: `usage: npm run demo-data -- [file|-] [--dataset demo|taiwan] [--seed N] [--days N]
                              [--now 2026-11-20T00:00:00Z] [--courses N]

Writes a deterministic export (to standard output by default), ready for
npm run import: the demo data (15 schools, 2,000 courses, 35 days), or with
--dataset taiwan the seed's whole catalogue (160 schools, --courses public
courses, default 1,000,000, over 10 semesters; 3,000 Packs; 1,299 stations
with --days of hourly observations, default 90).`,
  options: {
    dataset: { type: "string", default: "demo" },
    seed: { type: "string" },
    days: { type: "string" },
    now: { type: "string" },
    courses: { type: "string" },
  },
  positionals: { min: 0, max: 1 },
} satisfies CommandLine;

function fail(message: string): never {
  process.stderr.write(`demo-data: ${message}\n${LINE.usage}\n`);
  process.exit(2);
}

const { values, positionals } = commandLine(LINE);
const now = values.now === undefined ? undefined : new Date(values.now);
if (now && Number.isNaN(now.getTime())) fail("--now must be an ISO 8601 instant");
if (values.dataset !== "demo" && values.dataset !== "taiwan") fail("--dataset is demo or taiwan");
if (values.dataset === "demo" && values.courses !== undefined) fail("--courses is an option of --dataset taiwan");
const seed = integerOption(LINE, "seed", values.seed, 0);
const path = positionals[0] ?? "-";
const options = {
  ...(seed !== undefined ? { seed } : {}),
  ...(now ? { now } : {}),
};
let chunks: Iterable<string>;
if (values.dataset === "taiwan") {
  const days = integerOption(LINE, "days", values.days, 0);
  const courses = integerOption(LINE, "courses", values.courses, 0);
  const { taiwanExportChunks } = await import("../demo/taiwan.js");
  chunks = taiwanExportChunks({ ...options, ...(days !== undefined ? { days } : {}), ...(courses !== undefined ? { courses } : {}) });
} else {
  const days = integerOption(LINE, "days", values.days, 1);
  chunks = demoExportChunks({ ...options, ...(days !== undefined ? { days } : {}) });
}
const stats = await writeExportFile(path, chunks);
if (path !== "-") process.stderr.write(`demo-data: wrote ${stats.bytes.toLocaleString("en")} bytes\n`);
