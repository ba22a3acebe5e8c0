/**
 * The last user of the embedded PostgreSQL stops it, even when another user
 * died a moment before and the server has not yet read the end of that
 * user's connection. That is what `WEB_CONCURRENCY` does when a port is in
 * use: the primary ends its workers, some still starting (ended by the
 * signal, their connections cut), and leaves at once; on a busy machine the
 * workers' backends still held the users' lock when it looked, and the
 * server was left running (a CI run of stop 76).
 *
 * Here the delay is made certain: the dying user's backend is paused
 * (SIGSTOP) while its process is killed, and resumed a moment later.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { CLUSTER_DIR, serverOn } from "../../src/db/cluster-dir.js";
import { stopServer, useEmbeddedServer } from "../../src/db/embedded.js";
import { isRunning } from "../../src/db/postgres-programs.js";
import { builtCommand } from "../support/built.js";
import { tempDir } from "../support/temp.js";

const tmp = tempDir("embedded-users-");
const dataDir = join(tmp, "data");
const clusterDir = join(dataDir, CLUSTER_DIR);

afterAll(async () => {
  await stopServer(clusterDir);
  rmSync(tmp, { recursive: true, force: true });
}, 60_000);

const serverPid = () => serverOn(clusterDir);

/** Another process that joins the server and stays until killed; resolves once it has joined. */
async function joiner(): Promise<ChildProcess> {
  // The run's build of this module, run by plain node (test/support/built.ts).
  const [node, entry] = builtCommand("src/db/embedded.ts");
  const code = `const { useEmbeddedServer } = await import(${JSON.stringify(entry)});
await useEmbeddedServer(${JSON.stringify(dataDir)}, { role: "joiner" });
process.stdout.write("joined\\n");
setInterval(() => undefined, 60_000);`;
  const child = spawn(node, ["--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("joined") && resolve());
    child.once("exit", (code) => reject(new Error(`the joiner exited with ${code}`)));
  });
  return child;
}

it("a user whose connection the server has not yet seen end, of a process that is gone: the last one to leave still stops the server", async () => {
  const mine = await useEmbeddedServer(dataDir, { role: "test" });
  const server = serverPid();
  expect(server).toBeDefined();
  const child = await joiner();
  const client = new pg.Client({ connectionString: mine.url });
  client.on("error", () => undefined);
  await client.connect();
  const [row] = (
    await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1", [`uedu joiner ${child.pid}`])
  ).rows;
  await client.end();
  expect(row).toBeDefined();
  const backend = row!.pid;
  const resume = () => {
    try {
      process.kill(backend, "SIGCONT");
    } catch {
      // ended already
    }
  };
  process.kill(backend, "SIGSTOP");
  try {
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await gone;
    // The backend reads its connection's end only once resumed, after release has looked once.
    setTimeout(resume, 500);
    await mine.release();
  } finally {
    resume();
  }
  expect(serverPid()).toBeUndefined();
  expect(isRunning(server!)).toBe(false);
}, 60_000);

it("a user that lives keeps the server running when another leaves, and the last one stops it", async () => {
  const child = await joiner();
  const mine = await useEmbeddedServer(dataDir, { role: "test" });
  const server = serverPid();
  expect(server).toBeDefined();
  const started = Date.now();
  await mine.release();
  // Not the wait for a dead user's connection: a living one answers at once.
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(serverPid()).toBe(server);
  const gone = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await gone;
  // The joiner died without leaving: the server runs until the next user joins and leaves.
  expect(serverPid()).toBe(server);
  const next = await useEmbeddedServer(dataDir, { role: "test" });
  await next.release();
  expect(serverPid()).toBeUndefined();
}, 60_000);
