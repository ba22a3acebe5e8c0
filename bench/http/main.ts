/**
 * `npm run bench`: the gateway under load over loopback, beside baselines
 * measured in the same run, on PostgreSQL and on the embedded default.
 *
 * It builds the gateway (`npm run build`), fills three databases of each kind
 * at once (datasets.ts), and then for each kind starts the gateway as
 * production runs it (dist/src/main.js, in a process of its own; with the
 * answer cache off and on, with two workers, and with traces exported),
 * starts the baselines (baseline.ts), checks that the bare handler's bodies
 * equal the gateway's, and then drives every case (cases.ts) with wrk,
 * after a warm-up, in interleaved rounds: each round runs every case on
 * every server before the next round begins. It prints and stores medians.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { type CommandLine, commandLine, integerOption } from "../../src/cli/args.js";
import { type Case, cases, onlyCases, STAND_IN_IDS, WALK } from "./cases.js";
import type { DatasetName, Filled } from "./datasets.js";
import type { Measured } from "./process.js";
import type { Result } from "./results.js";
import type { Round } from "./wrk.js";

const LINE = {
  name: "bench",
  usage: `usage: npm run bench -- [--databases postgres,embedded] [--seconds N] [--rounds N]
                          [--connections 1,16,64] [--only TEXT] [--quick] [--docs]
                          [--peer-everywhere]

Measures the gateway under load (wrk over loopback) beside a bare node:http
handler running the same SQL, a handler writing the same bytes from
memory and PostGraphile v5 on the same database (installed into
artifacts/postgraphile on its first run), on PostgreSQL (a new database on TEST_DATABASE_URL's server, default
postgresql://postgres@127.0.0.1:5432/test) and on the embedded default (a
DATA_DIR of its own). Prints a table of
medians over --rounds interleaved rounds of --seconds each (defaults 3 and 1)
and writes them to artifacts/bench.json; with --docs, also into docs/performance.md.
--only keeps the cases whose name contains TEXT (or one of a comma-separated list;
=NAME keeps the case of that exact name, =NAME@DATASET of that dataset alone). --quick runs one round of
every case, at 16 connections (growth cases at 1 and 16), on PostgreSQL.
--peer-everywhere runs the cases beside PostGraphile on the embedded default
as on PostgreSQL: at each of their connection counts, on 100,000 courses too.`,
  options: {
    databases: { type: "string", default: "postgres,embedded" },
    seconds: { type: "string", default: "1" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "1,16,64" },
    only: { type: "string" },
    quick: { type: "boolean", default: false },
    docs: { type: "boolean", default: false },
    "peer-everywhere": { type: "boolean", default: false },
  },
} satisfies CommandLine;
const { values } = commandLine(LINE);
// Loaded once the command line is read: --help and a wrong option answer without them.
const { default: pg } = await import("pg");
const { openDatabase, POOL_IDLE_MS } = await import("../../src/db/driver.js");
const { CLUSTER_DIR } = await import("../../src/db/cluster-dir.js");
const { stopServer } = await import("../../src/db/embedded.js");
const { benchReport } = await import("../report.js");
const { DATASETS, fillDatabase } = await import("./datasets.js");
const { cpuMs, freePorts, memoryMiB, resetPeak, serverCpuMs, serverMiB, startNode } = await import("./process.js");
const { grantPeer, installPeer, startPeer } = await import("./peer.js");
const { deepTable, growthTable, summarize, table, writeDocs } = await import("./results.js");
const { otlpSink } = await import("./otlp-sink.js");
const { answer, loadOf, peerLoadOf, register } = await import("./load.js");
const { haveWrk, wrk } = await import("./wrk.js");
const SECONDS = integerOption(LINE, "seconds", values.seconds, 1);
const ROUNDS = values.quick ? 1 : integerOption(LINE, "rounds", values.rounds, 1);
const CONNECTIONS = (values.quick ? "16" : values.connections).split(",").map((c) => integerOption(LINE, "connections", c, 1));
/** A PostgreSQL server of our own (DATABASE_URL), or the embedded default. */
type Kind = "postgres" | "embedded";
const KINDS = (values.quick ? "postgres" : values.databases).split(",") as Kind[];
if (KINDS.some((k) => k !== "postgres" && k !== "embedded")) {
  process.stderr.write("npm run bench: --databases lists postgres and/or embedded\n");
  process.exit(2);
}
if (!haveWrk()) {
  process.stderr.write("npm run bench: wrk is not installed (Debian: apt-get install -y wrk)\n");
  process.exit(2);
}

const report = benchReport("bench");
const sink = await otlpSink();
const NOW = new Date();
const SERVER = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const work = mkdtempSync(join(tmpdir(), "uedu-bench-"));
// As root, the embedded PostgreSQL runs as another user, who must reach its DATA_DIR in here.
chmodSync(work, 0o711);

/** One prepared database: how the gateway opens it, the key it accepts and (demo) the ids the cases ask for. */
interface Prepared extends Filled {
  env: Record<string, string>;
  /** The database server's postmaster, while it runs (its memory is reported beside the gateway's). */
  postmaster(): number | undefined;
  drop(): Promise<void>;
}

/** The pid in a cluster's `postmaster.pid`, if its server runs. */
function postmasterOf(clusterDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(clusterDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return pid > 0 && existsSync(`/proc/${pid}`) ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function prepare(kind: Kind, dataset: DatasetName): Promise<Prepared> {
  report.progress.phase(`${kind}: filling ${dataset}`);
  if (kind === "embedded") {
    const dir = join(work, `embedded-${dataset}`);
    const db = await openDatabase({ dataDir: dir, role: "bench" });
    try {
      const filled = await fillDatabase(db, dataset, NOW);
      const cluster = join(dir, CLUSTER_DIR);
      return {
        ...filled,
        env: { DATA_DIR: dir },
        postmaster: () => postmasterOf(cluster),
        drop: async () => {
          await stopServer(cluster);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } finally {
      await db.close();
    }
  }
  const name = `uedu_bench_${dataset.replace("-", "_")}_${process.pid}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString() });
  try {
    const filled = await fillDatabase(db, dataset, NOW);
    const [{ dir }] = (await db.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir")) as [{ dir: string }];
    return {
      ...filled,
      env: { DATABASE_URL: url.toString() },
      postmaster: () => postmasterOf(dir),
      drop: async () => {
        const c = new pg.Client({ connectionString: SERVER });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await c.end();
      },
    };
  } finally {
    await db.close();
  }
}

/** The built gateway (`npm run build`), as production runs it. */
const GATEWAY = "dist/src/main.js";

/** The gateway as production runs it, on a free port, logging as in production (to nowhere). */
async function startGateway(env: Record<string, string>): Promise<{ server: Measured; base: string }> {
  const [port] = await freePorts(1);
  const server = await startNode(GATEWAY, { ...env, HOST: "127.0.0.1", PORT: String(port) }, (out) => out.includes("GraphiQL:"));
  return { server, base: `http://127.0.0.1:${port}` };
}

/** The gateway with its answer cache off, the same with it on, with two workers, with traces on, the two baselines, and PostGraphile. */
type Target = "gateway" | "cached" | "workers" | "traced" | "bare" | "static" | "peer";

/** What the peer may read: the tables its cases ask for, without their guarded columns (src/db/guards.ts). */
const PEER_TABLES = { university: [], course: ["join_code"], hub_pack: ["payload"] };

/** The ids (of courses, Packs, schools) and totals in an answer, in order: what a REST answer and the peer's share. */
function idsAndTotals(text: string): { ids: unknown[]; totals: unknown[] } {
  const ids: unknown[] = [];
  const totals: unknown[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object")
      for (const [name, inner] of Object.entries(value)) {
        if (name === "id" || name === "databaseId") ids.push(inner);
        else if (name === "total" || name === "totalCount") totals.push(inner);
        else walk(inner);
      }
  };
  walk(JSON.parse(text));
  return { ids, totals };
}

/**
 * A deep-cursor case as each server asks it: walked `c.after` courses into
 * the list by the server's own cursors, 100 at a time, and its `after`
 * variable set to the cursor there.
 */
async function afterCursor(c: Case, gatewayBase: string, peerBase: string | undefined, key: string): Promise<Case> {
  if (!c.after) return c;
  const walk = async (base: string, document: string, withKey: boolean): Promise<string> => {
    let after: string | null = null;
    for (let walked = 0; walked < c.after!; walked += 100) {
      const load = {
        ...loadOf(base, { ...c, body: JSON.stringify({ query: document, variables: { after } }) }, withKey ? key : undefined),
      };
      const got = JSON.parse((await answer(load)).text) as { data?: { courses?: { pageInfo?: { endCursor?: string } } } };
      after = got.data?.courses?.pageInfo?.endCursor ?? null;
      if (!after) throw new Error(`${c.name}: ${base} has no cursor ${walked + 100} courses in`);
    }
    return after!;
  };
  const withAfter = (text: string, after: string) => {
    const parsed = JSON.parse(text) as { query: string; variables?: Record<string, unknown> };
    return JSON.stringify({ ...parsed, variables: { ...parsed.variables, after } });
  };
  return {
    ...c,
    body: withAfter(c.body!, await walk(gatewayBase, WALK.gateway, true)),
    ...(c.peer && peerBase ? { peer: withAfter(c.peer, await walk(peerBase, WALK.peer, false)) } : {}),
  };
}

/**
 * The datasets of each kind. The growth sets run on PostgreSQL only: their
 * targets are PostgreSQL's, and filling them twice would put the run over
 * 15 minutes.
 */
const DATASETS_OF: Record<Kind, DatasetName[]> = {
  postgres: Object.keys(DATASETS) as DatasetName[],
  embedded: values["peer-everywhere"] ? ["demo", "large"] : ["demo"],
};

/**
 * The connection counts a case runs at: its own, or the run's; on the
 * embedded default only the middle one (it compares with
 * PostgreSQL's row at the same count; all three would put the run over 15
 * minutes).
 */
function levels(kind: Kind, c: Case): number[] {
  const counts = c.connections ?? CONNECTIONS;
  if (kind === "postgres" || (values["peer-everywhere"] && c.peer)) return counts;
  return [counts[Math.min(1, counts.length - 1)]!];
}

/** The cases --only keeps (the demo's ids are stand-ins until it is filled: they name the cases' datasets alone). */
function chosen(ids: Filled["ids"] = STAND_IN_IDS): Case[] {
  return onlyCases(cases(ids), values.only);
}

/**
 * The path of a last-page case (`last`): its list's first page, asked now,
 * gives the total, so the last page number.
 */
async function lastPage(c: Case, base: string, key: string): Promise<Case> {
  if (!c.last) return c;
  const first = await answer(loadOf(base, c, key));
  const { total, page_size: size } = JSON.parse(first.text) as { total: number; page_size: number };
  return { ...c, path: `${c.path}${c.path.includes("?") ? "&" : "?"}page=${Math.max(1, Math.ceil(total / size))}` };
}

async function benchDatabase(kind: Kind, all: Map<DatasetName, Prepared>, results: Result[]): Promise<void> {
  const list = chosen(all.get("demo")!.ids!);
  for (const dataset of DATASETS_OF[kind]) {
    // On the embedded default, a dataset other than the demo is there for the cases beside PostGraphile alone.
    const mine = list.filter((c) => c.dataset === dataset && (kind === "postgres" || dataset === "demo" || c.peer !== undefined));
    if (mine.length) await benchDataset(kind, dataset, all.get(dataset)!, mine, results);
  }
}

async function benchDataset(kind: Kind, dataset: DatasetName, prepared: Prepared, asked: Case[], results: Result[]) {
  report.progress.phase(`${kind}/${dataset}: starting`);
  // Growth cases run on the gateway alone, the peer's on it and the peer: the other servers start only for the rest.
  const compared = asked.some((c) => !c.growth && !c.peerOnly);
  const peered = asked.some((c) => c.peer !== undefined);
  // On the embedded default the other processes join the server the first gateway started.
  const bareEnv: Record<string, string> = !compared
    ? {}
    : kind === "embedded"
      ? {
          BENCH_DATABASE_URL: `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(join(prepared.env.DATA_DIR!, CLUSTER_DIR))}&port=5432`,
        }
      : { BENCH_DATABASE_URL: prepared.env.DATABASE_URL! };
  const gateway = await startGateway({ ...prepared.env, RESPONSE_CACHE_MS: "0" });
  // PostGraphile, as a role of its own, on the database the gateway serves (on the embedded default, its server's socket).
  const peer = peered
    ? await startPeer(
        await grantPeer(
          kind === "embedded"
            ? `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(join(prepared.env.DATA_DIR!, CLUSTER_DIR))}&port=5432`
            : prepared.env.DATABASE_URL!,
          PEER_TABLES,
        ),
      )
    : undefined;
  const list: Case[] = [];
  for (const c of asked)
    list.push(await afterCursor(await lastPage(c, gateway.base, prepared.key), gateway.base, peer?.base, prepared.key));
  const cached = compared ? await startGateway({ ...prepared.env, RESPONSE_CACHE_MS: "600000" }) : undefined;
  // The same with two worker processes (src/cluster.ts), cache off.
  const workers = compared ? await startGateway({ ...prepared.env, RESPONSE_CACHE_MS: "0", WEB_CONCURRENCY: "2" }) : undefined;
  // The same with OpenTelemetry traces on, every span exported (OTLP/HTTP, protobuf) to a receiver that drops them.
  const traced = compared
    ? await startGateway({ ...prepared.env, RESPONSE_CACHE_MS: "0", OTEL_EXPORTER_OTLP_ENDPOINT: sink.url })
    : undefined;
  let baseline: Measured | undefined;
  try {
    // Persisted documents registered on every gateway: on each connection of its own, several times, since
    // each worker process keeps its own and the cluster hands out connections by turns.
    for (const c of list.filter((c) => c.setup !== undefined)) {
      for (const target of [gateway, cached, workers, traced]) {
        for (let i = 0; i < (target === workers ? 8 : 1); i++) {
          if (target) await register(target.base, c.setup!, prepared.key);
        }
      }
    }
    // The gateway's answers: checked, and kept for the static handler.
    const bodies: Record<string, string> = {};
    for (const c of list) {
      const got = await answer(loadOf(gateway.base, c, prepared.key));
      if (got.status !== 200 || /"success":false|"error"/.test(got.text))
        throw new Error(`${c.name}: the gateway answered ${got.status} ${got.text.slice(0, 300)}`);
      if (peer && c.peer) {
        // The same rows from both: GraphQL's data byte for byte, a REST envelope's ids and totals in order.
        const theirs = await answer(peerLoadOf(peer.base, c));
        const same =
          c.method === "POST"
            ? theirs.text === got.text
            : JSON.stringify(idsAndTotals(theirs.text)) === JSON.stringify(idsAndTotals(got.text));
        if (theirs.status !== 200 || !same)
          throw new Error(
            `${c.name}: PostGraphile's answer differs from the gateway's:\n${theirs.text.slice(0, 400)}\n${got.text.slice(0, 400)}`,
          );
      }
      // The static handler answers by path: the peer's own cases are not its.
      if (!c.peerOnly) bodies[c.path] = got.text;
    }
    const bodiesFile = join(work, `bodies-${kind}-${dataset}.json`);
    writeFileSync(bodiesFile, JSON.stringify(bodies));
    const [barePort, staticPort] = await freePorts(2);
    baseline = compared
      ? await startNode(
          "bench/http/baseline.ts",
          {
            ...bareEnv,
            BARE_PORT: String(barePort),
            BARE_POOL_IDLE_MS: String(POOL_IDLE_MS),
            STATIC_PORT: String(staticPort),
            BENCH_BODIES: bodiesFile,
          },
          (out) => out.includes("ready"),
        )
      : undefined;
    const bases: Record<Target, string> = {
      gateway: gateway.base,
      cached: cached?.base ?? "",
      workers: workers?.base ?? "",
      traced: traced?.base ?? "",
      bare: `http://127.0.0.1:${barePort}`,
      static: `http://127.0.0.1:${staticPort}`,
      peer: peer?.base ?? "",
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
      const counts = levels(kind, c);
      for (const connections of counts) {
        // The physical limit hardly depends on the connection count: it is measured at the middle one.
        const middle = connections === counts[Math.min(1, counts.length - 1)];
        const most = connections === Math.max(...counts);
        const targets = c.growth
          ? ["gateway"]
          : c.peerOnly
            ? ["gateway", "peer"]
            : [
                "gateway",
                ...(c.bare ? ["bare"] : []),
                ...(c.peer ? ["peer"] : []),
                ...(middle ? ["cached", "static", "traced"] : []),
                ...(most && workers ? ["workers"] : []),
              ];
        for (const target of targets as Target[]) runs.push({ c, target, connections });
      }
    }
    // The warm-up (round 0): one second per case and server, at the case's highest connection count.
    const warmUp = runs.filter(
      (run) => !runs.some((other) => other.c === run.c && other.target === run.target && other.connections > run.connections),
    );
    const rounds = new Map<
      string,
      (Round & { cpuMsPerRequest: number; peakMiB: number; serverMiB?: number; dbCpuMsPerRequest?: number })[]
    >();
    const total = warmUp.length + runs.length * ROUNDS;
    report.progress.phase(`${kind}/${dataset}: load`, { total, unit: "steps" });
    let done = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      for (const { c, target, connections } of round === 0 ? warmUp : runs) {
        const pids: Record<Target, number> = {
          gateway: gateway.server.pid,
          cached: cached?.server.pid ?? 0,
          workers: workers?.server.pid ?? 0,
          traced: traced?.server.pid ?? 0,
          bare: baseline?.pid ?? 0,
          static: baseline?.pid ?? 0,
          peer: peer?.server.pid ?? 0,
        };
        const pid = pids[target];
        const load = target === "peer" ? peerLoadOf(bases.peer, c) : loadOf(bases[target], c, prepared.key);
        resetPeak(pid);
        const postmaster = prepared.postmaster();
        const cpu = cpuMs(pid);
        const dbCpu = postmaster === undefined ? undefined : serverCpuMs(postmaster);
        // Round 0 is the warm-up: not kept.
        const figures = await wrk(load, connections, round === 0 ? 1 : SECONDS);
        const used = cpuMs(pid) - cpu;
        // The database's backends, all of them: the other servers' are idle meanwhile.
        const dbUsed = dbCpu === undefined || postmaster === undefined ? undefined : serverCpuMs(postmaster) - dbCpu;
        // wrk stops with requests still queued (up to one per connection): one
        // more request waits behind them, so that the next run does not start on their backlog.
        await answer(load);
        report.progress.set(++done);
        if (figures.errors > 0) throw new Error(`${c.name} on ${target}: ${figures.errors} failed requests`);
        if (round === 0) continue;
        const id = `${c.name}|${target}|${connections}`;
        const server = prepared.postmaster();
        rounds.set(id, [
          ...(rounds.get(id) ?? []),
          {
            ...figures,
            cpuMsPerRequest: used / figures.requests,
            ...(dbUsed === undefined ? {} : { dbCpuMsPerRequest: dbUsed / figures.requests }),
            peakMiB: memoryMiB(pid).peak,
            ...(server === undefined ? {} : { serverMiB: serverMiB(server) }),
          },
        ]);
      }
    }
    for (const c of list) {
      for (const connections of levels(kind, c)) {
        const of = (target: Target) => rounds.get(`${c.name}|${target}|${connections}`);
        const result = summarize(
          { database: kind, dataset, name: c.name, connections },
          of("gateway")!,
          of("bare"),
          of("static"),
          of("cached"),
          of("workers"),
          of("traced"),
          of("peer"),
        );
        results.push(result);
        report.say(table([result], { header: false }));
      }
    }
  } finally {
    await baseline?.stop();
    await peer?.server.stop();
    await gateway.server.stop();
    await cached?.server.stop();
    await workers?.server.stop();
    await traced?.server.stop();
  }
}

const results: Result[] = [];
const databases = new Map<Kind, Map<DatasetName, Prepared>>();
try {
  if (chosen().some((c) => c.peer !== undefined)) {
    report.progress.phase("installing PostGraphile (artifacts/postgraphile)");
    installPeer();
  }
  report.progress.phase("building the gateway");
  const built = spawnSync(process.execPath, ["scripts/build.mjs"], { stdio: ["ignore", "ignore", "inherit"] });
  if (built.status !== 0) throw new Error("npm run build failed");
  report.say(table([], { header: true }));
  // Both kinds fill at once (each one's work runs in its own server); nothing is measured yet.
  const filled = await Promise.allSettled(
    KINDS.map(async (kind) => {
      const all = new Map<DatasetName, Prepared>();
      databases.set(kind, all);
      // The demo always (the cases' ids come from it), and the others only for a case of theirs.
      const needed = new Set(chosen().map((c) => c.dataset));
      for (const dataset of DATASETS_OF[kind])
        if (dataset === "demo" || needed.has(dataset)) all.set(dataset, await prepare(kind, dataset));
    }),
  );
  for (const outcome of filled) if (outcome.status === "rejected") throw outcome.reason;
  for (const kind of KINDS) await benchDatabase(kind, databases.get(kind)!, results);
} finally {
  for (const all of databases.values()) for (const prepared of all.values()) await prepared.drop();
  rmSync(work, { recursive: true, force: true });
  sink.close();
}
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? "CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}, ${SECONDS} s × ${ROUNDS} rounds, wrk over loopback`;
mkdirSync("artifacts", { recursive: true });
writeFileSync("artifacts/bench.json", `${JSON.stringify({ at: NOW.toISOString(), machine, results }, null, 2)}\n`);
report.say(
  `\ngrowth (the same build, cache off; 100,000 and 1,000,000 courses and 2.8 M observations against 1,000 courses or the demo):\n${growthTable(results)}` +
    `\n\ndeep pages (1,000,000 courses, cache off: each list's last page beside its first):\n${deepTable(results)}`,
);
report.say(`\ntraced gateway: ${sink.exports.toLocaleString("en-US")} OTLP exports, ${(sink.bytes / 1e6).toFixed(1)} MB`);
report.say(`\nmachine: ${machine}\nresults: artifacts/bench.json`);
if (values.docs) writeDocs("docs/performance.md", NOW, machine, results, readFileSync("docs/performance.md", "utf8"));
await report.finish();
