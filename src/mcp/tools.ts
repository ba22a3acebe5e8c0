/**
 * The MCP tools: one per v1 route, with the REST parameter names, defaults
 * and ranges (docs/contract.md §8). A tool's structured content is exactly the REST
 * body of its twin and its text is that body as JSON; a REST failure is a
 * tool result with `isError: true` carrying the same body.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Answer } from "../../rest/api.js";
import type { RawArgs, RawValue } from "../../rest/params.js";
import type { Route } from "../../rest/routes.js";

/** Answers one route call given its arguments by REST parameter name. */
export type RouteCaller = (route: Route, args: RawArgs) => Promise<Answer>;

function describeRule(description: string, schema: Record<string, unknown>): string {
  const parts = [description];
  if (Array.isArray(schema.enum)) parts.push(`One of: ${schema.enum.join(", ")}.`);
  if (typeof schema.minimum === "number") parts.push(`From ${schema.minimum} to ${schema.maximum}.`);
  if (schema.default !== undefined) parts.push(`Default ${String(schema.default)}.`);
  return parts.join(" ");
}

/** The tool's input shape: path parameters (required) and query parameters (optional). */
function inputShape(route: Route): Record<string, z.ZodType<RawValue>> {
  const shape: Record<string, z.ZodType<RawValue>> = {};
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
      async (args: RawArgs) => {
        const answer = await call(route, args);
        return {
          content: [{ type: "text" as const, text: JSON.stringify(answer.body) }],
          structuredContent: answer.body,
          ...(answer.status === 200 ? {} : { isError: true }),
        };
      },
    );
  }
}
