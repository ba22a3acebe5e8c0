/**
 * The service beyond one machine, on real servers on this one: a private
 * PostgreSQL primary, two streaming replicas made by `pg_basebackup` (one
 * held 1.5 s behind with `recovery_min_apply_delay`), a private Redis, and
 * three gateway processes (`npm start`'s entry) sharing all of them.
 *
 * Reads land on the replicas (a trace's SQL spans say which); after an import, no host answers the old data
 * once it has answered the new, and every host answers the new within the
 * lag plus 2 s; a key created or revoked is honoured at once on every host;
 * a replica stopped under load costs no request; a persisted document
 * registered on one host runs on another; a key's limits hold across hosts;
 * with every replica gone the primary serves and `/readyz` stays 200. And a
 * replica that is the primary itself is refused at start, touching nothing.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { KeyStore } from "../../src/keys/store.js";
import { builtCommand } from "../support/built.js";
import { canaryExport } from "../support/canary.js";
import { awayFromMinuteBoundary } from "../support/clock.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";
import { findRedisServer, type PrivateServer, startPostgres, startRedis, startReplica } from "../support/servers.js";
import { type OtlpReceiver, otlpReceiver } from "../support/otlp-receiver.js";
import { createThrowawayDatabase } from "../support/throwaway-postgres.js";

const ROOT = join(import.meta.dirname, "..", "..");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const skipped = findRedisServer() ? "" : " (skipped: redis-server is not installed)";

/** How far behind the delayed replica replays. */
const DELAY_MS = 1_500;
const RENAMED = "National Taiwan University (renamed)";

let primary: Awaited<ReturnType<typeof startPostgres>>;
let near: PrivateServer;
let behind: PrivateServer;
let redis: PrivateServer;
let db: Database;
let keys: KeyStore;
let key: string;
let hosts: GatewayProcess[];
/** The test database's URL on a server (the replicas have it by replication). */
let on: (server: PrivateServer) => string;
let receiver: OtlpReceiver;

/** A GraphQL document no host has kept an answer to: the same question, asked for the first time. */
let asked = 0;
const fresh = () => `query Fresh${++asked} { universities(first: 10) { nodes { databaseId nameEn } } }`;

async function graphql(host: GatewayProcess, query: string, extensions?: unknown) {
  return request(host, "/graphql", {
    key,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query, ...(extensions ? { extensions } : {}) }),
  });
}

/** A metric's value on a host, by its labels as written (`target="127.0.0.1:5433"`); 0 when absent. */
async function metric(host: GatewayProcess, name: string, labels: string): Promise<number> {
  const { text } = await request(host, "/metrics");
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && labels.split(",").every((label) => l.includes(label)));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

const replicaLabel = (server: PrivateServer) => `replica="127.0.0.1:${server.port}"`;

/** Waits until every host reports `server` in `state` (within `ms`); returns how long it took. */
async function everyHostSees(server: PrivateServer, state: string, ms: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const found = await Promise.all(hosts.map((h) => metric(h, "gateway_db_replica_state", `${replicaLabel(server)},state="${state}"`)));
    if (found.every((v) => v === 1)) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`not every host saw ${server.port} ${state} within ${ms} ms: ${found}`);
    await sleep(50);
  }
}

beforeAll(async () => {
  if (skipped) return;
  primary = await startPostgres();
  [near, behind, redis] = await Promise.all([startReplica(primary), startReplica(primary, { delayMs: DELAY_MS }), startRedis()]);
  db = await freshDatabase(primary.url);
  const path = new URL(db.url).pathname;
  on = (server) => `postgresql://postgres@127.0.0.1:${server.port}${path}`;
  await importObject(db, canaryExport());
  keys = new KeyStore(db);
  key = (await keys.create({ name: "topology" })).key;
  const env = {
    DATABASE_URL: db.url,
    DATABASE_REPLICA_URLS: `${on(near)},${on(behind)}`,
    REDIS_URL: redis.url,
    RATE_LIMIT_PER_MINUTE: "1000000",
    RATE_LIMIT_PER_DAY: "1000000000",
    LOG_LEVEL: "warn",
  };
  // The third host exports its traces, to show which server each statement ran on.
  receiver = await otlpReceiver();
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_BSP_SCHEDULE_DELAY: "50" };
  hosts = await Promise.all([1, 2, 3].map((n) => startGateway(`host ${n}`, n === 3 ? { ...env, ...traced } : env)));
  await Promise.all(hosts.map((h) => waitReady(h)));
  // The delayed replica has the test database once it has replayed its creation.
  await everyHostSees(near, "healthy", 10_000);
  await everyHostSees(behind, "healthy", 10_000);
  // And past each host's first fence (taken at its start), which the delayed replica replays 1.5 s late.
  await sleep(DELAY_MS + 500);
}, 180_000);

afterAll(async () => {
  await stopAllGateways();
  await receiver?.close();
  await db?.close();
  await Promise.all([near?.destroy(), behind?.destroy(), redis?.destroy()]);
  await primary?.destroy();
});

describe.skipIf(skipped)(`three hosts, a primary, two replicas and Redis${skipped}`, () => {
  it("reads land on the replicas, on every host", async () => {
    for (const host of hosts) {
      for (let i = 0; i < 6; i++) expect((await graphql(host, fresh())).status).toBe(200);
      const onNear = await metric(host, "gateway_db_reads_total", `target="127.0.0.1:${near.port}"`);
      const onBehind = await metric(host, "gateway_db_reads_total", `target="127.0.0.1:${behind.port}"`);
      expect(onNear, host.name).toBeGreaterThan(0);
      expect(onBehind, host.name).toBeGreaterThan(0);
    }
    // A trace's SQL spans name the server each statement ran on: the answers' on the replicas, the key check's on the primary.
    const ports = new Set<number>();
    for (let i = 0; i < 100 && !(ports.has(near.port) && ports.has(behind.port) && ports.has(primary.port)); i++) {
      await sleep(50);
      for (const span of receiver.spans)
        if (span.scope === "@opentelemetry/instrumentation-pg") ports.add(Number(span.attributes["server.port"]));
    }
    expect([...ports].sort()).toEqual([primary.port, near.port, behind.port].sort());
  });

  it("after an import, no host answers the old data once it has answered the new, and every host has the new within the lag plus 2 s", async () => {
    const seen: { host: string; how: string; startedAt: number; name: string }[] = [];
    const failures: string[] = [];
    let polling = true;
    const pollers = hosts.flatMap((host) =>
      (["kept", "fresh"] as const).map(async (how) => {
        while (polling) {
          const startedAt = Date.now();
          const answer = how === "kept" ? await request(host, "/api/v1/universities", { key }) : await graphql(host, fresh());
          if (answer.status !== 200) failures.push(`${host.name} ${how}: ${answer.status} ${answer.text}`);
          else {
            const name: string =
              how === "kept"
                ? answer.json.items.find((u: { id: number }) => u.id === 1).name_en
                : answer.json.data.universities.nodes.find((u: { databaseId: number }) => u.databaseId === 1).nameEn;
            seen.push({ host: host.name, how, startedAt, name });
          }
          await sleep(10);
        }
      }),
    );
    await sleep(500);
    const changed = canaryExport();
    changed.universities[0]!.name_en = RENAMED;
    await importObject(db, changed);
    const committed = Date.now();
    await sleep(DELAY_MS + 2_500);
    polling = false;
    await Promise.all(pollers);
    expect(failures).toEqual([]);

    for (const host of hosts) {
      for (const how of ["kept", "fresh"]) {
        const answers = seen.filter((s) => s.host === host.name && s.how === how).sort((a, b) => a.startedAt - b.startedAt);
        const firstNew = answers.findIndex((s) => s.name === RENAMED);
        expect(firstNew, `${host.name} ${how}: the new name`).toBeGreaterThan(0);
        expect(
          answers.slice(firstNew).filter((s) => s.name !== RENAMED),
          `${host.name} ${how}: old after new`,
        ).toEqual([]);
        expect(answers[firstNew]!.startedAt - committed, `${host.name} ${how}: new within lag + 2 s`).toBeLessThan(DELAY_MS + 2_000);
      }
    }
  }, 30_000);

  it("a key created on the primary works at once on every host, and a revoked one is refused within a second", async () => {
    const created = await keys.create({ name: "new on every host" });
    const answers = await Promise.all(hosts.map((h) => request(h, "/api/v1/universities", { key: created.key })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    await keys.revoke(String(created.id));
    const started = Date.now();
    for (const host of hosts) {
      while ((await request(host, "/api/v1/universities", { key: created.key })).status !== 401) {
        expect(Date.now() - started, host.name).toBeLessThan(1_000);
        await sleep(20);
      }
    }
  });

  it("a replica stopped under load, and started again, costs no request", async () => {
    const statuses: number[] = [];
    let loading = true;
    const load = hosts.flatMap((host) =>
      [0, 1].map(async () => {
        while (loading) statuses.push((await graphql(host, fresh())).status);
      }),
    );
    await sleep(500);
    await near.stop();
    const left = await everyHostSees(near, "down", 3_000);
    await sleep(500);
    await near.start();
    await everyHostSees(near, "healthy", 10_000);
    await sleep(300);
    loading = false;
    await Promise.all(load);
    expect(statuses.length).toBeGreaterThan(50);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(left).toBeLessThan(2_500);
  }, 30_000);

  it("a persisted document registered on one host runs by its hash on the others", async () => {
    const query = fresh();
    const extensions = { persistedQuery: { version: 1, sha256Hash: createHash("sha256").update(query).digest("hex") } };
    const registered = await graphql(hosts[0]!, query, extensions);
    expect(registered.status).toBe(200);
    for (const host of hosts.slice(1)) {
      let byHash = await request(host, `/graphql?extensions=${encodeURIComponent(JSON.stringify(extensions))}`, { key });
      // The registration reaches Redis just after its answer.
      for (let i = 0; i < 50 && byHash.status === 404; i++) {
        await sleep(20);
        byHash = await request(host, `/graphql?extensions=${encodeURIComponent(JSON.stringify(extensions))}`, { key });
      }
      expect(byHash.status, host.name).toBe(200);
      expect(byHash.json).toEqual(registered.json);
    }
  });

  it("an answer computed on one host is written by the others from Redis", async () => {
    const path = `/api/v1/courses?page_size=${2 + Math.floor(Math.random() * 50)}`;
    const hits = (h: GatewayProcess) => metric(h, "gateway_response_cache_shared_total", 'result="hit"');
    const look = new Redis(redis.url);
    try {
      const before = (await look.keys("uedu:answer:*")).length;
      const first = await request(hosts[0]!, path, { key });
      expect(first.status).toBe(200);
      // The store reaches Redis just after the first host's answer.
      for (let i = 0; i < 100 && (await look.keys("uedu:answer:*")).length === before; i++) await sleep(20);
      for (const host of hosts.slice(1)) {
        const hitsBefore = await hits(host);
        const answer = await request(host, path, { key });
        expect(answer.status).toBe(200);
        expect(answer.text).toBe(first.text);
        expect(await hits(host), host.name).toBe(hitsBefore + 1);
      }
    } finally {
      look.disconnect();
    }
  });

  it("a key's limits hold across hosts", async () => {
    const limited = await keys.create({ name: "limited", perMinute: 6 });
    await awayFromMinuteBoundary();
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await request(hosts[i % 3]!, "/api/v1/universities", { key: limited.key })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429]);
  });

  it("with every replica gone, the primary serves and /readyz stays 200; the replicas return when started", async () => {
    await Promise.all([near.stop(), behind.stop()]);
    await Promise.all([everyHostSees(near, "down", 3_000), everyHostSees(behind, "down", 3_000)]);
    for (const host of hosts) {
      expect((await request(host, "/readyz")).status).toBe(200);
      const answer = await graphql(host, fresh());
      expect(answer.status).toBe(200);
      expect(answer.json.data.universities.nodes[0].nameEn).toBe(RENAMED);
    }
    await Promise.all([near.start(), behind.start()]);
    await everyHostSees(near, "healthy", 10_000);
    await everyHostSees(behind, "healthy", 10_000);
  }, 30_000);

  it("refuses, at start, a replica that is the primary under another name: one line, exit 2, nothing written", async () => {
    const empty = await createThrowawayDatabase(primary.url, "gw_self");
    try {
      const path = new URL(empty.url).pathname;
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: empty.url,
        DATABASE_REPLICA_URLS: `${on(near).replace(new URL(db.url).pathname, path)},postgresql://postgres@localhost:${primary.port}${path}`,
      };
      const [node, ...command] = builtCommand("src/main.ts");
      const child = spawn(node, command, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      const code = await new Promise((resolve) => child.on("close", resolve));
      expect(stderr).toBe(
        `npm start: invalid configuration: DATABASE_REPLICA_URLS names the primary itself (replica 2, localhost:${primary.port}${path}, is the server of DATABASE_URL, not in recovery): list only its streaming replicas\n`,
      );
      expect(stdout).toBe("");
      expect(code).toBe(2);
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: empty.url });
      await client.connect();
      const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'");
      await client.end();
      expect(rows[0].n).toBe(0);
    } finally {
      await empty.drop();
    }
  });
});
