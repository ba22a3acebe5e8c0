/**
 * The MCP server at /mcp, driven by the SDK's own client over streamable
 * HTTP (through gateway.fetch, no socket): one tool per REST route with the
 * REST parameter names, structured content equal to the REST body of its
 * twin, failures included, and nothing guarded in any answer.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../rest/routes.js";
import { CANARIES, canaryExport } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

const NOW = new Date("2026-11-19T17:00:00Z");
let t: TestGateway;
let client: Client;

beforeAll(async () => {
  t = await testGateway(canaryExport(), { gateway: { now: () => NOW } });
  client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://gateway.test/mcp"), {
      fetch: async (url, init) => t.gateway.fetch(String(url), init as RequestInit),
    }),
  );
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

async function rest(path: string) {
  const response = await t.gateway.fetch(`http://gateway.test${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A tool call and the REST request that is its twin. */
const CALLS: { tool: string; args: Record<string, unknown>; path: string }[] = [
  { tool: "list_universities", args: { region: "Taipei" }, path: "/api/v1/universities?region=Taipei" },
  { tool: "list_courses", args: { university: "ntu", page_size: 1, page: 2 }, path: "/api/v1/courses?university=ntu&page_size=1&page=2" },
  { tool: "get_course", args: { course_id: 1 }, path: "/api/v1/courses/1" },
  { tool: "get_course_stats", args: { group_by: "school" }, path: "/api/v1/course_stats?group_by=school" },
  { tool: "list_papers", args: { year: 2025 }, path: "/api/v1/papers?year=2025" },
  { tool: "list_conferences", args: {}, path: "/api/v1/conferences" },
  { tool: "get_school_environment", args: { school_ref: "NTU" }, path: "/api/v1/environment/schools/NTU" },
  { tool: "get_school_environment_history", args: { school_ref: "1", days: 2 }, path: "/api/v1/environment/schools/1/history?days=2" },
  { tool: "get_environment_snapshot", args: { limit: 2 }, path: "/api/v1/environment/snapshot?limit=2" },
  { tool: "list_hub_packs", args: { sort: "stars" }, path: "/api/v1/hub/packs?sort=stars" },
  { tool: "get_hub_pack", args: { pack_id: "pk_public" }, path: "/api/v1/hub/packs/pk_public" },
];

const FAILURES: { tool: string; args: Record<string, unknown>; path: string }[] = [
  { tool: "list_courses", args: { page_size: 0 }, path: "/api/v1/courses?page_size=0" },
  { tool: "list_courses", args: { page: 1.5 }, path: "/api/v1/courses?page=1.5" },
  { tool: "get_course", args: { course_id: 2 }, path: "/api/v1/courses/2" },
  { tool: "get_hub_pack", args: { pack_id: "pk_private" }, path: "/api/v1/hub/packs/pk_private" },
  { tool: "get_course_stats", args: { group_by: "month" }, path: "/api/v1/course_stats?group_by=month" },
  {
    tool: "get_school_environment_history",
    args: { school_ref: "ntu", days: 91 },
    path: "/api/v1/environment/schools/ntu/history?days=91",
  },
  { tool: "get_school_environment", args: { school_ref: "nowhere" }, path: "/api/v1/environment/schools/nowhere" },
  // Bad text never reaches the database (issue 8, finding 5): the same 400 as REST.
  { tool: "list_courses", args: { q: "a\u0000b" }, path: "/api/v1/courses?q=a%00b" },
  { tool: "list_hub_packs", args: { q: "x".repeat(201) }, path: `/api/v1/hub/packs?q=${"x".repeat(201)}` },
  { tool: "get_school_environment", args: { school_ref: "\u0000" }, path: "/api/v1/environment/schools/%00" },
  { tool: "get_hub_pack", args: { pack_id: "p".repeat(201) }, path: `/api/v1/hub/packs/${"p".repeat(201)}` },
];

describe("MCP tools", () => {
  it("lists one read-only tool per REST route, with the REST parameter names", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(ROUTES.map((r) => r.tool).sort());
    expect(tools).toHaveLength(11);
    for (const route of ROUTES) {
      const tool = tools.find((x) => x.name === route.tool)!;
      const names = Object.keys(tool.inputSchema.properties ?? {}).sort();
      expect(names).toEqual([...Object.keys(route.pathParams), ...Object.keys(route.query)].sort());
      expect(tool.inputSchema.required ?? []).toEqual(Object.keys(route.pathParams));
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
  });

  it.each(CALLS)("$tool answers exactly the body of GET $path", async ({ tool, args, path }) => {
    const [result, twin] = await Promise.all([client.callTool({ name: tool, arguments: args }), rest(path)]);
    expect(twin.status).toBe(200);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(twin.body);
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(twin.body) }]);
  });

  it.each(FAILURES)("$tool fails as GET $path does, with isError and the same body", async ({ tool, args, path }) => {
    const [result, twin] = await Promise.all([client.callTool({ name: tool, arguments: args }), rest(path)]);
    expect([400, 404]).toContain(twin.status);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual(twin.body);
  });

  it("answers calls in flight at once each with its own arguments (servers are kept between requests)", async () => {
    // Every call and failure, three times over, all at once, then again: servers are taken, freed and taken again.
    const calls = [...CALLS, ...FAILURES, ...CALLS, ...FAILURES, ...CALLS, ...FAILURES];
    for (let round = 0; round < 2; round++) {
      const [answers, twins] = await Promise.all([
        Promise.all(calls.map(({ tool, args }) => client.callTool({ name: tool, arguments: args }))),
        Promise.all(calls.map(({ path }) => rest(path))),
      ]);
      for (const [i, answer] of answers.entries()) expect(answer.structuredContent, calls[i]!.path).toEqual(twins[i]!.body);
    }
  });

  it("no tool answer carries a guarded value", async () => {
    const answers = await Promise.all([...CALLS, ...FAILURES].map(({ tool, args }) => client.callTool({ name: tool, arguments: args })));
    const text = JSON.stringify(answers);
    for (const canary of CANARIES) expect(text).not.toContain(canary);
    expect(text).toContain("公開課程1");
  });
});
