/**
 * A copy of the embedded database, and what a damaged DATA_DIR does: with
 * real processes, `db:backup` while a gateway serves, a damaged directory
 * answered with one readable line (never PGlite's minified source), and
 * `db:restore` bringing the copy back (refused while a gateway serves).
 */
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";

import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { canaryExport } from "../support/canary.js";
import { cli } from "../support/cli.js";
import { migratedDataDir } from "../support/databases.js";
import { startGateway, stopAllGateways, stopGateway, waitReady } from "../support/gateway-process.js";
import { tempDir } from "../support/temp.js";

let tmp: string;
let dataDir: string;
let copy: string;
const keyNames = async () => {
  const list = await cli(dataDir, "keys", ["list", "--json"]);
  expect(list.code, list.stderr).toBe(0);
  return (JSON.parse(list.stdout) as { name: string }[]).map((k) => k.name);
};

beforeAll(async () => {
  tmp = tempDir("backup-");
  dataDir = migratedDataDir(join(tmp, "data"));
  copy = join(tmp, "copy.tar.gz");
  expect((await cli(dataDir, "import", ["-"], { input: JSON.stringify(canaryExport()) })).code).toBe(0);
  expect((await cli(dataDir, "keys", ["create", "--name", "before"])).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  rmSync(tmp, { recursive: true, force: true });
});

it("db:backup works while a gateway serves; db:restore refuses then", async () => {
  const gateway = await startGateway("serving", { DATA_DIR: dataDir });
  await waitReady(gateway, 120_000);
  const backedUp = await cli(dataDir, "backup", [copy]);
  expect(backedUp.stderr).toBe("");
  expect(backedUp.code).toBe(0);
  expect(backedUp.stdout).toMatch(new RegExp(`^backed up the embedded database to ${copy} \\([\\d,]+ bytes\\)\\n$`));
  expect(statSync(copy).size).toBeGreaterThan(1000);
  expect((await cli(dataDir, "keys", ["create", "--name", "after"])).code).toBe(0);

  const refused = await cli(dataDir, "restore", [copy]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/^db:restore failed: .* is in use by a running gateway \(pid \d+/);
  expect(refused.stderr.trim().split("\n")).toHaveLength(1);
  await stopGateway(gateway);
  expect(await keyNames()).toEqual(["before", "after"]);
}, 240_000);

it("a damaged DATA_DIR: one readable line and exit 1, from npm start and from a command", async () => {
  writeFileSync(join(dataDir, "global", "pg_control"), "not a control file");
  const gateway = await startGateway("damaged", { DATA_DIR: dataDir });
  expect(await gateway.exited).toBe(1);
  const lines = gateway.output().trim().split("\n");
  expect(lines).toEqual([
    `npm start: cannot open the embedded database in ${dataDir} (PGlite aborted while reading it): it is damaged or not a database. ` +
      "Restore a copy with npm run db:restore -- <file>, or move the directory away to start with an empty one",
  ]);
  const command = await cli(dataDir, "keys", ["list"]);
  expect(command.code).toBe(1);
  expect(command.stderr).toMatch(/^keys: cannot open the embedded database in .* Restore a copy with npm run db:restore -- <file>.*\n$/);
  expect(command.stderr.split("\n")).toHaveLength(2);
  expect(existsSync(join(dataDir, "owner.lock"))).toBe(false);
}, 120_000);

it("db:restore brings the copy back and keeps the damaged directory beside it", async () => {
  const restored = await cli(dataDir, "restore", [copy]);
  expect(restored.stderr).toBe("");
  expect(restored.code).toBe(0);
  expect(restored.stdout).toMatch(
    new RegExp(`^restored ${copy} into ${dataDir}; the previous directory is kept as ${dataDir}\\.before-restore-`),
  );
  expect(await keyNames()).toEqual(["before"]);
  expect(readdirSync(tmp).filter((name) => name.startsWith("data.before-restore-"))).toHaveLength(1);
  const gateway = await startGateway("restored", { DATA_DIR: dataDir });
  await waitReady(gateway, 120_000);
}, 180_000);
