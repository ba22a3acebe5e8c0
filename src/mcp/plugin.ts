/**
 * `useMcp`: the MCP server at `/mcp` (streamable HTTP, stateless: every
 * request is answered on its own, so any gateway process can take it). Its
 * tools answer through the same RestApi as `/api/v1`, in-process, with the
 * request's context. Keys and limits are checked before (useApiKeys).
 *
 * A server with its 11 tools costs 0.8 ms of CPU to build, about a quarter of
 * a tool call, and answers one request at a time; so servers are built once
 * and kept between requests, each bound to the request it serves for as long
 * as it serves it.
 */
import { requestIdOf } from "../plugins/access-log.js";
import { jsonAnswer } from "../refusal.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Plugin } from "graphql-yoga";
import type { Logger } from "pino";
import type { RestApi } from "../../rest/api.js";
import type { Context } from "../context.js";
import { type RouteCaller, SERVER_OPTIONS, serveTools } from "./tools.js";

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

export interface McpOriginOptions {
  /** Origins whose pages may call `/mcp` besides the service's own (CORS_ORIGINS). */
  origins?: readonly string[] | undefined;
  /**
   * The service listens on loopback only: then the `Host` of a request must
   * name loopback too, or it came through a rebound DNS name.
   */
  loopback?: boolean | undefined;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * `useMcpOrigins`: DNS-rebinding protection for `/mcp`, as the MCP
 * specification requires: a foreign `Origin` (or, on a loopback-only
 * service, a foreign `Host`) is refused with 403 before anything else.
 */
export function useMcpOrigins(options: McpOriginOptions = {}): Plugin {
  const listed = new Set(options.origins ?? []);
  const forbidden = (message: string) => rpcError(403, null, -32600, message);
  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== "/mcp") return;
      if (options.loopback && !LOOPBACK.has(url.hostname)) return endResponse(forbidden(`forbidden host: ${url.host}`));
      const origin = request.headers.get("origin");
      if (origin === null || listed.has(origin)) return;
      let from: URL | undefined;
      try {
        from = new URL(origin);
      } catch {
        // "null" or garbage: foreign
      }
      const same = from !== undefined && from.host === url.host;
      const local = from !== undefined && options.loopback === true && LOOPBACK.has(from.hostname);
      if (!same && !local) endResponse(forbidden(`forbidden origin: ${origin}`));
    },
  };
}

/** Servers kept for the next requests, at most; more are built when more requests are in flight. */
const IDLE_SERVERS = 32;

/** A server with every tool registered, and the calls of the request it is serving (none between requests). */
interface Served {
  server: Server;
  call: RouteCaller | undefined;
}

export function useMcp(options: McpOptions): Plugin {
  const info = options.info ?? { name: "public-data-api", version: "1.0.0" };
  const idle: Served[] = [];
  const build = (): Served => {
    const server = new Server(info, SERVER_OPTIONS);
    const served: Served = { server, call: undefined };
    serveTools(server, options.api.routes, options.api.schemas, (route, args) => {
      if (!served.call) throw new Error("MCP tool called outside a request");
      return served.call(route, args);
    });
    return served;
  };
  return {
    async onRequest({ request, url, endResponse }) {
      if (url.pathname !== "/mcp") return;
      // Refuse what the SDK would answer badly before a server takes it.
      const screened = request.method === "POST" ? await screen(request) : { ok: true as const, body: undefined };
      if (!screened.ok) return endResponse(screened.response);
      const context = await options.context(request);
      const served = idle.pop() ?? build();
      served.call = (route, args) =>
        options.api.answer(route, args, context, (error) =>
          options.log?.error({ err: error, tool: route.tool, requestId: requestIdOf(request) }, "MCP tool failed"),
        );
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      try {
        await served.server.connect(transport);
        endResponse(
          await inFull(await transport.handleRequest(request, screened.body === undefined ? undefined : { parsedBody: screened.body })),
        );
      } finally {
        served.call = undefined;
        // Closed (its transport let go) before another request may take it.
        await served.server.close().catch(() => undefined);
        if (idle.length < IDLE_SERVERS) idle.push(served);
      }
    },
  };
}

/**
 * The SDK's JSON answer read whole and sent with its length (the SDK streams
 * it, which would go out chunked, with no length for the client, the access
 * log or compression's threshold). Anything else (an event stream, no body)
 * goes as it is.
 */
async function inFull(answer: Response): Promise<Response> {
  if (answer.body === null || !answer.headers.get("content-type")?.startsWith("application/json")) return answer;
  const headers = Object.fromEntries(answer.headers);
  delete headers["content-length"];
  return jsonAnswer(answer.status, await answer.text(), headers);
}

/** Largest MCP message read, in bytes. */
const MAX_BODY_BYTES = 1 << 20;

const rpcError = (status: number, id: unknown, code: number, message: string) =>
  jsonAnswer(status, JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error: { code, message } }));

/**
 * Reads a POSTed message and refuses, in JSON-RPC, what the SDK would answer
 * badly: a batch (the MCP specification dropped them in 2025-06-18, and one
 * batch would count as one request), and a tool call whose params do not fit
 * the schema (the SDK answers -32603 with a zod dump; this is -32602 with the
 * problems in words).
 */
async function screen(request: Request): Promise<{ ok: true; body: unknown } | { ok: false; response: Response }> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  const text = declared > MAX_BODY_BYTES ? "" : await request.text();
  if (declared > MAX_BODY_BYTES || Buffer.byteLength(text) > MAX_BODY_BYTES) {
    return { ok: false, response: rpcError(413, null, -32600, `message too large: at most ${MAX_BODY_BYTES} bytes`) };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, response: rpcError(400, null, -32700, "parse error: the body is not JSON") };
  }
  if (Array.isArray(body)) {
    return { ok: false, response: rpcError(400, null, -32600, "JSON-RPC batches are not supported: send one message per request") };
  }
  const message = body as { id?: unknown; method?: unknown };
  if (message?.method === "tools/call") {
    const parsed = CallToolRequestSchema.safeParse(message);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "message"}: ${issue.message}`);
      return { ok: false, response: rpcError(200, message.id, -32602, `invalid params: ${problems.join("; ")}`) };
    }
  }
  return { ok: true, body };
}
