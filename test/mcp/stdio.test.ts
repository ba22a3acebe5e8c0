/**
 * `npm run mcp:stdio`: the local MCP server over stdio calls a running
 * gateway's REST API with UEDU_API_KEY, and its answers are the REST bodies.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { builtCommand, childEnv } from "../support/built.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

/** `npm run mcp:stdio`'s entry, from the run's build as the other commands (test/support/built.ts): under tsx's CLI, each of the file's four starts was two Node processes and 0.9-1.3 CPU-s more. */
const STDIO = builtCommand("src/mcp/stdio.ts");

let t: TestGateway;
let server: Server;
let base: string;
let key: string;

beforeAll(async () => {
  const db = await freshDatabase();
  const keys = new KeyStore(db);
  key = (await keys.create({ name: "stdio" })).key;
  const limits = new RateLimits({ defaults: { perMinute: 60, perDay: 10_000 } });
  t = await testGateway(canaryExport(), { db, gateway: { auth: { keys, limits } } });
  server = createServer(t.gateway);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

async function connect(env: Record<string, string>) {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: STDIO[0],
      args: STDIO.slice(1),
      env: { ...childEnv(), ...env },
      stderr: "pipe",
    }),
  );
  return client;
}

describe("MCP over stdio", () => {
  it("answers a tool with the REST body, using the key from UEDU_API_KEY (a 2025 client: initialize)", async () => {
    const client = await connect({ UEDU_API_KEY: key, UEDU_API_BASE_URL: base });
    try {
      const result = await client.callTool({ name: "get_course", arguments: { course_id: 1 } });
      const twin = await (await fetch(`${base}/api/v1/courses/1`, { headers: { authorization: `Bearer ${key}` } })).json();
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual(twin);
      const missing = await client.callTool({ name: "get_course", arguments: { course_id: 2 } });
      expect(missing.isError).toBe(true);
      expect(missing.structuredContent).toEqual({ success: false, error: "course_id 2 not found" });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("speaks 2026-07-28 to a client that asks for it (server/discover, no initialize)", async () => {
    const client = new ModernClient({ name: "modern", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(
      new ModernStdio({
        command: STDIO[0],
        args: STDIO.slice(1),
        env: { ...childEnv(), UEDU_API_KEY: key, UEDU_API_BASE_URL: base },
        stderr: "pipe",
      }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(11);
      const result = await client.callTool({ name: "get_course", arguments: { course_id: 1 } });
      const twin = await (await fetch(`${base}/api/v1/courses/1`, { headers: { authorization: `Bearer ${key}` } })).json();
      expect(result.structuredContent).toEqual(twin);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("answers every request it read before its input closed (printf '…' | npm run mcp:stdio), then exits 0", async () => {
    const lines = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "printf", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_course", arguments: { course_id: 1 } } },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_universities", arguments: {} } },
    ];
    const child = spawn(STDIO[0], STDIO.slice(1), {
      env: { ...childEnv(), UEDU_API_KEY: key, UEDU_API_BASE_URL: base },
      stdio: ["pipe", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stdin.end(lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
    const code = await new Promise((resolve) => child.on("close", resolve));
    // The two calls run at once, and JSON-RPC answers are matched by id, not by order: 2 and 3 may come either way.
    const answers = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .sort((a, b) => a.id - b.id);
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    const twin = await (await fetch(`${base}/api/v1/courses/1`, { headers: { authorization: `Bearer ${key}` } })).json();
    expect(answers[1].result.structuredContent).toEqual(twin);
    expect(answers[2].result.structuredContent.success).toBe(true);
    expect(code).toBe(0);
  }, 60_000);

  it("a wrong key comes back as the gateway's 401 body", async () => {
    const client = await connect({ UEDU_API_KEY: "uedu_wrong", UEDU_API_BASE_URL: base });
    try {
      const result = await client.callTool({ name: "list_universities", arguments: {} });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toEqual({
        success: false,
        error: "malformed Authorization header: expected Bearer <API_KEY>",
      });
    } finally {
      await client.close();
    }
  }, 60_000);
});
