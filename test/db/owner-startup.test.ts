/**
 * A command sent while the owning gateway is still starting (its first start
 * imports the demo data before it takes commands) waits for it, then runs in
 * it, instead of failing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { cli } from "../support/cli.js";
import { request, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";

const tmp = mkdtempSync(join(tmpdir(), "owner-startup-"));
const dataDir = join(tmp, "data");
afterAll(async () => {
  await stopAllGateways();
  rmSync(tmp, { recursive: true, force: true });
});

it("a key asked for during the first start's demo import is created once the gateway takes commands", async () => {
  const gateway = await startGateway("first-start", { DATA_DIR: dataDir });
  const lock = join(dataDir, "owner.lock");
  // The lock is created, then written: wait for what it says, not only for the file.
  const role = () => (existsSync(lock) ? /"role":"(\w+)"/.exec(readFileSync(lock, "utf8"))?.[1] : undefined);
  while (role() === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(role()).toBe("gateway");
  const created = await cli(dataDir, "keys", ["create", "--name", "early", "--json"], { timeoutMs: 200_000 });
  expect(created.code, created.stderr).toBe(0);
  expect(created.stderr).toBe("waiting for the gateway to finish starting…\n");
  const { key } = JSON.parse(created.stdout.trim()) as { key: string };
  await waitReady(gateway, 200_000);
  expect((await request(gateway, "/api/v1/universities", { key })).json.items).toHaveLength(15);
}, 300_000);
