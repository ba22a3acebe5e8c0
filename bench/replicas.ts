/**
 * What read replicas cost and what they take off the primary
 * (src/db/replicas.ts), on private servers on this machine: a primary and
 * two streaming replicas made by `pg_basebackup` (one replaying 1.5 s late),
 * holding the demo data.
 *
 * 1. The fence check, per request: the gateway's CPU per uncached nested
 *    GraphQL request when its read client goes through the router (health,
 *    fence, rotation, counters) and when it goes straight to the same
 *    replica, interleaved in one run.
 * 2. Where reads go under load: a gateway process (`npm start`'s entry)
 *    answering uncached GraphQL and REST from 8 clients for 15 s, with and
 *    without replicas, without data changes and with one every 2 s (the
 *    data version and the notice an import commits); the share of
 *    transactions each server ran (pg_stat_database), and the gateway's own
 *    count of reads by target.
 *
 *   npm run bench:replicas
 */
import { Readable } from "node:stream";
import { commandLine } from "../src/cli/args.js";
import { benchReport } from "./report.js";
import type { GatewayProcess } from "../test/support/gateway-process.js";
import type { PrivateServer } from "../test/support/servers.js";

commandLine({
  name: "bench:replicas",
  usage: `usage: npm run bench:replicas

The cost of routing reads to replicas (CPU per uncached request, through the
router and straight to a replica, interleaved), and the share of reads that
reach the primary under load, with and without replicas and imports.`,
  options: {},
});

// Loaded once the command line is read: --help and a wrong option answer without them.
const { announceChange } = await import("../src/db/changes.js");
const { createReadClient } = await import("../src/db/client.js");
const { openDatabase } = await import("../src/db/driver.js");
const { migrate } = await import("../src/db/migrate.js");
const { ReadRouter } = await import("../src/db/replicas.js");
const { demoExportChunks } = await import("../src/demo/index.js");
const { importExport } = await import("../src/import/apply.js");
const { KeyStore } = await import("../src/keys/store.js");
const { createGateway } = await import("../src/server.js");
const { request, startGateway, stopAllGateways, waitReady } = await import("../test/support/gateway-process.js");
const { startPostgres, startReplica } = await import("../test/support/servers.js");
const { createThrowawayDatabase } = await import("../test/support/throwaway-postgres.js");
const report = benchReport("bench:replicas");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

report.progress.phase("servers: a primary, two replicas, the demo data");
const primary = await startPostgres();
const [near, behind] = await Promise.all([startReplica(primary), startReplica(primary, { delayMs: 1_500 })]);
const { url } = await createThrowawayDatabase(primary.url, "bench_replicas");
const db = await openDatabase({ databaseUrl: url });
await migrate(db);
await importExport(db, Readable.from(demoExportChunks()));
const path = new URL(url).pathname;
const on = (server: PrivateServer) => `postgresql://postgres@127.0.0.1:${server.port}${path}`;
// The delayed replica has the data 1.5 s after the import.
await sleep(3_000);

const NESTED = `query Nested($n: Int) { universities(first: $n) { nodes { code nameEn courses(first: 5) { totalCount nodes { databaseId courseNameEnglish instructor } } } } }`;

// 1. The router's cost, per request.
{
  const router = new ReadRouter(db, { urls: [on(near), on(behind)], maxLagMs: 5_000 });
  await router.start();
  const direct = await openDatabase({ databaseUrl: on(near) });
  const targets = {
    direct: createGateway({ db, prisma: createReadClient(direct), auth: false, answers: undefined }),
    router: createGateway({ db, prisma: createReadClient(router), auth: false, answers: undefined }),
  };
  const ask = async (gateway: (typeof targets)["direct"], i: number) => {
    const response = await gateway.fetch("http://bench/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: NESTED, variables: { n: 1 + (i % 5) } }),
    });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    await response.arrayBuffer();
  };
  const ROUNDS = 10;
  const PER_ROUND = 500;
  const cpu: Record<keyof typeof targets, number[]> = { direct: [], router: [] };
  report.progress.phase("the router's cost per request", { total: ROUNDS * 2, unit: "steps" });
  for (const name of ["direct", "router"] as const) for (let i = 0; i < 300; i++) await ask(targets[name], i);
  let steps = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of (round % 2 ? ["router", "direct"] : ["direct", "router"]) as (keyof typeof targets)[]) {
      const before = process.cpuUsage();
      for (let i = 0; i < PER_ROUND; i++) await ask(targets[name], i);
      const used = process.cpuUsage(before);
      cpu[name].push((used.user + used.system) / PER_ROUND);
      report.progress.set(++steps);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const [d, r] = [mean(cpu.direct), mean(cpu.router)];
  report.say("\n1. CPU of this process per uncached nested GraphQL request (µs), straight to a replica and through the router:");
  report.say(`   direct  ${cpu.direct.map((x) => x.toFixed(0)).join(" ")}  mean ${d.toFixed(0)}`);
  report.say(`   router  ${cpu.router.map((x) => x.toFixed(0)).join(" ")}  mean ${r.toFixed(0)}`);
  report.say(`   router ÷ direct = ${(r / d).toFixed(3)} (${(r - d).toFixed(0)} µs per request)`);
  // The check itself, per statement: the choice of a replica past the fence, and its count.
  const N = 1_000_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < N; i++) router.pick();
  const ns = Number(process.hrtime.bigint() - started) / N;
  report.say(`   the fence check and rotation alone (ReadRouter.pick): ${ns.toFixed(0)} ns per statement`);
  await router.close();
  await direct.close();
}

// 2. Where reads go under load.
const key = (await new KeyStore(db).create({ name: "bench", perMinute: 1_000_000, perDay: 1_000_000_000 })).key;
const servers: [string, PrivateServer][] = [
  ["primary", primary],
  ["replica", near],
  ["replica (1.5 s behind)", behind],
];
async function transactions(): Promise<number[]> {
  return Promise.all(
    servers.map(async ([, server]) => {
      const c = await openDatabase({ databaseUrl: server === primary ? url : on(server) });
      try {
        const [row] = await c.query<{ n: string }>(
          "SELECT (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = current_database()",
        );
        return Number(row!.n);
      } finally {
        await c.close();
      }
    }),
  );
}

let asked = 0;
async function load(
  gateway: GatewayProcess,
  seconds: number,
  importEvery: number | undefined,
): Promise<{ requests: number; failed: number; imports: number }> {
  let requests = 0;
  let failed = 0;
  let imports = 0;
  const until = Date.now() + seconds * 1_000;
  const clients = Array.from({ length: 8 }, async (_, c) => {
    while (Date.now() < until) {
      const n = ++asked;
      const answer =
        c % 2
          ? await request(gateway, `/api/v1/courses?page_size=${1 + (n % 100)}&page=${1 + (n % 7)}`, { key })
          : await request(gateway, "/graphql", {
              key,
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                query: `query Q${n % 5000} { universities(first: ${1 + (n % 9)}) { nodes { code courses(first: 3) { totalCount } } } }`,
              }),
            });
      requests++;
      if (answer.status !== 200) failed++;
    }
  });
  const importer = (async () => {
    if (!importEvery) return;
    while (Date.now() + importEvery * 1_000 < until) {
      await sleep(importEvery * 1_000);
      // What an import or ingest commits besides its rows: the data version moves and the notice goes out.
      await db.transaction((tx) => announceChange(tx));
      imports++;
    }
  })();
  await Promise.all([...clients, importer]);
  return { requests, failed, imports };
}

async function readsByTarget(gateway: GatewayProcess): Promise<Map<string, number>> {
  const { text } = await request(gateway, "/metrics");
  const found = new Map<string, number>();
  for (const [, target, n] of text.matchAll(/^gateway_db_reads_total\{target="([^"]+)"\} (\d+)/gm)) found.set(target!, Number(n));
  return found;
}

const SECONDS = 15;
report.say(
  `\n2. Where reads go: ${SECONDS} s of 8 clients (uncached GraphQL and REST answers), by server (transactions, pg_stat_database):`,
);
for (const replicas of [false, true]) {
  for (const importEvery of [undefined, 2]) {
    report.progress.phase(
      `load: ${replicas ? "with" : "without"} replicas, ${importEvery ? `an import every ${importEvery} s` : "no import"}`,
    );
    const gateway = await startGateway("bench", {
      DATABASE_URL: url,
      ...(replicas ? { DATABASE_REPLICA_URLS: `${on(near)},${on(behind)}` } : {}),
      LOG_LEVEL: "warn",
    });
    await waitReady(gateway);
    await sleep(1_000);
    const before = await transactions();
    const readsBefore = replicas ? await readsByTarget(gateway) : new Map();
    const { requests, failed, imports } = await load(gateway, SECONDS, importEvery);
    const after = await transactions();
    const readsAfter = replicas ? await readsByTarget(gateway) : new Map();
    await stopAllGateways();
    const delta = after.map((n, i) => n - before[i]!);
    const total = delta.reduce((a, b) => a + b, 0);
    const shares = servers.map(([name], i) => `${name} ${((100 * delta[i]!) / total).toFixed(1)}%`).join(", ");
    report.say(
      `   ${replicas ? "with replicas   " : "without replicas"} ${importEvery ? `a change every ${importEvery} s (${imports})` : "no change            "}: ${requests.toLocaleString("en-US")} requests (${(requests / SECONDS).toFixed(0)}/s, ${failed} failed); ${shares}`,
    );
    if (replicas) {
      const reads = [...readsAfter].map(([target, n]) => [target, n - (readsBefore.get(target) ?? 0)] as const);
      const all = reads.reduce((a, [, n]) => a + n, 0);
      const primaryReads = reads.find(([t]) => t === "primary")?.[1] ?? 0;
      report.say(
        `      the gateway's own count: ${all.toLocaleString("en-US")} reads, ${((100 * primaryReads) / all).toFixed(2)}% on the primary`,
      );
    }
  }
}

await db.close();
await Promise.all([near.destroy(), behind.destroy()]);
await primary.destroy();
await report.finish();
