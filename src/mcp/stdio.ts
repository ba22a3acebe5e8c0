/**
 * `npm run mcp:stdio`: the local MCP server over standard input/output, for
 * clients that launch a command. Its tools are those of `/mcp`; each calls
 * the running gateway's REST API at UEDU_API_BASE_URL with UEDU_API_KEY, so
 * calls count against that key's limits like any other.
 */
import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Answer } from "../../rest/api.js";
import { loadOperations } from "../../rest/operations.js";
import type { RawArgs } from "../../rest/params.js";
import { ROUTES, type Route } from "../../rest/routes.js";
import { deriveSchemas } from "../../rest/schemas.js";
import { commandLine } from "../cli/args.js";
import { schema } from "../schema/index.js";
import { SERVER_INFO, SERVER_OPTIONS, serveTools } from "./tools.js";

commandLine({
  name: "mcp:stdio",
  usage: `usage: npm run mcp:stdio

The MCP server over standard input and output, for clients that launch a
command (as npm run -s mcp:stdio, so that npm prints nothing on standard
output). Its tools call the running gateway's REST API at UEDU_API_BASE_URL
(default http://127.0.0.1:4000) with the key in UEDU_API_KEY (required).`,
  options: {},
});

const key = process.env.UEDU_API_KEY;
const base = (process.env.UEDU_API_BASE_URL || "http://127.0.0.1:4000").replace(/\/+$/, "");
if (!key) {
  process.stderr.write("mcp: set UEDU_API_KEY to your API key\n");
  process.exit(2);
}

const schemas = deriveSchemas(schema, loadOperations(schema), ROUTES);

/** Answers one tool call with the gateway's REST answer to its twin. */
async function callGateway(route: Route, args: RawArgs): Promise<Answer> {
  const query = new URLSearchParams();
  for (const name of Object.keys(route.query)) if (args[name] !== undefined) query.set(name, String(args[name]));
  const url =
    base +
    route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(args[name] ?? ""))) +
    (query.size ? `?${query}` : "");
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}`, accept: "application/json" } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  } catch (error) {
    return { status: 502, body: { success: false, error: `gateway unreachable at ${base}: ${(error as Error).message}` } };
  }
}

// One server per connection, of whichever era the client opens with (2025 `initialize` or 2026 `server/discover`).
serveStdio(() => {
  const server = new Server(SERVER_INFO, SERVER_OPTIONS);
  serveTools(server, ROUTES, schemas, callGateway);
  return server;
});
