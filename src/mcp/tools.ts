/**
 * The MCP tools: one per v1 route, with the REST parameter names, defaults
 * and ranges (CONTRACT §8). A tool's structured content is exactly the REST
 * body of its twin and its text is that body as JSON; a REST failure is a
 * tool result with `isError: true` carrying the same body.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Answer } from "../../rest/api.js";
import type { Route } from "../../rest/routes.js";

/** Answers one route call given its path values and query string. */
export type RouteCaller = (route: Route, path: Record<string, string>, query: URLSearchParams) => Promise<Answer>;

function describeRule(description: string, schema: Record<string, unknown>): string {
  const parts = [description];
  if (Array.isArray(schema.enum)) parts.push(`One of: ${schema.enum.join(", ")}.`);
  if (typeof schema.minimum === "number") parts.push(`From ${schema.minimum} to ${schema.maximum}.`);
  if (schema.default !== undefined) parts.push(`Default ${String(schema.default)}.`);
  return parts.join(" ");
}

/** The tool's input shape: path parameters (required) and query parameters (optional). */
export function inputShape(route: Route): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, kind] of Object.entries(route.pathParams)) {
    shape[name] =
      kind === "integer"
        ? z.union([z.number(), z.string()]).describe(`The ${name.replace("_", " ")} (an integer).`)
        : z.string().describe(name === "school_ref" ? "Numeric school id, or school code in any case." : `The ${name.replace("_", " ")}.`);
  }
  for (const [name, rule] of Object.entries(route.query)) {
    const base = rule.schema.type === "integer" ? z.union([z.number(), z.string()]) : z.string();
    shape[name] = base.optional().describe(describeRule(rule.description, rule.schema));
  }
  return shape;
}

/** Registers every route's tool on `server`, answering through `call`. */
export function registerTools(server: McpServer, routes: readonly Route[], call: RouteCaller): void {
  for (const route of routes) {
    server.registerTool(
      route.tool,
      {
        title: route.description,
        description: `${route.description} Mirrors GET ${route.path}; returns its JSON body.`,
        inputSchema: inputShape(route),
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async (args: Record<string, unknown>) => {
        const path: Record<string, string> = {};
        const query = new URLSearchParams();
        for (const [name, value] of Object.entries(args)) {
          if (value === undefined || value === null) continue;
          if (name in route.pathParams) path[name] = String(value);
          else query.set(name, String(value));
        }
        const answer = await call(route, path, query);
        return {
          content: [{ type: "text" as const, text: JSON.stringify(answer.body) }],
          structuredContent: answer.body,
          ...(answer.status === 200 ? {} : { isError: true }),
        };
      },
    );
  }
}
