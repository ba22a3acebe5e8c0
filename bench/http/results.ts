/** The bench's results: medians of the rounds, ratios to the baselines, and the tables printed and put in docs/performance.md. */
import { writeFileSync } from "node:fs";
import type { Round } from "./wrk.js";

type Measured = Round & { cpuMsPerRequest: number; peakMiB: number; serverMiB?: number; dbCpuMsPerRequest?: number };

export interface Result {
  database: "postgres" | "embedded";
  dataset: string;
  name: string;
  connections: number;
  gateway: Figures;
  bare?: Figures;
  static?: Figures;
  /** The gateway with its answer cache on. */
  cached?: Figures;
  /** The gateway with two worker processes (WEB_CONCURRENCY=2). */
  workers?: Figures;
  /** The gateway with its answer cache off and OpenTelemetry traces on, every span exported. */
  traced?: Figures;
  /** PostGraphile v5 on the same database (peer.ts), answering the same rows. */
  peer?: Figures;
  /** Gateway requests per second over the bare handler's, and over the static one's. */
  ratios: {
    bare?: number;
    static?: number;
    p99OverBare?: number;
    cachedOverStatic?: number;
    workersOverOne?: number;
    tracedOverOff?: number;
    tracedP50OverOff?: number;
    /** The gateway's requests per second over PostGraphile's. */
    peer?: number;
    /** The gateway's CPU per request, its process and the database's backends together, over PostGraphile's. */
    cpuOverPeer?: number;
  };
}

/** Medians over the rounds. */
export interface Figures {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuMsPerRequest: number;
  peakMiB: number;
  /** The database server's memory (PSS) at the end of a round, the largest; absent where it could not be read. */
  serverMiB?: number;
  /** The database's backends' CPU per request (all of them, while only this server was driven); absent where it could not be read. */
  dbCpuMsPerRequest?: number;
}

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const figures = (rounds: Measured[]): Figures => ({
  perSecond: median(rounds.map((r) => r.perSecond)),
  p50Ms: median(rounds.map((r) => r.p50Ms)),
  p99Ms: median(rounds.map((r) => r.p99Ms)),
  cpuMsPerRequest: median(rounds.map((r) => r.cpuMsPerRequest)),
  peakMiB: Math.max(...rounds.map((r) => r.peakMiB)),
  ...(rounds.some((r) => r.serverMiB !== undefined) ? { serverMiB: Math.max(...rounds.map((r) => r.serverMiB ?? 0)) } : {}),
  ...(rounds.every((r) => r.dbCpuMsPerRequest !== undefined) ? { dbCpuMsPerRequest: median(rounds.map((r) => r.dbCpuMsPerRequest!)) } : {}),
});

/** CPU per request of a server and its database's backends together. */
const allCpu = (f: Figures) => f.cpuMsPerRequest + (f.dbCpuMsPerRequest ?? 0);

export function summarize(
  what: Pick<Result, "database" | "dataset" | "name" | "connections">,
  gateway: Measured[],
  bare: Measured[] | undefined,
  fixed: Measured[] | undefined,
  cached: Measured[] | undefined,
  workers: Measured[] | undefined,
  traced?: Measured[] | undefined,
  peer?: Measured[] | undefined,
): Result {
  const g = figures(gateway);
  const b = bare ? figures(bare) : undefined;
  const s = fixed ? figures(fixed) : undefined;
  const c = cached ? figures(cached) : undefined;
  const w = workers ? figures(workers) : undefined;
  const t = traced ? figures(traced) : undefined;
  const p = peer ? figures(peer) : undefined;
  return {
    ...what,
    gateway: g,
    ...(b ? { bare: b } : {}),
    ...(s ? { static: s } : {}),
    ...(c ? { cached: c } : {}),
    ...(w ? { workers: w } : {}),
    ...(t ? { traced: t } : {}),
    ...(p ? { peer: p } : {}),
    ratios: {
      ...(p ? { peer: g.perSecond / p.perSecond, cpuOverPeer: allCpu(g) / allCpu(p) } : {}),
      ...(s ? { static: g.perSecond / s.perSecond } : {}),
      ...(s && c ? { cachedOverStatic: c.perSecond / s.perSecond } : {}),
      ...(w ? { workersOverOne: w.perSecond / g.perSecond } : {}),
      ...(t ? { tracedOverOff: t.perSecond / g.perSecond, tracedP50OverOff: t.p50Ms / g.p50Ms } : {}),
      ...(b ? { bare: g.perSecond / b.perSecond, p99OverBare: g.p99Ms / b.p99Ms } : {}),
    },
  };
}

const COLUMNS = [
  "db",
  "data",
  "case",
  "c",
  "req/s",
  "p50 ms",
  "p99 ms",
  "CPU ms/req",
  "peak MiB",
  "server MiB",
  "bare req/s",
  "bare p99",
  "static req/s",
  "÷bare",
  "p99÷bare",
  "÷static",
  "cached req/s",
  "cached÷static",
  "2 workers req/s",
  "2w÷1w",
  "traced req/s",
  "traced÷off",
  "traced p50÷off",
  "db CPU ms/req",
  "peer req/s",
  "peer p50",
  "peer p99",
  "peer CPU ms/req",
  "peer db CPU ms/req",
  "÷peer",
  "CPU÷peer",
];

const n = (x: number | undefined, digits = 0) =>
  x === undefined || !Number.isFinite(x)
    ? "–"
    : x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Each result's cells, in the order of COLUMNS. */
function cells(results: Result[]): string[][] {
  return results.map((r) => [
    { postgres: "PG", embedded: "embedded" }[r.database],
    r.dataset,
    r.name,
    String(r.connections),
    n(r.gateway.perSecond),
    n(r.gateway.p50Ms, 1),
    n(r.gateway.p99Ms, 1),
    n(r.gateway.cpuMsPerRequest, 2),
    n(r.gateway.peakMiB),
    n(r.gateway.serverMiB),
    n(r.bare?.perSecond),
    n(r.bare?.p99Ms, 1),
    n(r.static?.perSecond),
    n(r.ratios.bare, 2),
    n(r.ratios.p99OverBare, 2),
    n(r.ratios.static, 3),
    n(r.cached?.perSecond),
    n(r.ratios.cachedOverStatic, 3),
    n(r.workers?.perSecond),
    n(r.ratios.workersOverOne, 2),
    n(r.traced?.perSecond),
    n(r.ratios.tracedOverOff, 2),
    n(r.ratios.tracedP50OverOff, 2),
    n(r.peer ? r.gateway.dbCpuMsPerRequest : undefined, 2),
    n(r.peer?.perSecond),
    n(r.peer?.p50Ms, 1),
    n(r.peer?.p99Ms, 1),
    n(r.peer?.cpuMsPerRequest, 2),
    n(r.peer?.dbCpuMsPerRequest, 2),
    n(r.ratios.peer, 2),
    n(r.ratios.cpuOverPeer, 2),
  ]);
}

/** A Markdown table, padded as the formatter (Biome) pads one, so the page stays formatted. */
function markdown(header: string[], rows: string[][]): string {
  const widths = header.map((c, i) => Math.max(3, c.length, ...rows.map((r) => r[i]!.length)));
  const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** Markdown table rows of every column, for the terminal (with the header when asked). */
export function table(results: Result[], options: { header: boolean }): string {
  const rows = cells(results);
  if (!options.header) return rows.map((row) => `| ${row.join(" | ")} |`).join("\n");
  return markdown(COLUMNS, rows);
}

/**
 * The same results as three tables narrow enough to read as source: the
 * gateway alone, beside its baselines, and with two workers or traces on.
 * Each has the case's columns, and only the rows with a value of its own.
 */
function docsTables(results: Result[]): string {
  const KEY = 4;
  const groups: { title: string; from: number; to: number }[] = [
    { title: "The gateway", from: KEY, to: 10 },
    { title: "Beside a bare handler (`bare`, the same SQL without the gateway) and static bytes (`static`)", from: 10, to: 18 },
    { title: "Two workers (`WEB_CONCURRENCY=2`), and traces on", from: 18, to: 23 },
    {
      title:
        "Beside PostGraphile v5 (`peer`, the same rows on the same database; CPU per request of the server and, `db`, of the database's backends; `CPU÷peer` compares the two sums)",
      from: 23,
      to: COLUMNS.length,
    },
  ];
  const rows = cells(results);
  return groups
    .map(({ title, from, to }) => {
      const columns = (row: string[]) => [...row.slice(0, KEY), ...row.slice(from, to)];
      const kept = rows.filter((row) => row.slice(from, to).some((cell) => cell !== "–"));
      return `${title}:\n\n${markdown(columns(COLUMNS), kept.map(columns))}`;
    })
    .join("\n\n");
}

/** The growth sets, each compared with 1,000 courses (or the demo data). */
const GROWN = ["large", "taiwan"] as const;

/**
 * Each case on a large set (`large`, 100,000 courses; `taiwan`, 1,000,000)
 * beside the same case on 1,000 courses (or, for the environment and Packs, on
 * the demo data), at the same connection count: how its rate holds as the
 * tables grow.
 */
export function growthTable(results: Result[]): string {
  const rows = results
    .filter((r) => (GROWN as readonly string[]).includes(r.dataset) && !r.name.endsWith(" last page"))
    .flatMap((large) => {
      const small =
        results.find(
          (r) =>
            r.dataset === "courses-1k" && r.database === large.database && r.name === large.name && r.connections === large.connections,
        ) ??
        results.find(
          (r) => r.dataset === "demo" && r.database === large.database && r.name === large.name && r.connections === large.connections,
        );
      if (!small) return [];
      return [
        [
          large.name,
          String(large.connections),
          large.dataset,
          small.dataset,
          n(small.gateway.perSecond),
          n(small.gateway.p50Ms, 1),
          n(large.gateway.perSecond),
          n(large.gateway.p50Ms, 1),
          n(large.gateway.perSecond / small.gateway.perSecond, 2),
        ],
      ];
    });
  return markdown(["case", "c", "set", "against", "small req/s", "small p50 ms", "large req/s", "large p50 ms", "large÷small"], rows);
}

/**
 * Each list's last page on the `taiwan` set beside its first page, at the same
 * connection count: a page at any depth costs what the first costs (issue 54).
 */
export function deepTable(results: Result[]): string {
  const rows = results
    .filter((r) => r.dataset === "taiwan" && r.name.endsWith(" last page"))
    .flatMap((last) => {
      const name = last.name.slice(0, -" last page".length);
      const first = results.find(
        (r) => r.dataset === "taiwan" && r.database === last.database && r.name === name && r.connections === last.connections,
      );
      if (!first) return [];
      return [
        [
          name,
          String(last.connections),
          n(first.gateway.perSecond),
          n(first.gateway.p50Ms, 1),
          n(last.gateway.perSecond),
          n(last.gateway.p50Ms, 1),
          n(first.gateway.perSecond / last.gateway.perSecond, 2),
        ],
      ];
    });
  return markdown(["list", "c", "first req/s", "first p50 ms", "last req/s", "last p50 ms", "last÷first cost"], rows);
}

const START = "<!-- bench:start -->";
const END = "<!-- bench:end -->";

/** Replaces the bench section of a page (docs/performance.md, between its markers) with this run's tables. */
export function writeDocs(path: string, at: Date, machine: string, results: Result[], page: string): void {
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${path} has no ${START} … ${END} section`);
  const section =
    `${START}\nMeasured by \`npm run bench -- --docs\` on ${at.toISOString().slice(0, 10)}: ${machine}.\n\n${docsTables(results)}\n\n` +
    "Growth: each case on the Taiwan-scale sets (`large`: 100,000 courses, 2.8 M observations; `taiwan`: 1,000,000 courses, " +
    "src/demo/taiwan.ts) beside the same case on 1,000 courses " +
    `(\`courses-1k\`) or, for the environment and Packs, on the demo data; the same build, cache off.\n\n${growthTable(results)}\n\n` +
    `Deep pages: each list's last page on the \`taiwan\` set beside its first page (cost = first req/s ÷ last req/s).\n\n${deepTable(results)}\n`;
  writeFileSync(path, page.slice(0, from) + section + page.slice(to));
}
