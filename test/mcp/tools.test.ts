/**
 * The MCP server at /mcp, driven by the SDK's own client over streamable
 * HTTP (through gateway.fetch, no socket): one tool per REST route with the
 * REST parameter names, structured content equal to the REST body of its
 * twin, failures included, and nothing guarded in any answer.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import formats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../rest/routes.js";
import { CANARIES, canaryExport } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { mcpClient } from "../support/mcp-client.js";

const NOW = new Date("2026-11-19T17:00:00Z");
let t: TestGateway;
let client: Client;

beforeAll(async () => {
  t = await testGateway(canaryExport(), { gateway: { now: () => NOW } });
  client = await mcpClient(t.gateway);
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
  it("lists one read-only tool per REST route, in the routes' order, with the REST parameter names", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(ROUTES.map((r) => r.tool));
    expect(tools).toHaveLength(11);
    for (const route of ROUTES) {
      const tool = tools.find((x) => x.name === route.tool)!;
      const names = Object.keys(tool.inputSchema.properties ?? {}).sort();
      expect(names).toEqual([...Object.keys(route.pathParams), ...Object.keys(route.query)].sort());
      expect(tool.inputSchema.required ?? []).toEqual(Object.keys(route.pathParams));
      expect(tool.annotations).toEqual({
        title: route.description,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
    }
  });

  it("types each argument in its schema: integers as integers with range and default, choices as enums", async () => {
    const { tools } = await client.listTools();
    const args = (name: string) => tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(args("list_courses").page_size).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 20,
      description: "Courses per page.",
    });
    expect(args("get_course").course_id).toMatchObject({ type: "integer", minimum: 0, maximum: 2147483647 });
    expect(args("get_course_stats").group_by).toMatchObject({ type: "string", enum: ["semester", "year", "school"], default: "semester" });
    expect(args("list_papers").year).toMatchObject({ type: "integer", minimum: 1, maximum: 9999 });
    expect(args("list_papers").year!.default).toBeUndefined();
  });

  it("writes every schema portably: no reference, one type per schema, nothing unconstrained", async () => {
    const { tools } = await client.listTools();
    const problems: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) {
        for (const [i, v] of node.entries()) walk(v, `${at}[${i}]`);
        return;
      }
      if (node === null || typeof node !== "object") return;
      const o = node as Record<string, unknown>;
      if (Array.isArray(o.type)) problems.push(`${at}: type ${JSON.stringify(o.type)}`);
      if ("$ref" in o) problems.push(`${at}: $ref`);
      for (const [key, value] of Object.entries(o)) {
        if (key === "properties") {
          for (const [name, sub] of Object.entries(value as object)) {
            const keys = Object.keys(sub as object).filter((k) => k !== "description");
            if (keys.length === 0) problems.push(`${at}.properties.${name}: unconstrained`);
            walk(sub, `${at}.properties.${name}`);
          }
        } else if (typeof value === "object") walk(value, `${at}.${key}`);
      }
    };
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      walk(tool.inputSchema, `${tool.name}.inputSchema`);
      walk(tool.outputSchema, `${tool.name}.outputSchema`);
    }
    expect(problems).toEqual([]);
  });

  it("answers every call and failure with structured content that its output schema accepts (Ajv, JSON Schema 2020-12)", async () => {
    const { tools } = await client.listTools();
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    formats.default(ajv);
    const validators = new Map(tools.map((tool) => [tool.name, ajv.compile(tool.outputSchema!)]));
    for (const { tool, args } of [...CALLS, ...FAILURES]) {
      const result = await client.callTool({ name: tool, arguments: args });
      const validate = validators.get(tool)!;
      expect(validate(result.structuredContent), `${tool} ${JSON.stringify(args)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    // And a schema is no formality: a success body with a field taken away fails it.
    const body = (await client.callTool({ name: "get_course", arguments: { course_id: 1 } })).structuredContent as Record<string, any>;
    const { school: _school, ...rest } = body.data;
    expect(validators.get("get_course")!({ ...body, data: rest })).toBe(false);
  });

  it("refuses an unknown tool with -32602 naming it, and an argument of the wrong JSON type as a tool error naming it", async () => {
    await expect(client.callTool({ name: "drop_tables", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("unknown tool: drop_tables"),
    });
    const wrong = await client.callTool({ name: "list_courses", arguments: { page: true } });
    expect(wrong.isError).toBe(true);
    expect(wrong.structuredContent).toEqual({ success: false, error: "page must be an integer" });
    const list = await client.callTool({ name: "list_courses", arguments: { q: ["a"] } });
    expect(list.structuredContent).toEqual({ success: false, error: "q must be a string" });
    // null is "not given", as an empty REST parameter is.
    const absent = await client.callTool({ name: "list_courses", arguments: { page: null, page_size: 1 } });
    expect((absent.structuredContent as { page: number }).page).toBe(1);
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
