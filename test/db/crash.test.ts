/**
 * `kill -9` on the embedded default loses nothing acknowledged: every key
 * printed before the gateway was killed under load works after the restart
 * (which takes over the server the dead gateway left), and an import killed
 * half-way leaves the gateway serving and did not happen at all.
 * (src/db/embedded-server.test.ts kills the gateway at rest, an import
 * alone, and the server itself.)
 */
import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";

import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CLUSTER_DIR } from "../../src/db/cluster-dir.js";
import { stopServer } from "../../src/db/embedded.js";
import { demoExportChunks } from "../../src/demo/index.js";
import { canaryExport } from "../support/canary.js";
import { cli, type ProgressLine } from "../support/cli.js";
import { migratedDataDir } from "../support/databases.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";
import { tempDir } from "../support/temp.js";

let tmp: string;
let dataDir: string;
let key: string;

beforeAll(async () => {
  tmp = tempDir("crash-");
  dataDir = migratedDataDir(join(tmp, "data"));
  expect((await cli(dataDir, "import", ["-"], { input: JSON.stringify(canaryExport()) })).code).toBe(0);
  const created = await cli(dataDir, "keys", ["create", "--name", "before", "--json"]);
  expect(created.code, created.stderr).toBe(0);
  key = (JSON.parse(created.stdout.trim()) as { key: string }).key;
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  await stopServer(join(dataDir, CLUSTER_DIR));
  rmSync(tmp, { recursive: true, force: true });
}, 60_000);

async function started(name: string): Promise<GatewayProcess> {
  const gateway = await startGateway(name, { DATA_DIR: dataDir });
  await waitReady(gateway, 120_000);
  return gateway;
}

/** SIGKILL to the gateway's process group (tsx and its node), and wait for it to be gone. */
async function killNine(gateway: GatewayProcess): Promise<void> {
  process.kill(-gateway.child.pid!, "SIGKILL");
  await gateway.exited;
}

const universities = async (gateway: GatewayProcess, key: string) =>
  ((await request(gateway, "/api/v1/universities", { key })).json.items as { code: string }[]).map((u) => u.code);

/**
 * An import's progress line that shows it half-way: observations read, or the phase after reading (a phase change
 * is drawn at once). Killing on it rather than after a fixed delay: a fast machine once finished the import first.
 */
const halfWay = (line: ProgressLine) => (line.rows.observations ?? 0) > 0 || line.phase === "checking references";

it("kill -9 under load: every key printed before it works after the restart", async () => {
  const loaded = await started("loaded");
  let stop = false;
  const load = Promise.all(
    Array.from({ length: 8 }, async () => {
      while (!stop) await request(loaded, "/api/v1/courses?page_size=100", { key, timeoutMs: 5_000 }).catch(() => undefined);
    }),
  );
  const printed: string[] = [];
  for (let i = 0; i < 3; i++) {
    const created = await cli(dataDir, "keys", ["create", "--name", `under-load-${i}`, "--json"]);
    expect(created.code, created.stderr).toBe(0);
    printed.push((JSON.parse(created.stdout.trim()) as { key: string }).key);
  }
  await killNine(loaded);
  stop = true;
  await load;

  const after = await started("after-load");
  for (const k of printed) expect(await universities(after, k)).toEqual(["NTU", "NTHU", "UW"]);
  await killNine(after);
}, 300_000);

it("a command line killed half-way through an import leaves the gateway serving, the import undone", async () => {
  const gateway = await started("serving");
  let child: ChildProcess | undefined;
  const imported = cli(dataDir, "import", ["-"], {
    input: demoExportChunks({ now: new Date("2026-11-20T00:00:00Z") }),
    started: (started) => {
      child = started;
    },
    onProgress: (line) => {
      if (child && halfWay(line)) {
        process.kill(-child.pid!, "SIGKILL");
        child = undefined; // once: the lines still in the pipe must not signal a group that is gone
      }
    },
    timeoutMs: 120_000,
  });
  expect((await imported).code).toBeNull(); // killed
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(gateway.alive).toBe(true);
  expect(await universities(gateway, key)).toEqual(["NTU", "NTHU", "UW"]);
  await killNine(gateway);
}, 300_000);
