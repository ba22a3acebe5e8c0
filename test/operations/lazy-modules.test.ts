/**
 * Issue 68, item 1: a gateway loads only what it serves with. ioredis is
 * loaded only where REDIS_URL is set, and the MCP SDK by the first request to
 * `/mcp` (src/mcp/plugin.ts): together about a quarter of a second of CPU at
 * each start, which a process that uses neither never spends. Read from a
 * built gateway process, through a loader hook that writes down every module
 * it loads (test/support/loaded-modules.mjs): ioredis stays a package of its
 * own in the build, and the MCP server is a chunk of its own.
 *
 * What it loads, it compiles once: on Node 22.1 and later, the gateway keeps
 * V8's code of its modules in os.tmpdir()/node-compile-cache for the next
 * start (src/main.ts); here in a TMPDIR of its own, with the run's
 * NODE_COMPILE_CACHE (test/support/temp-root.ts) taken away.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import nodeModule from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyStore } from "../../src/keys/store.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, stopGateway, waitReady } from "../support/gateway-process.js";
import { tempDir } from "../support/temp.js";

const file = join(tempDir("loaded-"), "modules.txt");
/** The gateway's TMPDIR. */
const tmp = tempDir("loaded-tmp-");
/** Whether this Node has a module compile cache (22.1 and later). */
const hasCompileCache = "enableCompileCache" in nodeModule;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let gateway: GatewayProcess;
let key: string;

const loaded = (pattern: RegExp) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((url) => pattern.test(url));
const IOREDIS = /\/node_modules\/ioredis\//;
/** The MCP server: the SDK's package, or, in the build's bundle, the chunk of src/mcp/handler.ts that holds it (scripts/build.mjs). */
const MCP_SDK = /\/node_modules\/@modelcontextprotocol\/|\/chunks\/handler-\w+\.js$/;

beforeAll(async () => {
  db = await freshDatabase();
  await importObject(db, canaryExport());
  key = (await new KeyStore(db).create({ name: "lazy" })).key;
  const hook = join(import.meta.dirname, "..", "support", "loaded-modules.mjs");
  gateway = await startGateway("gateway writing down its modules", {
    DATABASE_URL: db.url,
    LOADED_MODULES_FILE: file,
    TMPDIR: tmp,
    // Empty is unset, for Node: the gateway's own choice of folder applies.
    NODE_COMPILE_CACHE: "",
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${hook}`.trim(),
  });
  await waitReady(gateway);
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  await db?.close();
  rmSync(dirname(file), { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
});

describe("a gateway's modules", () => {
  it("are the gateway's own, and never ioredis without REDIS_URL nor the MCP SDK before the first request to /mcp", async () => {
    expect((await request(gateway, "/api/v1/universities", { key })).status).toBe(200);
    expect((await request(gateway, "/graphql?query=%7Buniverses%3Auniversities%7BtotalCount%7D%7D", { key })).status).toBe(200);
    expect(loaded(/\/src\/main\.js$/)).toHaveLength(1); // the hook saw the gateway load
    expect(loaded(IOREDIS)).toEqual([]);
    expect(loaded(MCP_SDK)).toEqual([]);
    // Prisma's query compiler is read from its .wasm file (scripts/query-compiler.mjs), never compiled from 2.3 MB of base64.
    expect(loaded(/wasm-base64/)).toEqual([]);

    const call = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_universities", arguments: {} } });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const answer = await request(gateway, "/mcp", { key, method: "POST", headers, body: call });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.result.isError).toBeFalsy();
    expect(loaded(MCP_SDK).length).toBeGreaterThan(0);
    expect(loaded(IOREDIS)).toEqual([]);
  });

  it("are compiled once: the start kept their code for the next (Node 22.1 and later; Node 20 has no such cache)", async () => {
    // Node writes the cache as the process ends.
    await stopGateway(gateway);
    expect(await gateway.exited).toBe(0);
    const cache = join(tmp, "node-compile-cache");
    if (!hasCompileCache) {
      expect(existsSync(cache)).toBe(false);
      return;
    }
    // One folder per Node version, holding an entry per module compiled: the build's chunks, some 150 at a start.
    const [version, ...others] = readdirSync(cache);
    expect(others).toEqual([]);
    expect(readdirSync(join(cache, version!)).length).toBeGreaterThan(50);
  });
});
