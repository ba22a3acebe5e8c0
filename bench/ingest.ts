/**
 * The agency feeds at the seed's Taiwan scale: one day of hourly payloads of
 * 1,215 CWA weather stations and 84 MOENV air stations (24 + 24 payloads,
 * 31,176 observations), ingested one payload at a time as an operator's
 * hourly job would, beside the platform-export import of the same stations
 * and hours in one document. Each is measured in a process of its own, so
 * that its peak RSS is its own: rows per second and peak memory, and the
 * time of one hourly payload, new and again (unchanged).
 *
 *   npm run bench:ingest                           # PostgreSQL at TEST_DATABASE_URL, and the embedded default
 *   npm run bench:ingest -- --databases embedded   # one of them
 *   npm run bench:ingest -- --hours 6            # a smaller run
 */
import { execFileSync } from "node:child_process";
import { Readable } from "node:stream";
import { type CommandLine, commandLine, integerOption } from "../src/cli/args.js";
import type { Feed } from "../src/ingest/feed.js";
import { benchReport } from "./report.js";

const LINE = {
  name: "bench:ingest",
  usage: `usage: npm run bench:ingest -- [--databases postgres,embedded] [--hours N]

Ingests --hours (default 24) hourly CWA and MOENV payloads at the seed's Taiwan
scale (1,215 and 84 stations), and imports the same rows as one platform
export, each in a process of its own; prints rows per second and peak RSS.`,
  options: {
    databases: { type: "string", default: "postgres,embedded" },
    hours: { type: "string", default: "24" },
    /** Internal: run one measurement in this process and print it as JSON. */
    measure: { type: "string" },
  },
} satisfies CommandLine;
const { values } = commandLine(LINE);

// Loaded once the command line is read: --help and a wrong option answer without them.
const { migrate } = await import("../src/db/migrate.js");
const { Rng } = await import("../src/demo/random.js");
const { importExport } = await import("../src/import/apply.js");
const { exportDocument } = await import("../src/import/records.js");
const { readCwa } = await import("../src/ingest/cwa.js");
const { readMoenv } = await import("../src/ingest/moenv.js");
const { storeFeed } = await import("../src/ingest/store.js");
const { cwaPayload, moenvWrapped } = await import("../test/ingest/payloads.js");
const { benchDatabase } = await import("./database.js");
const { taiwanScale } = await import("../src/demo/taiwan-scale.js");
const HOURS = integerOption(LINE, "hours", values.hours, 1);
const SCHOOLS = 100;
const NOW = Date.UTC(2026, 10, 20, 12);
const HOUR = 3_600_000;

/** What one measurement found. */
interface Measured {
  rows: number;
  seconds: number;
  peakRssMiB: number;
  /** Ingest only: median ms of one hourly payload of each agency, and of the last CWA payload again. */
  cwaMs?: number;
  moenvMs?: number;
  againMs?: number;
}

const world = () => {
  const random = new Rng(7);
  const taiwan = taiwanScale(() => random.next());
  return { schools: taiwan.schools(SCHOOLS, 1, "S"), stations: taiwan.stations(), random };
};

/** Each hour's payloads, in the agencies' formats, as the text an operator's job would receive. */
function* payloads(): Generator<{ source: "cwa" | "moenv"; text: string }> {
  const { stations, random } = world();
  const r = () => random.next();
  const weather = stations.filter((s) => s.kind === "weather");
  const air = stations.filter((s) => s.kind === "air");
  const totals = new Map<string, number>();
  for (let h = 0; h < HOURS; h++) {
    const at = NOW - (HOURS - 1 - h) * HOUR;
    const taipei = new Date(at + 8 * HOUR).toISOString();
    const local = `${taipei.slice(0, 19)}+08:00`;
    const cwa = cwaPayload(
      weather.map((s) => {
        // The running total restarts at local midnight: the first hour of a day is its own amount.
        const total = (taipei.slice(11, 13) === "01" ? 0 : (totals.get(s.id) ?? 0)) + (r() < 0.1 ? Math.round(r() * 40) / 10 : 0);
        totals.set(s.id, total);
        return {
          id: s.id,
          time: local,
          wgs84: [s.latitude, s.longitude] as [number, number],
          temp: Math.round((20 + 6 * Math.sin(h / 3.8) + r()) * 10) / 10,
          rh: Math.round(70 + 20 * r()),
          precipTotal: Math.round(total * 10) / 10,
        };
      }),
    );
    yield { source: "cwa", text: JSON.stringify(cwa) };
    const moenv = moenvWrapped(
      air.map((s) => ({
        siteid: s.id,
        publishtime: `${taipei.slice(0, 10).replaceAll("-", "/")} ${taipei.slice(11, 19)}`,
        latitude: s.latitude.toFixed(6),
        longitude: s.longitude.toFixed(6),
        aqi: String(Math.round(30 + 60 * r())),
        pm25: (10 + 20 * r()).toFixed(1),
        pm10: String(Math.round(20 + 30 * r())),
      })),
    );
    yield { source: "moenv", text: JSON.stringify(moenv) };
  }
}

const read = (source: "cwa" | "moenv", text: string): Feed => (source === "cwa" ? readCwa : readMoenv)(JSON.parse(text));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const peakRssMiB = () => (process.resourceUsage().maxRSS * 1024) / 2 ** 20;

async function measureIngest(embedded: boolean): Promise<Measured> {
  const db = await benchDatabase(embedded);
  try {
    await migrate(db);
    const { schools } = world();
    await importExport(db, Readable.from([JSON.stringify(exportDocument(new Date(NOW), { universities: schools }))]));
    const times = { cwa: [] as number[], moenv: [] as number[] };
    let rows = 0;
    let seconds = 0;
    let last = "";
    for (const { source, text } of payloads()) {
      const started = performance.now();
      const summary = await storeFeed(db, read(source, text));
      const ms = performance.now() - started;
      if (summary.problems.length > 0) throw new Error(`${source}: ${summary.problems[0]!.detail}`);
      times[source].push(ms);
      rows += summary.stored;
      seconds += ms / 1000;
      if (source === "cwa") last = text;
    }
    const again = performance.now();
    const unchanged = await storeFeed(db, read("cwa", last));
    const againMs = performance.now() - again;
    if (unchanged.stored !== 0) throw new Error(`the same payload again stored ${unchanged.stored} rows`);
    return { rows, seconds, peakRssMiB: peakRssMiB(), cwaMs: median(times.cwa), moenvMs: median(times.moenv), againMs };
  } finally {
    await db.close();
    await db.drop();
  }
}

/** The same stations and hours as one platform export, streamed. */
function* exportChunks(): Generator<string> {
  const { schools, stations } = world();
  const { observations: _, ...head } = exportDocument(new Date(NOW), {
    universities: schools,
    stations: stations.map((s) => (s.kind === "air" ? { ...s, id: `moenv-${s.id}` } : s)),
  });
  yield JSON.stringify(head).slice(0, -1);
  yield ',"observations":[';
  let first = true;
  for (const { source, text } of payloads()) {
    const rows = read(source, text).items.map((i) => JSON.stringify(i.observation));
    yield (first ? "" : ",") + rows.join(",");
    first = false;
  }
  yield "]}";
}

async function measureImport(embedded: boolean): Promise<Measured> {
  const db = await benchDatabase(embedded);
  try {
    await migrate(db);
    const started = performance.now();
    const summary = await importExport(db, Readable.from(exportChunks()));
    return { rows: summary.observations, seconds: (performance.now() - started) / 1000, peakRssMiB: peakRssMiB() };
  } finally {
    await db.close();
    await db.drop();
  }
}

if (values.measure) {
  const [what, database] = values.measure.split(":");
  const measured = await (what === "ingest" ? measureIngest : measureImport)(database === "embedded");
  process.stdout.write(`${JSON.stringify(measured)}\n`);
} else {
  const report = benchReport("bench:ingest");
  const databases = values.databases.split(",").filter((d) => d === "postgres" || d === "embedded");
  report.say(`${HOURS} hours of 1,215 CWA and 84 MOENV stations (${(HOURS * 1299).toLocaleString("en")} observations), ${SCHOOLS} schools`);
  report.say("| database | path | observations | seconds | rows/s | peak RSS | one payload, median | the same payload again |");
  report.say("| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const database of databases) {
    for (const what of ["ingest", "import"] as const) {
      report.progress.phase(`${what} on ${database}`);
      const out = execFileSync(
        process.execPath,
        [...process.execArgv, import.meta.filename, "--hours", String(HOURS), "--measure", `${what}:${database}`],
        {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "inherit"],
        },
      );
      const m = JSON.parse(out.trim().split("\n").pop()!) as Measured;
      const path = what === "ingest" ? `npm run ingest, ${HOURS * 2} payloads` : "npm run import, one export";
      const payload = m.cwaMs === undefined ? "—" : `CWA ${m.cwaMs.toFixed(0)} ms, MOENV ${m.moenvMs!.toFixed(0)} ms`;
      const again = m.againMs === undefined ? "—" : `CWA ${m.againMs.toFixed(0)} ms`;
      report.say(
        `| ${database} | ${path} | ${m.rows.toLocaleString("en")} | ${m.seconds.toFixed(1)} | ${Math.round(m.rows / m.seconds).toLocaleString("en")} | ${m.peakRssMiB.toFixed(0)} MiB | ${payload} | ${again} |`,
      );
    }
  }
  await report.finish();
}
