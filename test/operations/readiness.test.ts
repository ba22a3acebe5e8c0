/**
 * Issue 32, item 1: from the shutdown signal on, `/readyz` answers 503, so
 * that a load balancer stops sending while the requests in flight are
 * answered (`serve` passes `stopping` to the gateway; `drain` answers them).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canaryExport } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

let t: TestGateway;
let stopping = false;

beforeAll(async () => {
  t = await testGateway(canaryExport(), { gateway: { stopping: () => stopping } });
});
afterAll(async () => {
  await t?.close();
});

describe("readiness during shutdown", () => {
  it("is 200 while serving, then 503 'stopping' with Retry-After from the signal on, while the rest still answers", async () => {
    const before = await t.gateway.fetch("http://gateway.test/readyz");
    expect([before.status, await before.json()]).toEqual([200, { status: "ready" }]);
    stopping = true;
    const after = await t.gateway.fetch("http://gateway.test/readyz");
    expect([after.status, await after.json()]).toEqual([503, { status: "stopping" }]);
    expect(after.headers.get("retry-after")).toBe("1");
    expect(after.headers.get("cache-control")).toBe("no-store");
    // Liveness and the requests already sent are unaffected: the process is alive and finishing its work.
    expect((await t.gateway.fetch("http://gateway.test/healthz")).status).toBe(200);
    expect((await t.gateway.fetch("http://gateway.test/api/v1/universities")).status).toBe(200);
  });
});
