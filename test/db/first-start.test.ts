/**
 * A gateway's first start on a new DATA_DIR, beside others:
 * - a command run while it is still importing the demo data joins the
 *   embedded server and does its work at once, instead of failing or waiting
 *   for the import: the import is one transaction, and the key is a row of
 *   its own;
 * - two first starts at once (a double launch) prepare the database one
 *   after the other: one imports the demo data and prints a key, the other
 *   waits, then serves the same data.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { CLUSTER_DIR } from "../../src/db/cluster-dir.js";
import { stopServer } from "../../src/db/embedded.js";
import { cli } from "../support/cli.js";
import { request, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";
import { tempDir } from "../support/temp.js";

const tmp = tempDir("first-start-");
const dataDir = join(tmp, "data");
const twiceDir = join(tmp, "twice");
afterAll(async () => {
  await stopAllGateways();
  await stopServer(join(dataDir, CLUSTER_DIR));
  await stopServer(join(twiceDir, CLUSTER_DIR));
  rmSync(tmp, { recursive: true, force: true });
}, 60_000);

it("a key asked for during the first start's demo import is created at once, and works once the gateway serves", async () => {
  const gateway = await startGateway("first-start", { DATA_DIR: dataDir, LOG_LEVEL: "info" });
  // The server runs (its lock file is there) and the gateway has begun the demo import.
  while (!/importing the demo data/.test(gateway.output()) || !existsSync(join(dataDir, CLUSTER_DIR, "postmaster.pid"))) {
    if (!gateway.alive) throw new Error(gateway.output());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const created = await cli(dataDir, "keys", ["create", "--name", "early", "--json"], { timeoutMs: 200_000 });
  expect(created.code, created.stderr).toBe(0);
  expect(created.stderr).toBe("");
  // Created while the import was still running.
  expect(gateway.output()).not.toMatch(/imported the demo data/);
  const { key } = JSON.parse(created.stdout.trim()) as { key: string };
  await waitReady(gateway, 200_000);
  expect((await request(gateway, "/api/v1/universities", { key })).json.items).toHaveLength(15);
}, 300_000);

it("two first starts at once on a new DATA_DIR: one imports the demo data and prints a key, the other waits, then both serve it", async () => {
  const env = { DATA_DIR: twiceDir, LOG_LEVEL: "info" };
  const both = await Promise.all([startGateway("twice-a", env), startGateway("twice-b", env)]);
  await Promise.all(both.map((gateway) => waitReady(gateway, 200_000)));
  const outputs = both.map((gateway) => gateway.output());
  expect(
    outputs.filter((output) => /importing the demo data/.test(output)),
    outputs.join("\n"),
  ).toHaveLength(1);
  expect(outputs.filter((output) => /development key was created/.test(output))).toHaveLength(1);
  expect(outputs.join("\n")).not.toMatch(/deadlock|^\s+at /m);
  const key = /Authorization: Bearer (uedu_\w+)/.exec(outputs.join("\n"))?.[1];
  for (const gateway of both) expect((await request(gateway, "/api/v1/universities", { key: key! })).json.items).toHaveLength(15);
}, 300_000);
