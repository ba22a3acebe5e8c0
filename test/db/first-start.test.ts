/**
 * A command run while a gateway's first start is still importing the demo
 * data joins the embedded server and does its work at once, instead of
 * failing or waiting for the import: the import is one transaction, and the
 * key is a row of its own.
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
afterAll(async () => {
  await stopAllGateways();
  await stopServer(join(dataDir, CLUSTER_DIR));
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
