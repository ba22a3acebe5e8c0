/**
 * `npm run bench:against -- REV`: this working tree against an earlier
 * commit, in one run, on one database, so that "performs as before" is a
 * ratio measured side by side rather than two tables from different days.
 *
 * It exports REV with `git archive` into a folder of its own (sharing this
 * tree's node_modules, its Prisma client generated there), builds both
 * (`scripts/build.mjs`), fills one PostgreSQL database with the demo data,
 * and starts both builds' `dist/src/main.js` as production runs them, each
 * with the answer cache off and on. It checks that both builds give the
 * same bodies, then drives every demo case (cases.ts) with wrk in
 * interleaved rounds: each round runs every case on all four servers, the
 * builds' order swapped every round. It prints medians and their ratios
 * (this tree ÷ REV) and writes them to artifacts/bench-against.json.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type CommandLine, commandLine, integerOption } from "../../src/cli/args.js";
import { type Case, cases, ONLY_USAGE, onlyCases, STAND_IN_IDS } from "./cases.js";
import type { Measured } from "./process.js";

const LINE = {
  name: "bench:against",
  usage: `usage: npm run bench:against -- REV [--seconds N] [--rounds N] [--connections N] [--only TEXT]

Measures this working tree against the commit REV in one run: both built,
both serving one PostgreSQL database (a new one on TEST_DATABASE_URL's
server, default postgresql://postgres@127.0.0.1:5432/test) with the demo
data, cache off and on, every demo case driven by wrk in interleaved rounds
(defaults: 5 rounds of 2 s at 16 connections). Prints the medians and this
tree ÷ REV, and writes them to artifacts/bench-against.json.

${ONLY_USAGE}`,
  options: {
    seconds: { type: "string", default: "2" },
    rounds: { type: "string", default: "5" },
    connections: { type: "string", default: "16" },
    only: { type: "string" },
  },
  positionals: { min: 1, max: 1 },
} satisfies CommandLine;
const { values, positionals } = commandLine(LINE);
// Loaded once the command line is read: --help and a wrong option answer without them.
const { default: pg } = await import("pg");
const { openDatabase } = await import("../../src/db/driver.js");
const { benchReport } = await import("../report.js");
const { fillDatabase } = await import("./datasets.js");
const { compared, comparedLine, formatted, geometric, interleave, pairSpread } = await import("./interleaved.js");
const { answer, loadOf, register } = await import("./load.js");
const { freePorts, startNode } = await import("./process.js");
const { haveWrk } = await import("./wrk.js");
const SECONDS = integerOption(LINE, "seconds", values.seconds, 1);
const ROUNDS = integerOption(LINE, "rounds", values.rounds, 1);
const CONNECTIONS = integerOption(LINE, "connections", values.connections, 1);
const REV = positionals[0]!;
if (!haveWrk()) {
  process.stderr.write("npm run bench:against: wrk is not installed (Debian: apt-get install -y wrk)\n");
  process.exit(2);
}
const commit = spawnSync("git", ["rev-parse", "--verify", "--quiet", `${REV}^{commit}`], { encoding: "utf8" });
if (commit.status !== 0) {
  process.stderr.write(`npm run bench:against: ${REV} is not a commit of this repository\n`);
  process.exit(2);
}
const SHA = commit.stdout.trim();
/** The demo cases --only keeps (with the stand-in ids, before the database is filled). */
const demoCases = (ids = STAND_IN_IDS) =>
  onlyCases(
    cases(ids).filter((c) => c.dataset === "demo"),
    values.only,
  );
if (demoCases().length === 0) {
  process.stderr.write(`npm run bench:against: --only ${JSON.stringify(values.only)} keeps none of the demo cases\n`);
  process.exit(2);
}

const report = benchReport("bench:against");
const SERVER = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const work = mkdtempSync(join(tmpdir(), "uedu-against-"));

/** Runs a command to its end; its output is shown only if it fails. */
function run(command: string, args: string[], cwd: string, input?: Buffer): void {
  const done = spawnSync(command, args, { cwd, ...(input ? { input } : {}), maxBuffer: 1 << 30 });
  if (done.status !== 0) throw new Error(`${command} ${args.join(" ")} (in ${cwd}) failed:\n${done.stderr}`);
}

/** The two builds: REV, exported and built in a folder of its own, and this tree. */
const BUILDS = { before: join(work, "before"), after: resolve(".") };
type Build = keyof typeof BUILDS;
const CACHES = { off: "0", on: "600000" } as const;
type Cache = keyof typeof CACHES;

const databaseName = `uedu_against_${process.pid}`;
const servers: { build: Build; cache: Cache; process: Measured; base: string }[] = [];
const admin = new pg.Client({ connectionString: SERVER });
await admin.connect();
try {
  report.progress.phase(`exporting and building ${SHA.slice(0, 12)}`);
  mkdirSync(BUILDS.before);
  const archive = spawnSync("git", ["archive", "--format=tar", SHA], { maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${SHA} failed:\n${archive.stderr}`);
  run("tar", ["-x", "-C", BUILDS.before], ".", archive.stdout);
  if (readFileSync(join(BUILDS.before, "package-lock.json"), "utf8") !== readFileSync("package-lock.json", "utf8"))
    report.say(`note: ${REV}'s package-lock.json differs from this tree's; both run on this tree's node_modules`);
  symlinkSync(resolve("node_modules"), join(BUILDS.before, "node_modules"));
  // REV's own Prisma schema, generated into REV's folder (the client lives in src/generated).
  run(process.execPath, ["scripts/generate.mjs"], BUILDS.before);
  for (const dir of Object.values(BUILDS)) run(process.execPath, ["scripts/build.mjs"], dir);

  report.progress.phase("filling the demo database");
  await admin.query(`CREATE DATABASE "${databaseName}"`);
  const url = new URL(SERVER);
  url.pathname = `/${databaseName}`;
  const db = await openDatabase({ databaseUrl: url.toString() });
  const filled = await fillDatabase(db, "demo", new Date()).finally(() => db.close());
  const list = demoCases(filled.ids);

  report.progress.phase("starting four gateways");
  for (const build of Object.keys(BUILDS) as Build[]) {
    for (const cache of Object.keys(CACHES) as Cache[]) {
      const [port] = await freePorts(1);
      const env = { DATABASE_URL: url.toString(), RESPONSE_CACHE_MS: CACHES[cache], HOST: "127.0.0.1", PORT: String(port) };
      const started = await startNode(join(BUILDS[build], "dist/src/main.js"), env, (out) => out.includes("GraphiQL:"));
      servers.push({ build, cache, process: started, base: `http://127.0.0.1:${port}` });
    }
  }
  for (const c of list) if (c.setup !== undefined) for (const s of servers) await register(s.base, c.setup, filled.key);
  let differ = 0;
  for (const c of list) {
    const got = await Promise.all(servers.map((s) => answer(loadOf(s.base, c, filled.key))));
    if (got.some((g) => g.status !== 200)) throw new Error(`${c.name}: answered ${got.map((g) => g.status).join(", ")}`);
    if (new Set(got.map((g) => g.text)).size > 1) {
      differ++;
      report.say(`note: ${c.name}: the builds' bodies differ`);
    }
  }
  if (differ === 0) report.say(`both builds answer every case with the same bytes, cache off and on (${list.length} cases)`);

  const steps = list.length * servers.length * (ROUNDS + 1);
  report.progress.phase("load", { total: steps, unit: "steps" });
  let done = 0;
  const sides = servers.map((s) => ({
    name: `${s.cache}|${s.build}`,
    pid: s.process.pid,
    load: (c: Case) => loadOf(s.base, c, filled.key),
  }));
  const rounds = await interleave(list, sides, {
    rounds: ROUNDS,
    seconds: SECONDS,
    connections: CONNECTIONS,
    onStep: () => report.progress.set(++done),
  });
  const rows = list.flatMap((c) =>
    (Object.keys(CACHES) as Cache[]).map((cache) => ({ ...compared(rounds, c.name, `${cache}|after`, `${cache}|before`), cache })),
  );
  const n = formatted;
  report.say(
    `\nthis tree ÷ ${REV} (${SHA.slice(0, 12)}), medians of ${ROUNDS} interleaved rounds of ${SECONDS} s at ${CONNECTIONS} connections:\n`,
  );
  report.say("| case | cache | before req/s | after req/s | ÷ | before CPU ms/req | after CPU ms/req | ÷ |");
  report.say("| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const r of rows) report.say(comparedLine([r.name, r.cache], r));
  // How far apart two builds' rounds fall by chance: the ratio of each round's pair, over every case.
  for (const cache of Object.keys(CACHES) as Cache[]) {
    const mine = rows.filter((r) => r.cache === cache);
    const [low, high] = pairSpread(rounds, list, `${cache}|after`, `${cache}|before`);
    report.say(
      `\ncache ${cache}: req/s ÷ ${n(geometric(mine.map((r) => r.perSecond)), 3)} and CPU/req ÷ ${n(geometric(mine.map((r) => r.cpuMsPerRequest)), 3)} (geometric means over ${mine.length} cases); one round's pair ranges ${n(low, 2)}-${n(high, 2)} (10th-90th percentile)`,
    );
  }
  mkdirSync("artifacts", { recursive: true });
  writeFileSync(
    "artifacts/bench-against.json",
    `${JSON.stringify({ against: SHA, seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, rows, raw: Object.fromEntries(rounds) }, null, 2)}\n`,
  );
} finally {
  for (const s of servers) await s.process.stop();
  await admin.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
  await admin.end();
  rmSync(work, { recursive: true, force: true });
}
await report.finish();
