/**
 * `npm run db:carry-over`: a DATA_DIR written by PGlite comes over whole into
 * the embedded PostgreSQL, keys and all, checked row for row; PGlite's files
 * are kept, never deleted; it refuses while the previous version's gateway
 * has the directory, and there is nothing to carry over a second time.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tableChecksums } from "../../src/db/backup.js";
import { openPGlite } from "../../src/db/driver.js";
import { CLUSTER_DIR, isPGliteDir, stopServer } from "../../src/db/embedded.js";
import { canaryExport } from "../support/canary.js";
import { cli } from "../support/cli.js";
import { migratedDataDir } from "../support/databases.js";
import { request, startGateway, stopAllGateways, stopGateway, waitReady } from "../support/gateway-process.js";
import { tempDir } from "../support/temp.js";

const tmp = tempDir("carry-over-");
let dataDir: string;
let key: string;

beforeAll(async () => {
  dataDir = migratedDataDir(join(tmp, "data"));
  expect((await cli(dataDir, "import", ["-"], { input: JSON.stringify(canaryExport()) })).code).toBe(0);
  const created = await cli(dataDir, "keys", ["create", "--name", "kept", "--json"]);
  expect(created.code, created.stderr).toBe(0);
  key = (JSON.parse(created.stdout.trim()) as { key: string }).key;
  expect(isPGliteDir(dataDir)).toBe(true);
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  await stopServer(join(dataDir, CLUSTER_DIR));
  rmSync(tmp, { recursive: true, force: true });
}, 60_000);

it("refuses while the previous version's gateway has the directory, and changes nothing", async () => {
  const gateway = await startGateway("pglite", { DATA_DIR: dataDir });
  await waitReady(gateway, 120_000);
  const refused = await cli(dataDir, "carry-over", []);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/^db:carry-over failed: .* is in use by a running gateway \(pid \d+, since .*\); stop it first/);
  expect(refused.stderr.trim().split("\n")).toHaveLength(1);
  await stopGateway(gateway);
  expect(isPGliteDir(dataDir)).toBe(true);
  expect(existsSync(join(dataDir, CLUSTER_DIR))).toBe(false);
}, 180_000);

it("WEB_CONCURRENCY on a PGlite DATA_DIR: exit 2 and one line naming the carry-over, before anything opens it", async () => {
  const gateway = await startGateway("pglite-workers", { DATA_DIR: dataDir, WEB_CONCURRENCY: "2" });
  expect(await gateway.exited).toBe(2);
  expect(gateway.output()).toBe(
    `npm start: WEB_CONCURRENCY above 1 needs PostgreSQL, and ${dataDir} holds a PGlite database, which one process alone can open: stop the gateway and run npm run db:carry-over first\n`,
  );
  expect(isPGliteDir(dataDir)).toBe(true);
}, 60_000);

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
  const recomputed = ["api_key", "data_version", "school_snapshot", "school_day"];
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
