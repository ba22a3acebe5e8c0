/**
 * `db:backup` and `db:restore` on the embedded PostgreSQL, with real
 * processes, while a gateway serves: the copy is one moment's data; restoring
 * it brings back every row (keys included), in one transaction that the
 * gateway's readers never see half-done, and the gateway answers from the
 * copy at once. A file that is not a whole copy changes nothing.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tableChecksums } from "../../src/db/backup.js";
import { CLUSTER_DIR } from "../../src/db/cluster-dir.js";
import { stopServer } from "../../src/db/embedded.js";
import { demoExportChunks } from "../../src/demo/index.js";
import { cli } from "../support/cli.js";
import { migratedDataDir } from "../support/databases.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";
import { tempDir } from "../support/temp.js";

const tmp = tempDir("backup-server-");
const dataDir = join(tmp, "data");
const copy = join(tmp, "copy.sql.gz");
let gateway: GatewayProcess;
let key: string;

/** `use` given a client of our own on the server's socket (the serving gateway keeps it running). */
async function withClient<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ host: join(dataDir, CLUSTER_DIR), port: 5432, user: "postgres", database: "postgres" });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Every key's name, as `keys list` lists them (read by SQL: a command's start is about 1 CPU-s, and the command has tests of its own). */
const keyNames = () =>
  withClient(async (client) => (await client.query<{ name: string }>("SELECT name FROM api_key")).rows.map((k) => k.name).sort());
const universities = async () => (await request(gateway, "/api/v1/universities?page_size=100", { key })).text;

/**
 * Each table's rows, checked row for row, but those a gateway writes by
 * itself (a key's last use and what it used, the environment computed from
 * the data) and the data version, which a restore moves on.
 */
function checksums(): Promise<Record<string, string>> {
  return withClient((client) =>
    tableChecksums(client, ["api_key", "data_version", "school_snapshot", "school_day", "usage_day", "usage_coordinate", "usage_batch"]),
  );
}

beforeAll(async () => {
  // A copy of the run's migrated DATA_DIR (no initdb here): the gateway imports the demo data into it and prints a key.
  gateway = await startGateway("serving", { DATA_DIR: migratedDataDir(dataDir), RATE_LIMIT_PER_MINUTE: "100000" });
  await waitReady(gateway, 180_000);
  key = /^ {2}(uedu_\w+)$/m.exec(gateway.output())![1]!;
  expect((await cli(dataDir, "keys", ["create", "--name", "before"])).code).toBe(0);
}, 240_000);

afterAll(async () => {
  await stopAllGateways();
  await stopServer(join(dataDir, CLUSTER_DIR));
  rmSync(tmp, { recursive: true, force: true });
}, 60_000);

let atBackup: string;
let sumsAtBackup: Record<string, string>;

it("db:backup writes every table's rows while the gateway serves", async () => {
  atBackup = await universities();
  sumsAtBackup = await checksums();
  const backedUp = await cli(dataDir, "backup", [copy]);
  expect(backedUp.stderr).toBe("");
  expect(backedUp.code).toBe(0);
  expect(backedUp.stdout).toMatch(new RegExp(`^backed up [\\d,]+ rows of \\d+ tables to ${copy} \\([\\d,]+ bytes\\)\\n$`));
  const text = gunzipSync(readFileSync(copy)).toString();
  expect(text.split("\n", 1)[0]).toBe("-- uedu-backup 1");
  expect(text).toMatch(/^COPY public\."api_key" \(.*\) FROM stdin;$/m);
  expect(text).toMatch(/^-- rows "university" 15$/m);
  expect(statSync(copy).mode & 0o777).toBe(0o600);
}, 60_000);

it("db:restore brings the copy back while the gateway serves: its readers see the old data or the copy, never an error", async () => {
  // Changes after the copy: a key, and the observations of other days (three, not the demo's 35: an import
  // replaces them all, and a smaller one is seconds of CPU less).
  expect((await cli(dataDir, "keys", ["create", "--name", "after"])).code).toBe(0);
  const imported = await cli(dataDir, "import", ["-"], {
    input: demoExportChunks({ now: new Date("2026-11-20T00:00:00Z"), days: 3 }),
  });
  expect(imported.code, imported.stderr).toBe(0);
  expect((await checksums()).observation).not.toBe(sumsAtBackup.observation);

  let stop = false;
  const seen: { status: number; text: string }[] = [];
  const poll = (async () => {
    while (!stop) {
      const answer = await request(gateway, "/api/v1/universities?page_size=100", { key, timeoutMs: 5_000 });
      seen.push({ status: answer.status, text: answer.text });
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const restored = await cli(dataDir, "restore", [copy]);
  stop = true;
  await poll;
  expect(restored.stderr).toBe("");
  expect(restored.code).toBe(0);
  expect(restored.stdout).toMatch(new RegExp(`^restored [\\d,]+ rows of \\d+ tables from ${copy}\\n$`));
  expect(seen.filter((s) => s.status !== 200)).toEqual([]);
  // Row for row, and the gateway answers from the copy at once.
  expect(await checksums()).toEqual(sumsAtBackup);
  expect(await universities()).toBe(atBackup);
  expect(await keyNames()).toEqual(["before", "development"]);
  // A key created after the restore takes the next id, not one the copy holds.
  const created = await cli(dataDir, "keys", ["create", "--name", "next", "--json"]);
  expect(created.code, created.stderr).toBe(0);
  expect(await keyNames()).toEqual(["before", "development", "next"]);
}, 120_000);

it("a file that is not a whole copy: exit 1, one line, and nothing changed", async () => {
  const before = await keyNames();
  const text = gunzipSync(readFileSync(copy)).toString();
  const cases: [string, Buffer, RegExp][] = [
    ["not-gzip", Buffer.from("hello"), /not a copy written by db:backup/],
    ["other-text", gzipSync("SELECT 1;\n"), /not a copy written by db:backup \(its first line is not the format's\)/],
    ["cut-short", gzipSync(text.slice(0, Math.floor(text.length * 0.7))), /cut short|rows, \d+ were read|lacks tables/],
    // Cut after a table's first row: the COPY under way must be failed before the transaction can roll back.
    [
      "cut-inside-a-table",
      gzipSync(text.slice(0, text.indexOf("\n", text.indexOf("\n", text.indexOf('\nCOPY public."university"') + 1) + 1) + 1)),
      /the copy ends inside table university: it is cut short/,
    ],
    [
      "wrong-count",
      gzipSync(text.replace(/^-- rows "university" 15$/m, '-- rows "university" 16')),
      /table university: the copy says 16 rows, 15 were read/,
    ],
  ];
  for (const [name, bytes, message] of cases) {
    const file = join(tmp, name);
    writeFileSync(file, bytes);
    const refused = await cli(dataDir, "restore", [file]);
    expect(refused.code, `${name}: ${refused.stderr}`).toBe(1);
    expect(refused.stderr).toMatch(message);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(await keyNames()).toEqual(before);
  }
  expect(await checksums()).toEqual(sumsAtBackup);
}, 120_000);
