/**
 * `npm run mcp:stdio`: the local MCP server over standard input/output, for
 * clients that launch a command. Its tools are those of `/mcp`; each calls
 * the running gateway's REST API at UEDU_API_BASE_URL with UEDU_API_KEY, so
 * calls count against that key's limits like any other.
 */
import { PassThrough } from "node:stream";
import type { Answer } from "../../rest/api.js";
import type { RawArgs } from "../../rest/params.js";
import { commandLine } from "../cli/args.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import type { Route } from "../../rest/routes.js";

commandLine({
  name: "mcp:stdio",
  usage: `usage: npm run mcp:stdio

The MCP server over standard input and output, for clients that launch a
command (as npm run -s mcp:stdio, so that npm prints nothing on standard
output). Its tools call the running gateway's REST API at UEDU_API_BASE_URL
(default http://127.0.0.1:4000) with the key in UEDU_API_KEY (required).`,
  options: {},
});

// Loaded once the command line is read: --help and a wrong option answer without them.
const { Server } = await import("@modelcontextprotocol/server");
const { StdioServerTransport, serveStdio } = await import("@modelcontextprotocol/server/stdio");
const { loadOperations } = await import("../../rest/operations.js");
const { ROUTES } = await import("../../rest/routes.js");
const { deriveSchemas } = await import("../../rest/schemas.js");
const { schema } = await import("../schema/index.js");
const { SERVER_INFO, SERVER_OPTIONS, serveTools } = await import("./tools.js");

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
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${key}`, accept: "application/json" },
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  } catch (error) {
    return { status: 502, body: { success: false, error: `gateway unreachable at ${base}: ${(error as Error).message}` } };
  }
}

/** How long a call waits for the gateway, and the end of input for the answers still owed. */
const ANSWER_WITHIN_MS = 30_000;

/**
 * The stdio transport, fed standard input through a stream that ends only
 * once every request already read is answered. The SDK's transport closes
 * the session when its input ends and drops the calls in flight; closing
 * input ends the session here too (the MCP stdio binding), but after the
 * answers it owes, so `printf '…' | npm run mcp:stdio` prints every answer.
 */
class AnsweringStdio extends StdioServerTransport {
  readonly #input: PassThrough;
  /** Ids of the requests read and not yet answered. */
  readonly #owed = new Set<string | number>();
  #ended = false;

  constructor() {
    const input = new PassThrough();
    super(input, process.stdout);
    this.#input = input;
    let partial = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk: string) => {
      const lines = (partial + chunk).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) this.#note(line);
      input.write(chunk);
    });
    const end = () => {
      if (this.#ended) return;
      this.#note(partial);
      this.#ended = true;
      this.#settle();
      setTimeout(() => input.end(), ANSWER_WITHIN_MS).unref();
    };
    process.stdin.on("end", end);
    process.stdin.on("error", end);
  }

  /** Remembers the id of a request (a message with a method and an id); the transport parses it again. */
  #note(line: string): void {
    try {
      const message = JSON.parse(line) as { method?: unknown; id?: unknown };
      if (typeof message.method === "string" && (typeof message.id === "string" || typeof message.id === "number")) {
        this.#owed.add(message.id);
      }
    } catch {
      // Not JSON: the transport answers it with its parse error.
    }
  }

  /** Ends the transport's input once input has ended and nothing is owed. */
  #settle(): void {
    if (this.#ended && this.#owed.size === 0) this.#input.end();
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    await super.send(message);
    if (!("method" in message) && "id" in message && message.id !== undefined && message.id !== null) {
      this.#owed.delete(message.id);
      this.#settle();
    }
  }
}

// One server per connection, of whichever era the client opens with (2025 `initialize` or 2026 `server/discover`).
serveStdio(
  () => {
    const server = new Server(SERVER_INFO, SERVER_OPTIONS);
    serveTools(server, ROUTES, schemas, callGateway);
    return server;
  },
  { transport: new AnsweringStdio() },
);
