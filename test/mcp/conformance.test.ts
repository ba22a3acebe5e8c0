/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`,
 * `--suite all`) against a gateway on a real socket. The suite cannot send
 * an API key, so it talks to a small proxy that adds one and passes
 * everything else through as sent (the DNS-rebinding scenario's `Host` and
 * `Origin` included). Every scenario that applies to a tools-only server
 * passes; those that do not are listed, with the reason, in
 * conformance-baseline.yml, and the suite fails if one of them starts to pass.
 *
 * The suite needs Node 22 or later (it imports `fs.globSync`). Under an older
 * Node the test runs it with CONFORMANCE_NODE (.ci/run sets it to the Node 24
 * it fetches), and skips when that is unset, unless REQUIRE_CONFORMANCE=1.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { type ListeningGateway, listen } from "../support/socket.js";

const ROOT = join(import.meta.dirname, "..", "..");
const SUITE = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const BASELINE = join(import.meta.dirname, "conformance-baseline.yml");

/** A Node that can run the suite: this one from 22 on, else CONFORMANCE_NODE. */
const major = Number(process.versions.node.split(".")[0]);
const node = major >= 22 ? process.execPath : process.env.CONFORMANCE_NODE;
if (!node && process.env.REQUIRE_CONFORMANCE === "1") {
  throw new Error(`the conformance suite needs Node 22 or later: this is ${process.version}; set CONFORMANCE_NODE to one`);
}

let t: TestGateway;
let socket: ListeningGateway;
let proxy: Server;
let proxyBase = "";
const output = mkdtempSync(join(tmpdir(), "conformance-"));

beforeAll(async () => {
  const db = await freshDatabase();
  const store = new KeyStore(db);
  const { key } = await store.create({ name: "conformance", perMinute: 100_000 });
  const limits = new RateLimits({ defaults: { perMinute: 60, perDay: 10_000 } });
  // Served on loopback as `npm start` serves by default, so the Host check against DNS rebinding is on.
  t = await testGateway(canaryExport(), { db, gateway: { auth: { keys: store, limits }, loopback: true } });
  socket = await listen(t.gateway);
  proxy = createServer((incoming, answer) => {
    const upstream = request(
      {
        host: "127.0.0.1",
        port: socket.port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, authorization: `Bearer ${key}` },
      },
      (response) => {
        answer.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(answer);
      },
    );
    upstream.on("error", () => answer.writeHead(502).end());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyBase = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await socket?.close();
  await t?.close();
  rmSync(output, { recursive: true, force: true });
});

describe.skipIf(!node)("the MCP conformance suite (0.1.16, --suite all)", () => {
  it("passes every scenario that applies to a tools-only server, and no listed one passes", async () => {
    const run = await new Promise<{ code: number; out: string }>((resolve) => {
      execFile(
        node!,
        [SUITE, "server", "--url", `${proxyBase}/mcp`, "--suite", "all", "--expected-failures", BASELINE, "-o", output],
        { timeout: 180_000, maxBuffer: 16 << 20 },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
      );
    });
    const summary = run.out.slice(run.out.indexOf("=== SUMMARY ==="));
    expect(run.code, summary).toBe(0);
    // The scenarios that apply ran, and passed.
    for (const scenario of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]) {
      expect(summary, scenario).toMatch(new RegExp(`✓ ${scenario}: `));
    }
  }, 240_000);
});
