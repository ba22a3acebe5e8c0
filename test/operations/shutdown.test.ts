/**
 * A shutdown under load, as operators cause it: `npm start` (alone, and with
 * WEB_CONCURRENCY=2) receives SIGTERM, either its whole process group (a
 * terminal's Ctrl-C, a supervisor) or npm alone (a container's PID 1), 30 ms
 * after 30 slow requests were sent on connections of their own. Every one of
 * them is answered whole, `/readyz` answers 503 from the signal on, and npm
 * exits 0 well within SHUTDOWN_TIMEOUT_MS. (`node dist/src/main.js`: in
 * test/operations/build.test.ts, which builds dist/.)
 *
 * Before the drain kept its listener open until the accept queue was empty,
 * up to 24 of the 30 were reset: Node accepts one queued connection per turn
 * of its event loop, and the listener was closed 50 ms after the signal.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyStore } from "../../src/keys/store.js";
import { demoDatabase } from "../support/databases.js";
import { startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";
import { expectDrained, type SignalOptions, signalUnderLoad } from "../support/signal-under-load.js";

let db: Awaited<ReturnType<typeof demoDatabase>>;
let key: string;

const SHUTDOWN_TIMEOUT_MS = 10_000;

beforeAll(async () => {
  db = await demoDatabase();
  key = (await new KeyStore(db).create({ name: "shutdown", owner: "test" })).key;
}, 60_000);

afterAll(async () => {
  await stopAllGateways();
  await db?.close();
});

describe.each([
  { workers: 1, target: "its process group" },
  { workers: 2, target: "npm alone" },
])("npm start with WEB_CONCURRENCY=$workers, SIGTERM to $target", ({ workers, target }) => {
  it("answers all 30 requests in flight whole, answers /readyz 503, and exits 0", async () => {
    const gateway = await startGateway(
      `npm start, ${workers}`,
      {
        DATABASE_URL: db.url,
        WEB_CONCURRENCY: String(workers),
        LOG_LEVEL: "info",
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
        RATE_LIMIT_PER_MINUTE: "100000",
        // Every request executes: requests must still be running at the signal.
        RESPONSE_CACHE_MS: "0",
      },
      { command: ["npm", "start"] },
    );
    await waitReady(gateway, 180_000);
    const pid = gateway.child.pid!;
    const options: SignalOptions = {
      port: Number(new URL(gateway.base).port),
      key,
      signal: () => process.kill(target === "npm alone" ? pid : -pid, "SIGTERM"),
      exited: gateway.exited,
      output: gateway.output,
      stoppers: workers,
    };
    const outcome = await signalUnderLoad(options);
    expectDrained(outcome, SHUTDOWN_TIMEOUT_MS, gateway.output());
  }, 240_000);
});

describe("WEB_CONCURRENCY=2, SIGTERM while its workers are still starting", () => {
  it("the primary exits 0: a worker ended by the signal before it listened had nothing in flight", async () => {
    const gateway = await startGateway("starting workers", { DATABASE_URL: db.url, WEB_CONCURRENCY: "2", LOG_LEVEL: "info" });
    const pid = gateway.child.pid!;
    /** The primary's worker processes (the only children it has, but for tsx's esbuild under `npm start`). */
    const children = () => {
      try {
        const pids = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
        return pids.filter((child) => readFileSync(`/proc/${child}/cmdline`, "utf8").includes("src/main."));
      } catch {
        return [];
      }
    };
    // Forked, and loading their modules (a second or more): neither listens yet.
    while (children().length < 2) {
      if (!gateway.alive) throw new Error(gateway.output());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    process.kill(pid, "SIGTERM");
    expect(await gateway.exited, gateway.output()).toBe(0);
    expect(gateway.output()).not.toMatch(/Workers: +2/);
  }, 120_000);
});
