/**
 * `/mcp` serves both protocol eras on one endpoint: 2026-07-28 (stateless:
 * `server/discover`, the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 * headers, `resultType`, cache hints) and the 2025 revisions (`initialize`).
 * The SDK's own 2.x client speaks the first; raw messages show each rule of
 * the transport, with its error code.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../rest/routes.js";
import { canaryExport } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

const MODERN = "2026-07-28";
const URL_MCP = "http://gateway.test/mcp";
let t: TestGateway;

beforeAll(async () => {
  t = await testGateway(canaryExport());
});
afterAll(() => t?.close());

const gatewayFetch = async (url: string | URL, init?: RequestInit) => t.gateway.fetch(String(url), init as RequestInit);

/** The envelope a 2026-07-28 request carries in `params._meta`. */
const envelope = (version = MODERN) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
});

/** POSTs one JSON-RPC message with `headers`; the status and parsed body. */
async function post(message: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await t.gateway.fetch(URL_MCP, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** The headers a 2026-07-28 request of `method` (on the tool `name`) carries. */
const modernHeaders = (method: string, name?: string, version = MODERN) => ({
  "mcp-protocol-version": version,
  "mcp-method": method,
  ...(name ? { "mcp-name": name } : {}),
});

describe("2026-07-28", () => {
  it("the SDK's 2.x client, pinned to 2026-07-28, lists the tools and calls them with the REST bodies", async () => {
    const client = new ModernClient({ name: "modern", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new ModernTransport(new URL(URL_MCP), { fetch: gatewayFetch }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(ROUTES.map((r) => r.tool));
      const result = await client.callTool({ name: "get_course", arguments: { course_id: 1 } });
      const twin = await (await t.gateway.fetch("http://gateway.test/api/v1/courses/1")).json();
      expect(result.structuredContent).toEqual(twin);
      const failure = await client.callTool({ name: "list_courses", arguments: { page_size: 0 } });
      expect(failure).toMatchObject({
        isError: true,
        structuredContent: { success: false, error: "page_size must be an integer from 1 to 100" },
      });
    } finally {
      await client.close();
    }
  });

  it("server/discover names the version, the tools capability and what the tools are for, cacheable for an hour by anyone", async () => {
    const { status, body } = await post(
      { id: 1, method: "server/discover", params: { _meta: envelope() } },
      modernHeaders("server/discover"),
    );
    expect(status).toBe(200);
    expect(body.result).toMatchObject({
      supportedVersions: [MODERN],
      capabilities: { tools: { listChanged: false } },
      resultType: "complete",
      ttlMs: 3_600_000,
      cacheScope: "public",
    });
    expect(body.result.instructions).toContain("mirrors one GET of the v1 REST API");
  });

  it("tools/list carries resultType and the cache hints: the list changes only with a deploy", async () => {
    const { body } = await post({ id: 2, method: "tools/list", params: { _meta: envelope() } }, modernHeaders("tools/list"));
    expect(body.result).toMatchObject({ resultType: "complete", ttlMs: 3_600_000, cacheScope: "public" });
    expect(body.result.tools).toHaveLength(11);
    const call = await post(
      { id: 3, method: "tools/call", params: { name: "list_papers", arguments: {}, _meta: envelope() } },
      modernHeaders("tools/call", "list_papers"),
    );
    expect(call.body.result).toMatchObject({ resultType: "complete", structuredContent: { success: true } });
  });

  it("headers that disagree with the body are -32020, with 400", async () => {
    const message = { id: 4, method: "tools/call", params: { name: "get_course", arguments: { course_id: 1 }, _meta: envelope() } };
    const cases: [Record<string, string>, string][] = [
      [modernHeaders("tools/list"), "Mcp-Method"],
      [modernHeaders("tools/call", "list_papers"), "Mcp-Name"],
      [{ "mcp-method": "tools/call", "mcp-name": "get_course" }, "MCP-Protocol-Version header is absent"],
    ];
    for (const [headers, words] of cases) {
      const { status, body } = await post(message, headers);
      expect(status, words).toBe(400);
      expect(body.error.code, words).toBe(-32020);
      expect(body.error.message).toContain(words);
    }
  });

  it("an unsupported version is -32022, with 400 and the supported list", async () => {
    const { status, body } = await post(
      { id: 5, method: "tools/list", params: { _meta: envelope("2099-01-01") } },
      modernHeaders("tools/list", undefined, "2099-01-01"),
    );
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: -32022, data: { supported: [MODERN], requested: "2099-01-01" } });
  });

  it("invalid params are -32602 in words: arguments that are not an object, an unknown tool", async () => {
    const bad = await post(
      { id: 6, method: "tools/call", params: { name: "get_course", arguments: 5, _meta: envelope() } },
      modernHeaders("tools/call", "get_course"),
    );
    expect(bad.body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^invalid params: params\.arguments: /) });
    const unknown = await post(
      { id: 7, method: "tools/call", params: { name: "drop_tables", arguments: {}, _meta: envelope() } },
      modernHeaders("tools/call", "drop_tables"),
    );
    expect(unknown.body.error).toMatchObject({ code: -32602, message: expect.stringContaining("unknown tool: drop_tables") });
  });
});

describe("2025 revisions on the same endpoint", () => {
  it.each(["2025-11-25", "2025-06-18", "2025-03-26"])(
    "initialize with %s is answered in that version, and its tools are the same",
    async (version) => {
      const { body } = await post({
        id: 1,
        method: "initialize",
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      });
      expect(body.result).toMatchObject({ protocolVersion: version, capabilities: { tools: { listChanged: false } } });
      // 2025 results carry no 2026 fields.
      expect(body.result.resultType).toBeUndefined();
    },
  );

  it("the SDK's 1.x client lists the same tools, with the same schemas, as the 2.x client", async () => {
    const legacy = new LegacyClient({ name: "legacy", version: "1.0.0" });
    await legacy.connect(new LegacyTransport(new URL(URL_MCP), { fetch: gatewayFetch }));
    const modern = new ModernClient({ name: "modern", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
    await modern.connect(new ModernTransport(new URL(URL_MCP), { fetch: gatewayFetch }));
    try {
      const [a, b] = await Promise.all([legacy.listTools(), modern.listTools()]);
      expect(a.tools).toEqual(b.tools);
      expect(a).not.toHaveProperty("ttlMs");
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});
