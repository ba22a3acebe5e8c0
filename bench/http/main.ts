/**
 * `npm run bench`: the gateway under load over loopback, beside baselines
 * measured in the same run, on PostgreSQL and on PGlite.
 *
 * For each database it fills three databases (datasets.ts), starts the
 * gateway as `npm start` runs it (src/main.ts, in a process of its own),
 * starts the baselines (baseline.ts), checks that the bare handler's bodies
 * equal the gateway's, and then drives every case (cases.ts) with wrk,
 * after a warm-up, in interleaved rounds: each round runs every case on
 * every server before the next round begins. It prints and stores medians.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { type CommandLine, commandLine, integerOption } from "../../src/cli/args.js";
import { type Database, openDatabase } from "../../src/db/driver.js";
import { migrate } from "../../src/db/migrate.js";
import { benchReport } from "../report.js";
import { type Case, cases } from "./cases.js";
import { benchKey, DATASETS, type DatasetName, fill } from "./datasets.js";
import { cpuMs, freePorts, type Measured, memoryMiB, resetPeak, startNode } from "./process.js";
import { type Result, summarize, table, writeReadme } from "./results.js";
import { haveWrk, type Load, type Round, wrk } from "./wrk.js";

const LINE = {
  name: "bench",
  usage: `usage: npm run bench -- [--databases postgres,pglite] [--seconds N] [--rounds N]
                          [--connections 1,16,64] [--only TEXT] [--readme]

Measures the gateway under load (wrk over loopback) beside a bare node:http
handler running the same SQL and a handler writing the same bytes from
memory, on PostgreSQL (a new database on TEST_DATABASE_URL's server, default
postgresql://postgres@127.0.0.1:5432/test) and on PGlite. Prints a table of
medians over --rounds interleaved rounds of --seconds each (defaults 3 and 1)
and writes them to artifacts/bench.json; with --readme, also into README.md.
--only keeps the cases whose name contains TEXT.`,
  options: {
    databases: { type: "string", default: "postgres,pglite" },
    seconds: { type: "string", default: "1" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "1,16,64" },
    only: { type: "string" },
    readme: { type: "boolean", default: false },
  },
} satisfies CommandLine;
const { values } = commandLine(LINE);
const SECONDS = integerOption(LINE, "seconds", values.seconds, 1);
const ROUNDS = integerOption(LINE, "rounds", values.rounds, 1);
const CONNECTIONS = values.connections.split(",").map((c) => integerOption(LINE, "connections", c, 1));
const KINDS = values.databases.split(",") as ("postgres" | "pglite")[];
if (KINDS.some((k) => k !== "postgres" && k !== "pglite")) {
  process.stderr.write("npm run bench: --databases lists postgres and/or pglite\n");
  process.exit(2);
}
if (!haveWrk()) {
  process.stderr.write("npm run bench: wrk is not installed (Debian: apt-get install -y wrk)\n");
  process.exit(2);
}

const report = benchReport("bench");
const NOW = new Date();
const SERVER = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const work = mkdtempSync(join(tmpdir(), "uedu-bench-"));

/** One prepared database: how the gateway opens it, and the key it accepts. */
interface Prepared {
  env: Record<string, string>;
  key: string;
  /** The demo database's ids the cases ask for. */
  ids?: { course: number; pack: string; word: string; school: string };
  drop(): Promise<void>;
}

async function prepare(kind: "postgres" | "pglite", dataset: DatasetName): Promise<Prepared> {
  report.progress.phase(`${kind}: filling ${dataset}`);
  let db: Database;
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  if (kind === "postgres") {
    const name = `uedu_bench_${dataset.replace("-", "_")}_${process.pid}`;
    const admin = new pg.Client({ connectionString: SERVER });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const url = new URL(SERVER);
    url.pathname = `/${name}`;
    db = await openDatabase({ databaseUrl: url.toString() });
    env = { DATABASE_URL: url.toString() };
    drop = async () => {
      const c = new pg.Client({ connectionString: SERVER });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    };
  } else {
    const dir = join(work, dataset);
    db = await openDatabase({ dataDir: dir });
    env = { DATA_DIR: dir };
    drop = async () => rmSync(dir, { recursive: true, force: true });
  }
  await migrate(db);
  await fill(db, dataset, NOW);
  const key = await benchKey(db);
  let ids: Prepared["ids"];
  if (dataset === "demo") {
    const [course] = await db.query<{ id: number }>("SELECT id FROM course WHERE is_public ORDER BY id LIMIT 1");
    const [pack] = await db.query<{ id: string }>(
      "SELECT id FROM hub_pack WHERE visibility = 'public' AND safety_status = 'passed' ORDER BY id LIMIT 1",
    );
    ids = { course: course!.id, pack: pack!.id, word: "learning", school: "NTU" };
  }
  await db.close();
  return { env, key, ...(ids ? { ids } : {}), drop };
}

/** The gateway as `npm start` runs it, on a free port, logging as in production (to nowhere). */
async function startGateway(env: Record<string, string>): Promise<{ server: Measured; base: string }> {
  const [port] = await freePorts(1);
  const server = await startNode("src/main.ts", { ...env, HOST: "127.0.0.1", PORT: String(port) }, (out) => out.includes("GraphiQL:"));
  return { server, base: `http://127.0.0.1:${port}` };
}

const loadOf = (base: string, c: Case, key?: string): Load => ({
  url: `${base}${c.path}`,
  method: c.method,
  headers: {
    ...(key ? { Authorization: `Bearer ${key}` } : {}),
    ...(c.method === "POST" ? { "Content-Type": "application/json", Accept: "application/json, text/event-stream" } : {}),
  },
  ...(c.body === undefined ? {} : { body: c.body }),
});

async function answer(load: Load): Promise<{ status: number; text: string }> {
  const response = await fetch(load.url, {
    method: load.method ?? "GET",
    headers: load.headers ?? {},
    ...(load.body === undefined ? {} : { body: load.body }),
  });
  return { status: response.status, text: await response.text() };
}

/** The gateway with its answer cache off, the same with it on, and the two baselines. */
type Target = "gateway" | "cached" | "workers" | "bare" | "static";

async function benchDatabase(kind: "postgres" | "pglite", results: Result[]): Promise<void> {
  const all = new Map<DatasetName, Prepared>();
  try {
    for (const dataset of Object.keys(DATASETS) as DatasetName[]) all.set(dataset, await prepare(kind, dataset));
    const list = cases(all.get("demo")!.ids!).filter((c) => !values.only || c.name.includes(values.only));
    for (const dataset of Object.keys(DATASETS) as DatasetName[]) {
      const mine = list.filter((c) => c.dataset === dataset);
      if (mine.length) await benchDataset(kind, dataset, all.get(dataset)!, mine, results);
    }
  } finally {
    for (const prepared of all.values()) await prepared.drop();
  }
}

async function benchDataset(kind: "postgres" | "pglite", dataset: DatasetName, prepared: Prepared, list: Case[], results: Result[]) {
  report.progress.phase(`${kind}/${dataset}: starting`);
  // The bare handler on PGlite reads a copy of the directory, taken before the gateway opens it.
  // So does the second gateway (the one with its cache on).
  const copy = (suffix: string) => {
    const dir = `${prepared.env.DATA_DIR}-${suffix}`;
    cpSync(prepared.env.DATA_DIR!, dir, { recursive: true });
    return dir;
  };
  const bareEnv: Record<string, string> = prepared.env.DATA_DIR
    ? { BENCH_DATA_DIR: copy("bare") }
    : { BENCH_DATABASE_URL: prepared.env.DATABASE_URL! };
  const cachedEnv: Record<string, string> = prepared.env.DATA_DIR ? { DATA_DIR: copy("cached") } : prepared.env;
  const gateway = await startGateway({ ...prepared.env, RESPONSE_CACHE_MS: "0" });
  const cached = await startGateway({ ...cachedEnv, RESPONSE_CACHE_MS: "600000" });
  // On PostgreSQL, the same with two worker processes (src/cluster.ts), cache off.
  const workers = kind === "postgres" ? await startGateway({ ...prepared.env, RESPONSE_CACHE_MS: "0", WEB_CONCURRENCY: "2" }) : undefined;
  let baseline: Measured | undefined;
  try {
    // The gateway's answers: checked, and kept for the static handler.
    const bodies: Record<string, string> = {};
    for (const c of list) {
      const got = await answer(loadOf(gateway.base, c, prepared.key));
      if (got.status !== 200 || /"success":false|"error"/.test(got.text))
        throw new Error(`${c.name}: the gateway answered ${got.status} ${got.text.slice(0, 300)}`);
      bodies[c.path] = got.text;
    }
    const bodiesFile = join(work, `bodies-${kind}-${dataset}.json`);
    writeFileSync(bodiesFile, JSON.stringify(bodies));
    const [barePort, staticPort] = await freePorts(2);
    baseline = await startNode(
      "bench/http/baseline.ts",
      { ...bareEnv, BARE_PORT: String(barePort), STATIC_PORT: String(staticPort), BENCH_BODIES: bodiesFile },
      (out) => out.includes("ready"),
    );
    const bases: Record<Target, string> = {
      gateway: gateway.base,
      cached: cached.base,
      workers: workers?.base ?? "",
      bare: `http://127.0.0.1:${barePort}`,
      static: `http://127.0.0.1:${staticPort}`,
    };
    for (const c of list.filter((c) => c.bare)) {
      const bare = await answer(loadOf(bases.bare, c));
      if (bare.text !== bodies[c.path])
        throw new Error(
          `${c.name}: the bare handler's body differs from the gateway's:\n${bare.text.slice(0, 400)}\n${bodies[c.path]!.slice(0, 400)}`,
        );
    }
    const runs: { c: Case; target: Target; connections: number }[] = [];
    for (const c of list) {
      for (const connections of c.connections ?? CONNECTIONS) {
        // The physical limit hardly depends on the connection count: it is measured at the middle one.
        const middle = connections === (c.connections ?? CONNECTIONS)[Math.min(1, (c.connections ?? CONNECTIONS).length - 1)];
        const most = connections === Math.max(...(c.connections ?? CONNECTIONS));
        const targets = [
          "gateway",
          ...(c.bare ? ["bare"] : []),
          ...(middle ? ["cached", "static"] : []),
          ...(most && workers ? ["workers"] : []),
        ];
        for (const target of targets as Target[]) runs.push({ c, target, connections });
      }
    }
    const rounds = new Map<string, (Round & { cpuMsPerRequest: number; peakMiB: number })[]>();
    const total = runs.length * (ROUNDS + 1);
    report.progress.phase(`${kind}/${dataset}: load`, { total, unit: "steps" });
    let done = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      for (const { c, target, connections } of runs) {
        const pids: Record<Target, number> = {
          gateway: gateway.server.pid,
          cached: cached.server.pid,
          workers: workers?.server.pid ?? 0,
          bare: baseline.pid,
          static: baseline.pid,
        };
        const pid = pids[target];
        resetPeak(pid);
        const cpu = cpuMs(pid);
        // Round 0 is the warm-up: a second at the same concurrency, not kept.
        const figures = await wrk(loadOf(bases[target], c, prepared.key), connections, round === 0 ? 1 : SECONDS);
        const used = cpuMs(pid) - cpu;
        // wrk stops with requests still queued (64 of them, on PGlite behind one connection): one
        // more request waits behind them, so that the next run does not start on their backlog.
        await answer(loadOf(bases[target], c, prepared.key));
        report.progress.set(++done);
        if (figures.errors > 0) throw new Error(`${c.name} on ${target}: ${figures.errors} failed requests`);
        if (round === 0) continue;
        const id = `${c.name}|${target}|${connections}`;
        rounds.set(id, [...(rounds.get(id) ?? []), { ...figures, cpuMsPerRequest: used / figures.requests, peakMiB: memoryMiB(pid).peak }]);
      }
    }
    for (const c of list) {
      for (const connections of c.connections ?? CONNECTIONS) {
        const of = (target: Target) => rounds.get(`${c.name}|${target}|${connections}`);
        const result = summarize(
          { database: kind, dataset, name: c.name, connections },
          of("gateway")!,
          of("bare"),
          of("static"),
          of("cached"),
          of("workers"),
        );
        results.push(result);
        report.say(table([result], { header: false }));
      }
    }
  } finally {
    await baseline?.stop();
    await gateway.server.stop();
    await cached.server.stop();
    await workers?.server.stop();
    if (bareEnv.BENCH_DATA_DIR) rmSync(bareEnv.BENCH_DATA_DIR, { recursive: true, force: true });
    if (prepared.env.DATA_DIR) rmSync(cachedEnv.DATA_DIR!, { recursive: true, force: true });
  }
}

const results: Result[] = [];
try {
  report.say(table([], { header: true }));
  for (const kind of KINDS) await benchDatabase(kind, results);
} finally {
  rmSync(work, { recursive: true, force: true });
}
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? "CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}, ${SECONDS} s × ${ROUNDS} rounds, wrk over loopback`;
mkdirSync("artifacts", { recursive: true });
writeFileSync("artifacts/bench.json", `${JSON.stringify({ at: NOW.toISOString(), machine, results }, null, 2)}\n`);
report.say(`\nmachine: ${machine}\nresults: artifacts/bench.json`);
if (values.readme) writeReadme("README.md", NOW, machine, results, readFileSync("README.md", "utf8"));
await report.finish();
