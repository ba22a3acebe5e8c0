/**
 * WEB_CONCURRENCY=2 on a private PostgreSQL (src/cluster.ts): two workers
 * share the port; a key's limits stay exact across them without Redis;
 * /metrics counts both; a worker that dies is replaced; SIGTERM drains both
 * and the primary exits 0.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { KeyStore } from "../../src/keys/store.js";
import { demoDatabase } from "../support/databases.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";

let db: Database & { url: string };
let gateway: GatewayProcess;
let key: string;
const DAY_LIMIT = 7;

/** One GET on a connection of its own (so the kernel may hand it to either worker). */
const fresh = (path: string, authorization?: string) =>
  new Promise<number>((resolve, reject) => {
    const url = new URL(`${gateway.base}${path}`);
    httpRequest({ host: url.hostname, port: url.port, path, agent: false, headers: authorization ? { authorization } : {} }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    })
      .on("error", reject)
      .end();
  });

/** The pids that wrote access-log lines so far. */
const workerPids = () =>
  new Set(
    gateway
      .output()
      .split("\n")
      .filter((line) => line.includes('"route"'))
      .map((line) => (JSON.parse(line) as { pid: number }).pid),
  );

beforeAll(async () => {
  db = await demoDatabase();
  key = (await new KeyStore(db).create({ name: "cluster", owner: "test", perDay: DAY_LIMIT })).key;
  // PORT=0: the workers share the port the primary got, and the start announces it.
  const env = { DATABASE_URL: db.url, WEB_CONCURRENCY: "2", LOG_LEVEL: "info", RESPONSE_CACHE_MS: "0", PORT: "0" };
  gateway = await startGateway("cluster", env);
  await waitReady(gateway, 180_000);
  expect(gateway.output()).toContain("Workers:   2");
  expect(gateway.base).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
}, 240_000);

afterAll(async () => {
  await stopAllGateways();
  await db?.close();
});

describe("WEB_CONCURRENCY=2", () => {
  it("serves from two worker processes, whose limits for a key add up to exactly one budget", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3 * DAY_LIMIT; i++) statuses.push(await fresh("/api/v1/universities", `Bearer ${key}`));
    expect(statuses.filter((s) => s === 200)).toHaveLength(DAY_LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2 * DAY_LIMIT);
    // Unkeyed requests cost nothing: enough of them to reach both workers.
    for (let i = 0; i < 20 && workerPids().size < 2; i++) await fresh("/api/v1/universities");
    expect(workerPids().size).toBe(2);
  });

  it("answers /metrics with every worker's counts", async () => {
    const before = await request(gateway, "/metrics");
    const count = (text: string) =>
      Number(
        /gateway_http_requests_total\{surface="rest",route="\/api\/v1\/universities",method="GET",status="401"\} (\d+)/.exec(text)?.[1] ??
          0,
      );
    for (let i = 0; i < 10; i++) await fresh("/api/v1/universities");
    const after = await request(gateway, "/metrics");
    expect(after.status).toBe(200);
    expect(count(after.text) - count(before.text)).toBe(10);
  });

  it("replaces a worker that dies", async () => {
    const pids = [...workerPids()];
    process.kill(pids[0]!, "SIGKILL");
    const deadline = Date.now() + 30_000;
    while (!gateway.output().includes("a worker ended; starting another")) {
      if (Date.now() > deadline) throw new Error(`the death was not noticed:\n${gateway.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Until a new worker writes a line, every request still gets an answer (from the other one).
    while (!Array.from(workerPids()).some((pid) => !pids.includes(pid))) {
      if (Date.now() > deadline) throw new Error("no new worker answered");
      expect(await fresh("/healthz")).toBe(200);
      await fresh("/api/v1/universities");
    }
  }, 60_000);

  it("drains on SIGTERM: both workers stop, the primary exits 0", async () => {
    process.kill(gateway.child.pid!, "SIGTERM");
    expect(await gateway.exited).toBe(0);
    expect(gateway.output().match(/"msg":"stopped"/g)).toHaveLength(2);
  }, 60_000);
});
