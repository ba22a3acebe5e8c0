/**
 * `npm run bench:restrictions`: what a web page's key costs against a key
 * with no restriction, on one gateway, in one run (issue 67).
 *
 * It builds this tree, fills a new database with the demo data, and starts
 * one gateway (dist/src/main.js) with the answer cache on or off. It makes
 * two keys with the same limits: the bench's, unrestricted, and one with
 * every restriction docs/api-keys.md recommends for a page (origins,
 * surfaces, documents only with the cases' own GraphQL documents attached,
 * per-visitor limits) plus an address range, all of which each request
 * passes. Both keys' requests name the page's origin (in CORS_ORIGINS), so
 * only the key differs. Then every demo case (cases.ts) is driven by wrk in interleaved
 * rounds with each key in turn, the order swapped every round, and the
 * medians and their ratios (restricted ÷ unrestricted) are printed and
 * written to artifacts/bench-restrictions.json.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { type CommandLine, commandLine, integerOption } from "../../src/cli/args.js";
import { type Case, cases, ONLY_USAGE, onlyCases, STAND_IN_IDS } from "./cases.js";
import type { Measured } from "./process.js";

const LINE = {
  name: "bench:restrictions",
  usage: `usage: npm run bench:restrictions -- [--cache on|off] [--seconds N] [--rounds N] [--connections N] [--only TEXT]

Measures a key with a web page's restrictions (origins, surfaces, documents
only, an address range, per-visitor limits) against an unrestricted key with
the same limits: one built gateway on one PostgreSQL database (a new one on
TEST_DATABASE_URL's server, default postgresql://postgres@127.0.0.1:5432/test)
with the demo data, every demo case driven by wrk with each key in
interleaved rounds (defaults: answer cache on, 7 rounds of 2 s at 16
connections). Prints the medians and restricted ÷ unrestricted, and writes
them to artifacts/bench-restrictions.json.

${ONLY_USAGE}`,
  options: {
    cache: { type: "string", default: "on" },
    seconds: { type: "string", default: "2" },
    rounds: { type: "string", default: "7" },
    connections: { type: "string", default: "16" },
    only: { type: "string" },
  },
} satisfies CommandLine;
const { values } = commandLine(LINE);

// Loaded once the command line is read: --help and a wrong option answer without them.
const { default: pg } = await import("pg");
const { openDatabase } = await import("../../src/db/driver.js");
const { KeyStore } = await import("../../src/keys/store.js");
const { sha256Hex } = await import("../../src/sha256.js");
const { benchReport } = await import("../report.js");
const { fillDatabase } = await import("./datasets.js");
const { compared, comparedLine, formatted, geometric, interleave, pairSpread } = await import("./interleaved.js");
const { answer, loadOf } = await import("./load.js");
const { freePorts, startNode } = await import("./process.js");
const { haveWrk } = await import("./wrk.js");
const SECONDS = integerOption(LINE, "seconds", values.seconds, 1);
const ROUNDS = integerOption(LINE, "rounds", values.rounds, 1);
const CONNECTIONS = integerOption(LINE, "connections", values.connections, 1);
if (values.cache !== "on" && values.cache !== "off") {
  process.stderr.write(`npm run bench:restrictions: --cache is on or off, not ${JSON.stringify(values.cache)}\n`);
  process.exit(2);
}
if (!haveWrk()) {
  process.stderr.write("npm run bench:restrictions: wrk is not installed (Debian: apt-get install -y wrk)\n");
  process.exit(2);
}
/** The demo cases --only keeps; a persisted document's registration is not what a page's key sends. */
const demoCases = (ids = STAND_IN_IDS) =>
  onlyCases(
    cases(ids).filter((c) => c.dataset === "demo" && c.setup === undefined),
    values.only,
  );
if (demoCases().length === 0) {
  process.stderr.write(`npm run bench:restrictions: --only ${JSON.stringify(values.only)} keeps none of the demo cases\n`);
  process.exit(2);
}

/** The page the restricted key is for; every request of it names this origin. */
const ORIGIN = "https://app.example.org";
/** A GraphQL case's document, as the key's own trusted documents hold it (hash → text). */
const documentOf = (c: Case): [string, string] | undefined => {
  if (!c.path.startsWith("/graphql") || c.body === undefined) return undefined;
  const query = (JSON.parse(c.body) as { query?: string }).query;
  return query === undefined ? undefined : [sha256Hex(query), query];
};

const report = benchReport("bench:restrictions");
const SERVER = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const databaseName = `uedu_restrictions_${process.pid}`;
let gateway: Measured | undefined;
const admin = new pg.Client({ connectionString: SERVER });
await admin.connect();
try {
  report.progress.phase("building");
  const built = spawnSync(process.execPath, ["scripts/build.mjs"], { stdio: ["ignore", "ignore", "inherit"] });
  if (built.status !== 0) throw new Error("npm run build failed");

  report.progress.phase("filling the demo database");
  await admin.query(`CREATE DATABASE "${databaseName}"`);
  const url = new URL(SERVER);
  url.pathname = `/${databaseName}`;
  const db = await openDatabase({ databaseUrl: url.toString() });
  const keys: Record<"unrestricted" | "restricted", string> = { unrestricted: "", restricted: "" };
  let list: Case[];
  try {
    const filled = await fillDatabase(db, "demo", new Date());
    list = demoCases(filled.ids);
    const store = new KeyStore(db);
    const page = await store.create({
      name: "bench web page",
      owner: "bench",
      perMinute: 1_000_000_000,
      perDay: 1_000_000_000,
      restrictions: {
        origins: [ORIGIN],
        addresses: ["127.0.0.0/8", "::1/128"],
        surfaces: ["rest", "graphql", "mcp"],
        documentsOnly: true,
        visitorPerMinute: 1_000_000_000,
        visitorPerDay: 1_000_000_000,
      },
    });
    await store.setDocuments(
      String(page.id),
      new Map(
        list.flatMap((c) => {
          const d = documentOf(c);
          return d ? [d] : [];
        }),
      ),
    );
    keys.unrestricted = filled.key;
    keys.restricted = page.key;
  } finally {
    await db.close();
  }

  report.progress.phase("starting the gateway");
  const [port] = await freePorts(1);
  const env = {
    DATABASE_URL: url.toString(),
    RESPONSE_CACHE_MS: values.cache === "on" ? "600000" : "0",
    HOST: "127.0.0.1",
    PORT: String(port),
    CORS_ORIGINS: ORIGIN,
  };
  gateway = await startNode("dist/src/main.js", env, (out) => out.includes("GraphiQL:"));
  const base = `http://127.0.0.1:${port}`;
  // Both keys' requests come from the page (its Origin, allowed by CORS_ORIGINS): only the key differs.
  const fromPage = (key: string, c: Case) => {
    const load = loadOf(base, c, key);
    return { ...load, headers: { ...load.headers, Origin: ORIGIN } };
  };
  const loads = (c: Case) => ({ unrestricted: fromPage(keys.unrestricted, c), restricted: fromPage(keys.restricted, c) });
  for (const c of list) {
    const { unrestricted, restricted } = loads(c);
    const got = [await answer(unrestricted), await answer(restricted)];
    if (got.some((g) => g.status !== 200))
      throw new Error(`${c.name}: answered ${got.map((g) => `${g.status} ${g.text.slice(0, 300)}`).join(", ")}`);
    if (got[0]!.text !== got[1]!.text) report.say(`note: ${c.name}: the two keys' bodies differ`);
  }

  report.progress.phase("load", { total: list.length * 2 * (ROUNDS + 1), unit: "steps" });
  let done = 0;
  const sides = (["unrestricted", "restricted"] as const).map((which) => ({
    name: which,
    pid: gateway!.pid,
    load: (c: Case) => loads(c)[which],
  }));
  const rounds = await interleave(list, sides, {
    rounds: ROUNDS,
    seconds: SECONDS,
    connections: CONNECTIONS,
    onStep: () => report.progress.set(++done),
  });
  const rows = list.map((c) => compared(rounds, c.name, "restricted", "unrestricted"));
  const n = formatted;
  report.say(
    `\nrestricted ÷ unrestricted key, cache ${values.cache}, medians of ${ROUNDS} interleaved rounds of ${SECONDS} s at ${CONNECTIONS} connections:\n`,
  );
  report.say("| case | unrestricted req/s | restricted req/s | ÷ | unrestricted CPU ms/req | restricted CPU ms/req | ÷ |");
  report.say("| --- | --- | --- | --- | --- | --- | --- |");
  for (const r of rows) report.say(comparedLine([r.name], r));
  const [low, high] = pairSpread(rounds, list, "restricted", "unrestricted");
  report.say(
    `\nreq/s ÷ ${n(geometric(rows.map((r) => r.perSecond)), 3)} and CPU/req ÷ ${n(geometric(rows.map((r) => r.cpuMsPerRequest)), 3)} (geometric means over ${rows.length} cases); one round's pair ranges ${n(low, 2)}-${n(high, 2)} (10th-90th percentile)`,
  );
  mkdirSync("artifacts", { recursive: true });
  writeFileSync(
    "artifacts/bench-restrictions.json",
    `${JSON.stringify({ cache: values.cache, seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, rows, raw: Object.fromEntries(rounds) }, null, 2)}\n`,
  );
} finally {
  await gateway?.stop();
  await admin.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
  await admin.end();
}
await report.finish();
