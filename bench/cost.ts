/**
 * The acceptance benchmark of the query cost limit (src/schema/cost.ts): the
 * most expensive requests a key holder can get accepted finish within 1 s on
 * the demo data, while other clients' p99 stays under 100 ms.
 *
 * It starts a private PostgreSQL and the gateway as operators run it
 * (`src/main.ts` in a child process, which imports the demo data), creates
 * two keys, and then, over loopback:
 *   1. prices each attack and checks that it is accepted and that its
 *      neighbour one step costlier is refused;
 *   2. measures the other clients alone: `--clients` loops of cheap REST and
 *      GraphQL requests for `--seconds`;
 *   3. for each attack, one attacker sends it back to back while the other
 *      clients run: the attacker's slowest answer and the others' p99;
 *   4. sends the refused requests of the issue to a second gateway whose
 *      limit is off, to show what they would have cost.
 *
 *   npm run bench:cost
 *   npm run bench:cost -- --seconds 5 --clients 8
 */
import { type CommandLine, commandLine, integerOption } from "../src/cli/args.js";
import type { GatewayProcess } from "../test/support/gateway-process.js";

const LINE = {
  name: "bench:cost",
  usage: `usage: npm run bench:cost -- [--seconds N] [--clients N] [--only TEXT]

Prices the costliest accepted GraphQL requests on a private PostgreSQL and
measures them against --clients other clients for --seconds each; --only
keeps the attacks whose name contains TEXT.`,
  options: {
    seconds: { type: "string", default: "10" },
    clients: { type: "string", default: "8" },
    only: { type: "string" },
  },
} satisfies CommandLine;
const { values } = commandLine(LINE);

// Loaded once the command line is read: --help and a wrong option answer without them.
const { default: pg } = await import("pg");
const { benchReport } = await import("./report.js");
const { openDatabase } = await import("../src/db/driver.js");
const { DEMO_UNIVERSITIES } = await import("../src/demo/index.js");
const { KeyStore } = await import("../src/keys/store.js");
const { MAX_COST } = await import("../src/input-limits.js");
const { request, startGateway, stopAllGateways, waitReady } = await import("../test/support/gateway-process.js");
const { startPostgres } = await import("../test/support/servers.js");
const SECONDS = integerOption(LINE, "seconds", values.seconds, 1);
const CLIENTS = integerOption(LINE, "clients", values.clients, 1);

const D = "daily { dateLocal tempCAvg tempCMin tempCMax rhAvg precipTotalMm pm25Avg pm10Avg aqiAvg } dataSources { id stationIds }";
const aliases = (n: number, field: (i: number) => string) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field(i)}`).join(" ")} }`;
const REGIONS = [...new Set(DEMO_UNIVERSITIES.map((u) => u.region))];
const courseIds = (k: number) => Array.from({ length: 100 }, (_, i) => Buffer.from(`Course:${k * 100 + i + 1}`).toString("base64"));

interface Attack {
  name: string;
  /** Accepted, close to the limit. */
  accepted: { query: string; variables?: Record<string, unknown> };
  /** One step costlier: refused. */
  refused: { query: string; variables?: Record<string, unknown> };
}

const allAttacks: Attack[] = [
  {
    name: "15 root histories, 90 down to 76 days, one school each",
    accepted: { query: aliases(15, (i) => `schoolEnvironmentHistory(ref: "${(i % 15) + 1}", days: ${90 - i}) { ${D} }`) },
    refused: { query: aliases(15, (i) => `universities(first: 2) { nodes { environmentHistory(days: ${90 - i}) { ${D} } } }`) },
  },
  {
    name: "15 schools' 90-day histories in one list",
    accepted: { query: `{ universities(first: 15) { nodes { code environmentHistory(days: 90) { ${D} } } } }` },
    refused: { query: `{ universities(first: 23) { nodes { code environmentHistory(days: 90) { ${D} } } } }` },
  },
  {
    name: "15 lists of one school's 90-day history (a batch each)",
    accepted: {
      query: aliases(
        15,
        (i) => `universities(first: 1, region: "${REGIONS[i % REGIONS.length]}") { nodes { environmentHistory(days: 90) { ${D} } } }`,
      ),
    },
    refused: {
      query: aliases(
        15,
        (i) => `universities(first: 2, region: "${REGIONS[i % REGIONS.length]}") { nodes { environmentHistory(days: 90) { ${D} } } }`,
      ),
    },
  },
  {
    name: "15 lists of 15 schools' 8-day histories",
    accepted: { query: aliases(15, (i) => `universities(first: 15) { nodes { environmentHistory(days: ${8 - (i % 2)}) { ${D} } } }`) },
    refused: { query: aliases(15, (i) => `universities(first: 15) { nodes { environmentHistory(days: ${10 - (i % 2)}) { ${D} } } }`) },
  },
  {
    name: "9 environment snapshot lists of 100 schools",
    accepted: {
      query: aliases(
        9,
        (i) =>
          `environmentSnapshot(limit: 100, region: "${REGIONS[i % REGIONS.length]}") { nodes { school { code } realtime { aqi pm25Ugm3 } ${D.replace("daily", "daily")} } }`,
      ),
    },
    refused: {
      query: aliases(
        10,
        (i) => `environmentSnapshot(limit: 100, region: "${REGIONS[i % REGIONS.length]}") { nodes { school { code } realtime { aqi } } }`,
      ),
    },
  },
  {
    name: "2 × nodes(ids:) with 100 course ids",
    accepted: {
      query: `query(${Array.from({ length: 2 }, (_, k) => `$i${k}: [ID!]!`).join(", ")}) ${aliases(2, (k) => `nodes(ids: $i${k}) { id ... on Course { courseNameChinese instructor } }`)}`,
      variables: Object.fromEntries(Array.from({ length: 2 }, (_, k) => [`i${k}`, courseIds(k)])),
    },
    refused: { query: `query($ids: [ID!]!) ${aliases(3, () => "nodes(ids: $ids) { id }")}`, variables: { ids: courseIds(0) } },
  },
  {
    name: "every school's 20 newest courses with their school",
    accepted: {
      query: `{ universities { nodes { code courses(first: 20) { totalCount nodes { databaseId courseNameChinese courseNameEnglish instructor semester university { code } } } } } }`,
    },
    refused: { query: `{ universities { nodes { code courses(first: 40) { totalCount nodes { databaseId university { code } } } } } }` },
  },
  {
    name: "15 course searches of 100 with a 200-character q",
    accepted: {
      query: aliases(
        15,
        (i) =>
          `courses(first: 100, q: "${"程式".repeat(99)}${i}") { totalCount nodes { databaseId courseNameChinese university { code } } }`,
      ),
    },
    refused: {
      query: aliases(
        15,
        (i) => `universities(first: 100, region: "r${i}") { nodes { courses(first: 100) { totalCount nodes { databaseId } } } }`,
      ),
    },
  },
];

const attacks = allAttacks.filter((a) => !values.only || a.name.includes(values.only));

/** The issue's attacks, sent to a gateway without the cost limit. */
const unlimited = [
  {
    name: "15 aliases of every school's history, 90 down to 76 days",
    query: aliases(15, (i) => `universities { nodes { environmentHistory(days: ${90 - i}) { ${D} } } }`),
  },
  {
    name: "15 aliases of every school's history, 30 down to 16 days",
    query: aliases(15, (i) => `universities { nodes { environmentHistory(days: ${30 - i}) { ${D} } } }`),
  },
  { name: "every school's 90-day history (no first)", query: `{ universities { nodes { environmentHistory(days: 90) { ${D} } } } }` },
];

/** What the other clients ask, in turn (the course is the newest public one, found at start). */
const others: { path: string; body?: unknown }[] = [
  { path: "/api/v1/universities" },
  { path: "/api/v1/courses?page_size=20" },
  { path: "/api/v1/courses/{newest}" },
  { path: "/api/v1/environment/schools/NTU" },
  { path: "/graphql", body: { query: "{ courses(first: 10) { totalCount nodes { databaseId courseNameChinese university { code } } } }" } },
  { path: "/graphql", body: { query: `{ schoolEnvironment(ref: "NTHU") { realtime { aqi } daily { tempCAvg } } }` } },
];

function post(gateway: GatewayProcess, key: string, body: unknown, timeoutMs = 30_000) {
  return request(gateway, "/graphql", {
    key,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    timeoutMs,
  });
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const ms = (x: number) => `${x.toFixed(0)} ms`;

/** The other clients: `CLIENTS` loops over `others` until `stop` resolves. Latencies of answers, and failures. */
async function otherClients(gateway: GatewayProcess, key: string, stop: Promise<void>) {
  let done = false;
  void stop.then(() => (done = true));
  const times: number[] = [];
  let failures = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = c; !done; i++) {
        const r = others[i % others.length]!;
        const a = r.body ? await post(gateway, key, r.body) : await request(gateway, r.path, { key });
        times.push(a.ms);
        if (a.status !== 200) failures++;
      }
    }),
  );
  times.sort((a, b) => a - b);
  return { count: times.length, p50: quantile(times, 0.5), p99: quantile(times, 0.99), max: times[times.length - 1] ?? NaN, failures };
}

const sleep = (s: number) => new Promise<void>((resolve) => setTimeout(resolve, s * 1000));

const report = benchReport("bench:cost");
report.progress.phase("starting PostgreSQL");
const server = await startPostgres();
try {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query("CREATE DATABASE bench");
  await admin.end();
  const url = new URL(server.url);
  url.pathname = "/bench";
  const env = { DATABASE_URL: url.toString(), RATE_LIMIT_PER_MINUTE: "100000000", RATE_LIMIT_PER_DAY: "100000000" };
  report.progress.phase("starting the gateway (imports the demo data)");
  const gateway = await startGateway("limited", env);
  await waitReady(gateway, 300_000); // it imports the demo data first
  const db = await openDatabase({ databaseUrl: url.toString() });
  const keys = new KeyStore(db);
  const attackerKey = (await keys.create({ name: "attacker", owner: "bench" })).key;
  const othersKey = (await keys.create({ name: "others", owner: "bench" })).key;
  await db.close();

  const newest = (await request(gateway, "/api/v1/courses?page_size=1", { key: othersKey })).json.items[0].id;
  for (const other of others) {
    other.path = other.path.replace("{newest}", String(newest));
    const a = other.body ? await post(gateway, othersKey, other.body) : await request(gateway, other.path, { key: othersKey });
    if (a.status !== 200) throw new Error(`the other clients' ${other.path} answers ${a.status}: ${a.text.slice(0, 200)}`);
  }
  report.say(
    `PostgreSQL private; gateway src/main.ts on the demo data; limit ${MAX_COST} points; ${CLIENTS} other clients; ${SECONDS} s a phase\n`,
  );

  // A gateway whose limit is 1 refuses everything, saying what it costs.
  const pricing = await startGateway("pricing", { ...env, QUERY_MAX_COST: "1" });
  await waitReady(pricing, 120_000);
  const costOf = async (body: unknown) => (await post(pricing, attackerKey, body)).json?.errors?.[0]?.extensions?.cost as number;

  report.say("1. Each attack, alone (times: median of 5)");
  report.say("| attack | cost | accepted: status, time | one step costlier |");
  report.say("|---|---|---|---|");
  report.progress.phase("1. each attack alone", { total: attacks.length, unit: "steps" });
  for (const [done, attack] of attacks.entries()) {
    report.progress.set(done);
    const first = await post(gateway, attackerKey, attack.accepted);
    if (first.status !== 200 || first.json?.errors) throw new Error(`${attack.name}: not accepted: ${first.text.slice(0, 300)}`);
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) runs.push((await post(gateway, attackerKey, attack.accepted)).ms);
    runs.sort((a, b) => a - b);
    const refused = await post(gateway, attackerKey, attack.refused);
    const cost = refused.json?.errors?.[0]?.extensions?.cost;
    if (refused.status !== 400 || refused.json?.errors?.[0]?.extensions?.code !== "QUERY_TOO_COSTLY") {
      throw new Error(`${attack.name}: the costlier neighbour was not refused: ${refused.status} ${refused.text.slice(0, 300)}`);
    }
    report.say(
      `| ${attack.name} | ${await costOf(attack.accepted)} | 200, ${ms(quantile(runs, 0.5))} (${first.text.length.toLocaleString("en")} bytes) | 400 in ${ms(refused.ms)}, cost ${cost} |`,
    );
  }

  report.say(`\n2. The other clients alone, ${SECONDS} s`);
  report.progress.phase("2. the other clients alone", { total: SECONDS, unit: "seconds" });
  const alone = await otherClients(gateway, othersKey, sleep(SECONDS));
  report.say(`   ${alone.count} answers, p50 ${ms(alone.p50)}, p99 ${ms(alone.p99)}, max ${ms(alone.max)}, failures ${alone.failures}`);

  report.say(`\n3. One attacker sending each attack back to back, with the other clients (${SECONDS} s each)`);
  report.say("| attack | attacker answers | attacker median / slowest | others p50 / p99 / max | others failures |");
  report.say("|---|---|---|---|---|");
  let worstAttack = 0;
  let worstOthers = 0;
  for (const [n, attack] of attacks.entries()) {
    report.progress.phase(`3. attack ${n + 1} of ${attacks.length} with the other clients`, { total: SECONDS, unit: "seconds" });
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const background = otherClients(gateway, othersKey, stopped);
    const times: number[] = [];
    const until = performance.now() + SECONDS * 1000;
    while (performance.now() < until) {
      const a = await post(gateway, attackerKey, attack.accepted);
      if (a.status !== 200) throw new Error(`${attack.name}: ${a.status} under load: ${a.text.slice(0, 200)}`);
      times.push(a.ms);
    }
    stop();
    const o = await background;
    times.sort((a, b) => a - b);
    worstAttack = Math.max(worstAttack, times[times.length - 1]!);
    worstOthers = Math.max(worstOthers, o.p99);
    report.say(
      `| ${attack.name} | ${times.length} | ${ms(quantile(times, 0.5))} / ${ms(times[times.length - 1]!)} | ${ms(o.p50)} / ${ms(o.p99)} / ${ms(o.max)} | ${o.failures} |`,
    );
  }
  report.say(`\n   slowest accepted attack: ${ms(worstAttack)} (goal < 1,000 ms); others' worst p99: ${ms(worstOthers)} (goal < 100 ms)`);

  report.say("\n4. The issue's attacks: refused here, and timed on a second gateway with the cost limit and the time limits off");
  report.progress.phase("4. the issue's attacks without the limit", { total: unlimited.length, unit: "steps" });
  const open = await startGateway("unlimited", {
    ...env,
    QUERY_MAX_COST: "1000000000000",
    REQUEST_TIMEOUT_MS: "60000",
    DB_STATEMENT_TIMEOUT_MS: "60000",
  });
  await waitReady(open, 120_000);
  for (const [done, attack] of unlimited.entries()) {
    report.progress.set(done);
    const refused = await post(gateway, attackerKey, { query: attack.query });
    const a = await post(open, attackerKey, { query: attack.query }, 120_000);
    report.say(
      `   ${attack.name}: limited gateway ${refused.status} in ${ms(refused.ms)} (cost ${refused.json?.errors?.[0]?.extensions?.cost}); without the limit ${a.status} in ${ms(a.ms)}, ${a.text.length.toLocaleString("en")} bytes`,
    );
  }
} finally {
  await stopAllGateways();
  await server.destroy();
}
await report.finish();
