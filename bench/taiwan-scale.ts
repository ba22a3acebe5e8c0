/**
 * Benchmark at the seed's Taiwan scale: 1,215 weather and 84 air stations,
 * hourly for 90 days (about 2.8 million observations), 100 schools.
 *
 * It streams the synthetic export through the real importer (measuring time
 * and peak memory), then times through the gateway, without sockets:
 *   - one school's 90-day history   GET /api/v1/environment/schools/{id}/history?days=90
 *   - the 100-school snapshot list  GET /api/v1/environment/snapshot?limit=100
 *
 *   npm run bench:environment                    # PostgreSQL at TEST_DATABASE_URL
 *   npm run bench:environment -- --embedded      # the embedded default's PostgreSQL
 *   npm run bench:environment -- --days 30       # a smaller run
 */
import { Readable } from "node:stream";
import { type CommandLine, commandLine, integerOption } from "../src/cli/args.js";
import { benchReport } from "./report.js";

const report = benchReport("bench:environment");

const LINE = {
  name: "bench:environment",
  usage: `usage: npm run bench:environment -- [--embedded] [--days N] [--runs N]

Imports a synthetic Taiwan-scale export (1,215 weather and 84 air stations,
hourly for --days days, default 90) into PostgreSQL at TEST_DATABASE_URL (or
the embedded default's with --embedded), then times the history and snapshot operations over
--runs runs (default 20).`,
  options: {
    embedded: { type: "boolean", default: false },
    days: { type: "string", default: "90" },
    runs: { type: "string", default: "20" },
  },
} satisfies CommandLine;
const { values } = commandLine(LINE);
const DAYS = integerOption(LINE, "days", values.days, 1);
const RUNS = integerOption(LINE, "runs", values.runs, 1);

// Loaded once the command line is read: --help and a wrong option answer without them.
const { createReadClient } = await import("../src/db/client.js");
const { migrate } = await import("../src/db/migrate.js");
const { Rng } = await import("../src/demo/random.js");
const { importExport } = await import("../src/import/apply.js");
const { createGateway } = await import("../src/server.js");
const { benchDatabase } = await import("./database.js");
const { taiwanScale } = await import("../src/demo/taiwan-scale.js");
const SCHOOLS = 100;
const NOW = new Date(Date.UTC(2026, 10, 20, 12));

function* exportChunks(): Generator<string> {
  const random = new Rng(7);
  const r = () => random.next();
  const taiwan = taiwanScale(r);
  const schools = taiwan.schools(SCHOOLS, 1, "S");
  const stations = taiwan.stations();
  yield JSON.stringify({
    format: "platform-export/1",
    exported_at: NOW.toISOString(),
    universities: schools,
    courses: [],
    papers: [],
    conferences: [],
    hub_packs: [],
    stations,
  }).slice(0, -1);
  yield ',"observations":[';
  const hours = DAYS * 24;
  const start = NOW.getTime() - (hours - 1) * 3_600_000;
  let first = true;
  for (const s of stations) {
    let batch = "";
    for (let h = 0; h < hours; h++) {
      const at = new Date(start + h * 3_600_000).toISOString();
      const row =
        s.kind === "weather"
          ? `{"station_id":"${s.id}","observed_at":"${at}","temp_c":${(20 + 6 * Math.sin(h / 3.8) + r()).toFixed(1)},"rh":${(70 + 20 * r()).toFixed(0)},"precip_mm":${r() < 0.1 ? (r() * 4).toFixed(1) : 0}}`
          : `{"station_id":"${s.id}","observed_at":"${at}","pm25_ugm3":${(10 + 20 * r()).toFixed(1)},"pm10_ugm3":${(20 + 30 * r()).toFixed(0)},"aqi":${(30 + 60 * r()).toFixed(0)}}`;
      batch += (first ? "" : ",") + row;
      first = false;
    }
    yield batch;
  }
  yield "]}";
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function main() {
  report.progress.phase("opening");
  const db = await benchDatabase(values.embedded);
  report.progress.phase("migrating");
  await migrate(db);
  const t0 = performance.now();
  const summary = await importExport(db, Readable.from(exportChunks()), { progress: report.progress });
  const importSeconds = (performance.now() - t0) / 1000;
  // The process's high-water mark (kB), embedded database included.
  const peakRss = process.resourceUsage().maxRSS * 1024;
  report.say(`database: ${db.kind}`);
  report.say(
    `import: ${summary.observations.toLocaleString("en")} observations, ${summary.stations} stations, ${summary.universities} schools in ${importSeconds.toFixed(1)} s; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
  );

  const prisma = createReadClient(db);
  const gateway = createGateway({ db, prisma, auth: false, now: () => NOW });
  const time = async (label: string, path: string, check: (body: any) => void) => {
    report.progress.phase(`timing ${label}`, { total: RUNS + 2, unit: "steps" });
    const samples: number[] = [];
    for (let i = 0; i < RUNS + 2; i++) {
      report.progress.set(i);
      const started = performance.now();
      const response = await gateway.fetch(`http://bench${path}`);
      const body = await response.json();
      const ms = performance.now() - started;
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
      check(body);
      if (i >= 2) samples.push(ms); // two warm-up runs
    }
    samples.sort((a, b) => a - b);
    report.say(
      `${label}: median ${percentile(samples, 0.5).toFixed(0)} ms, p95 ${percentile(samples, 0.95).toFixed(0)} ms, max ${samples.at(-1)!.toFixed(0)} ms over ${RUNS} runs`,
    );
  };
  await time("history, one school, 90 days", `/api/v1/environment/schools/1/history?days=${Math.min(90, DAYS)}`, (b) => {
    if (b.data.daily.length !== Math.min(90, DAYS)) throw new Error(`expected ${DAYS} days, got ${b.data.daily.length}`);
  });
  await time("snapshot list, 100 schools", "/api/v1/environment/snapshot?limit=100", (b) => {
    if (b.items.length !== 100 || b.items.some((i: any) => i.realtime.aqi === null)) throw new Error("incomplete snapshot list");
  });
  await prisma.$disconnect();
  await db.close();
  await db.drop();
}

await main();
await report.finish();
