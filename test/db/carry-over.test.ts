/**
 * A DATA_DIR written by PGlite (the embedded engine of earlier versions)
 * comes over whole into the embedded PostgreSQL, keys and all, checked row
 * for row: by `npm run db:carry-over`, or by `npm start` (or any command) by
 * itself. PGlite's files are kept, never deleted; nothing happens while an
 * earlier version's gateway has the directory, and there is nothing to carry
 * over a second time.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tableChecksums } from "../../src/db/backup.js";
import { CLUSTER_DIR } from "../../src/db/cluster-dir.js";
import { isPGliteDir, stopServer } from "../../src/db/embedded.js";
import { migrate } from "../../src/db/migrate.js";
import { LOCK_FILE, startTicksOf } from "../../src/db/owner.js";
import { openPGlite } from "../../src/db/pglite.js";
import { KeyStore } from "../../src/keys/store.js";
import { importExport } from "../../src/import/apply.js";
import { canaryExport } from "../support/canary.js";
import { cli } from "../support/cli.js";
import { request, startGateway, stopAllGateways, stopGateway, waitReady } from "../support/gateway-process.js";
import { tempDir } from "../support/temp.js";
import { Readable } from "node:stream";

const tmp = tempDir("carry-over-");
/** Carried over by the command. */
const dataDir = join(tmp, "data");
/** Carried over by npm start. */
const startedDir = join(tmp, "started");
let key: string;

/** Writes a PGlite DATA_DIR as an earlier version did: migrated, the canary data imported, one key (`key`, in both folders). */
async function writtenByPGlite(dir: string): Promise<string> {
  const db = await openPGlite(dir);
  try {
    await migrate(db);
    await importExport(db, Readable.from([JSON.stringify(canaryExport())]));
    return (await new KeyStore(db).create({ name: "kept" })).key;
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  key = await writtenByPGlite(dataDir);
  // The same files for npm start to carry over: PGlite's start, migration and import, in this
  // process, are most of this file's own CPU.
  cpSync(dataDir, startedDir, { recursive: true });
  expect(isPGliteDir(dataDir) && isPGliteDir(startedDir)).toBe(true);
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  await Promise.all([stopServer(join(dataDir, CLUSTER_DIR)), stopServer(join(startedDir, CLUSTER_DIR))]);
  rmSync(tmp, { recursive: true, force: true });
}, 60_000);

it("nothing happens while an earlier version's gateway has the directory: exit 2, one line, from the command and from npm start", async () => {
  // An earlier version's gateway: a live process named in its owner lock (with the command socket it had).
  const earlier: ChildProcess = spawn("sleep", ["600"], { stdio: "ignore" });
  try {
    const pid = earlier.pid!;
    const lock = {
      pid,
      startTicks: startTicksOf(pid),
      role: "gateway",
      socket: join(tmp, "gateway.sock"),
      since: new Date().toISOString(),
    };
    writeFileSync(join(dataDir, LOCK_FILE), `${JSON.stringify(lock)}\n`);
    const refused = await cli(dataDir, "carry-over", []);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(`^db:carry-over failed: .* is in use by a running gateway \\(pid ${pid}, since .*\\); stop it first .*\n$`),
    );
    const keys = await cli(dataDir, "keys", ["list"]);
    expect(keys.code).toBe(2);
    expect(keys.stderr).toMatch(new RegExp(`^keys: .* is in use by a running gateway \\(pid ${pid}, `));
    const gateway = await startGateway("refused", { DATA_DIR: dataDir });
    expect(await gateway.exited).toBe(2);
    expect(gateway.output()).toMatch(new RegExp(`^npm start: .* is in use by a running gateway \\(pid ${pid}, .*\n$`));
  } finally {
    earlier.kill();
  }
  expect(isPGliteDir(dataDir)).toBe(true);
  expect(existsSync(join(dataDir, CLUSTER_DIR))).toBe(false);
  expect(readdirSync(dataDir).filter((name) => name.startsWith("pglite-"))).toEqual([]);
}, 120_000);

it("npm start carries it over by itself (with WEB_CONCURRENCY too), then serves the same data and keys", async () => {
  const gateway = await startGateway("started", { DATA_DIR: startedDir, WEB_CONCURRENCY: "2", LOG_LEVEL: "info" });
  await waitReady(gateway, 180_000);
  expect(gateway.output()).toMatch(/"phase":"checking row for row".*carrying it into the embedded PostgreSQL/);
  expect(gateway.output()).not.toMatch(/importing the demo data|development key/);
  const answer = await request(gateway, "/api/v1/universities", { key });
  expect(answer.status).toBe(200);
  expect((answer.json.items as { code: string }[]).map((u) => u.code)).toEqual(["NTU", "NTHU", "UW"]);
  expect(isPGliteDir(startedDir)).toBe(false);
  expect(readdirSync(startedDir).filter((name) => name.startsWith("pglite-"))).toHaveLength(1);
  await stopGateway(gateway);
}, 300_000);

it("carries every row into the embedded PostgreSQL, checked row for row, and keeps PGlite's files", async () => {
  const carried = await cli(dataDir, "carry-over", [], { timeoutMs: 180_000 });
  expect(carried.stderr).toMatch(/checking row for row…\n/);
  expect(carried.code, carried.stderr).toBe(0);
  expect(carried.stdout).toMatch(
    /^carried [\d,]+ rows of \d+ tables from PGlite into the embedded PostgreSQL, checked row for row; PGlite's files are kept in .*\/pglite-[\dT-]+Z\n$/,
  );
  expect(isPGliteDir(dataDir)).toBe(false);
  const kept = readdirSync(dataDir).filter((name) => name.startsWith("pglite-"));
  expect(kept).toHaveLength(1);
  const keptDir = join(dataDir, kept[0]!);
  expect(isPGliteDir(keptDir)).toBe(true);
  expect(readdirSync(dataDir).sort()).toEqual([CLUSTER_DIR, kept[0], "postgres.log"].sort());

  // The gateway now runs on PostgreSQL: the key made on PGlite works, and the data is the same.
  const gateway = await startGateway("carried", { DATA_DIR: dataDir, LOG_LEVEL: "info" });
  await waitReady(gateway, 120_000);
  expect(gateway.output()).not.toMatch(/importing the demo data|development key/);
  const answer = await request(gateway, "/api/v1/universities", { key });
  expect(answer.status).toBe(200);
  expect((answer.json.items as { code: string }[]).map((u) => u.code)).toEqual(["NTU", "NTHU", "UW"]);

  // Independently of the command's own check: PGlite's kept files against the server, table by table.
  // api_key: the gateway records a key's last use; session_secret: it makes one where there is none.
  const recomputed = ["api_key", "data_version", "school_snapshot", "school_day", "session_secret"];
  const old = await openPGlite(keptDir);
  const client = new pg.Client({ host: join(dataDir, CLUSTER_DIR), port: 5432, user: "postgres", database: "postgres" });
  await client.connect();
  try {
    const before = await tableChecksums(
      { query: async <Row>(sql: string, params?: unknown[]) => ({ rows: await old.query<Row>(sql, params) }) },
      recomputed,
    );
    expect(await tableChecksums(client, recomputed)).toEqual(before);
    expect(Object.keys(before).length).toBeGreaterThan(10);
  } finally {
    await client.end();
    await old.close();
  }
  await stopGateway(gateway);
}, 300_000);

it("a second carry-over finds nothing to carry: exit 1, one line", async () => {
  const again = await cli(dataDir, "carry-over", []);
  expect(again.code).toBe(1);
  expect(again.stderr).toMatch(/^db:carry-over failed: .* holds no PGlite database: there is nothing to carry over\n$/);
}, 60_000);
