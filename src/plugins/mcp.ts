/**
 * `useMcp`: the MCP server at `/mcp` (streamable HTTP, stateless: every
 * request is answered on its own, so any gateway process can take it). Its
 * tools answer through the same RestApi as `/api/v1`, in-process, with the
 * request's context. Keys and limits are checked before (useApiKeys).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Plugin } from "graphql-yoga";
import type { Logger } from "pino";
import type { RestApi } from "../../rest/api.js";
import type { Context } from "../context.js";
import { registerTools } from "../mcp/tools.js";

export interface McpOptions {
  /** The v1 operations the tools mirror. */
  api: RestApi;
  /** The per-request context factory, the same one `/graphql` uses. */
  context: (request: Request) => Context | Promise<Context>;
  /** Server name and version announced to clients. */
  info?: { name: string; version: string };
  /** Where tool failures are logged. */
  log?: Pick<Logger, "error">;
}

export function useMcp(options: McpOptions): Plugin {
  const info = options.info ?? { name: "public-data-api", version: "1.0.0" };
  return {
    async onRequest({ request, url, endResponse }) {
      if (url.pathname !== "/mcp") return;
      const context = await options.context(request);
      const server = new McpServer(info, {
        instructions:
          "Public data of an online learning platform: universities, public courses, course statistics, papers, conferences, school environment (air quality and weather) and public hub Packs. Each tool mirrors one GET of the v1 REST API and returns its JSON body.",
      });
      registerTools(server, options.api.routes, (route, path, query) => {
        const match = { route, segments: Object.fromEntries(Object.entries(path).map(([k, v]) => [k, encodeURIComponent(v)])) };
        return options.api.call(match, query, context, (error) => options.log?.error({ err: error, tool: route.tool }, "MCP tool failed"));
      });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        endResponse(await transport.handleRequest(request));
      } finally {
        void server.close();
      }
    },
  };
}
