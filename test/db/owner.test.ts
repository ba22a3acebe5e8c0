/**
 * A DATA_DIR written by PGlite (the previous embedded engine, served as
 * before until it is carried over) has one owner (src/db/owner.ts), with real processes
 * on a real DATA_DIR: while a gateway serves, `keys`, `import` and
 * `db:migrate` run inside it (a key works at once, an import is visible at
 * once); a second gateway, or a command while another command holds the
 * directory, refuses with exit 2 and one line; a stale lock is taken over.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canaryExport } from "../support/canary.js";
import { cli as runCli } from "../support/cli.js";
import { migratedDataDir } from "../support/databases.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, stopGateway, waitReady } from "../support/gateway-process.js";
import { tempDir } from "../support/temp.js";

let tmp: string;
let dataDir: string;
let lockPath: string;

const cli = (script: string, args: string[], input = "") => runCli(dataDir, script, args, { input });

const lock = () => JSON.parse(readFileSync(lockPath, "utf8")) as { pid: number; role: string; socket: string | null };

/** A pid no process has: a process that has ended. */
async function deadPid(): Promise<number> {
  const child = spawn("true");
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

beforeAll(async () => {
  tmp = tempDir("owner-");
  dataDir = migratedDataDir(join(tmp, "data"));
  lockPath = join(dataDir, "owner.lock");
  // A small export first, so that the gateway finds data and imports no demo.
  const first = await cli("import", ["-"], JSON.stringify(canaryExport()));
  expect(first.stderr).toBe("");
  expect(first.code).toBe(0);
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  rmSync(tmp, { recursive: true, force: true });
});

describe("while a gateway owns DATA_DIR", () => {
  let gateway: GatewayProcess;
  beforeAll(async () => {
    expect(existsSync(lockPath)).toBe(false); // the import released it
    gateway = await startGateway("owner", { DATA_DIR: dataDir });
    await waitReady(gateway, 120_000);
  }, 150_000);

  it("the lock names the gateway and its command socket (outside DATA_DIR, which db:backup copies)", () => {
    const info = lock();
    expect(info.role).toBe("gateway");
    expect(info.socket).toMatch(/\/uedu-gateway-[0-9a-f]{16}\.sock$/);
    expect(existsSync(info.socket!)).toBe(true);
  });

  it("a key created on the command line works on the gateway at once", async () => {
    const created = await cli("keys", ["create", "--name", "while-running", "--json"]);
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    const { key } = JSON.parse(created.stdout.trim().split("\n").pop()!) as { key: string };
    const answer = await request(gateway, "/api/v1/universities", { key });
    expect(answer.status).toBe(200);
    expect(answer.json.items.map((u: { code: string }) => u.code)).toEqual(["NTU", "NTHU", "UW"]);
  }, 60_000);

  it("an import from standard input is visible at once", async () => {
    const data = canaryExport();
    data.universities[0]!.name_en = "National Taiwan University (renamed by an import)";
    const imported = await runCli(dataDir, "import", ["-"], { input: JSON.stringify(data), progress: true });
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/^imported 3 universities, .* in \d+\.\d s\n$/);
    // The gateway tells its progress over the command socket; the command line draws it.
    const phases = [...new Set(imported.progress!.map((p) => p.phase))];
    expect(phases).toEqual(["migrating", "validating", "checking references", "writing", "committing", "done"]);
    expect(imported.progress!.at(-1)!.rows).toMatchObject({ universities: 3, courses: 6, observations: 2 });
    const created = JSON.parse((await cli("keys", ["create", "--name", "reader", "--json"])).stdout.trim()) as { key: string };
    const answer = await request(gateway, "/api/v1/universities", { key: created.key });
    expect(answer.json.items[0].name_en).toBe("National Taiwan University (renamed by an import)");
  }, 60_000);

  it("a refused import says why in one line and exits 1", async () => {
    const refused = await cli("import", ["-"], "{ not json");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^import failed: .+\n$/);
    expect(refused.stdout).toBe("");
  }, 60_000);

  it("db:migrate answers through the gateway", async () => {
    const run = await cli("migrate", []);
    expect(run).toEqual({ code: 0, stdout: "database is up to date\n", stderr: "" });
  }, 60_000);

  it("a second gateway on the same directory refuses: exit 2, one line naming the owner", async () => {
    const second = await startGateway("second", { DATA_DIR: dataDir });
    expect(await second.exited).toBe(2);
    const lines = second.output().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`in use by a running gateway (pid ${lock().pid}`);
    expect(lock().role).toBe("gateway"); // untouched
  }, 60_000);

  it("SIGTERM closes the database and gives the directory back; what was created stays", async () => {
    await stopGateway(gateway);
    expect(await gateway.exited).toBe(0);
    expect(existsSync(lockPath)).toBe(false);
    const list = await cli("keys", ["list", "--json"]);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { name: string }[]).map((k) => k.name)).toEqual(["while-running", "reader"]);
  }, 60_000);
});

describe("without a gateway", () => {
  it("a command refuses while another command holds the directory, and touches nothing", async () => {
    const held = { pid: process.pid, startTicks: null, role: "import", socket: null, since: "2026-11-25T00:00:00.000Z" };
    writeFileSync(lockPath, JSON.stringify(held));
    try {
      const refused = await cli("keys", ["list"]);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toBe(
        `keys: ${dataDir} is in use by a running \`import\` (pid ${process.pid}, since ${held.since}); wait for it to finish, or use another DATA_DIR\n`,
      );
      expect(JSON.parse(readFileSync(lockPath, "utf8"))).toEqual(held);
    } finally {
      rmSync(lockPath, { force: true });
    }
  }, 60_000);

  it("a stale lock left by a dead process is taken over", async () => {
    writeFileSync(
      lockPath,
      JSON.stringify({
        pid: await deadPid(),
        startTicks: null,
        role: "gateway",
        socket: join(dataDir, "owner.sock"),
        since: "2026-11-25T00:00:00.000Z",
      }),
    );
    const list = await cli("keys", ["list"]);
    expect(list.stderr).toBe("");
    expect(list.code).toBe(0);
    expect(existsSync(lockPath)).toBe(false);
  }, 60_000);
});
