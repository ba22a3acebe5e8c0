/**
 * The MCP server of `/mcp` (./plugin.ts loads this module on the first
 * request). Its tools answer through the same RestApi as `/api/v1`,
 * in-process, with the request's context. Keys and limits are checked before
 * (useApiKeys).
 *
 * Both protocol eras are served: 2026-07-28 (stateless by design:
 * `server/discover`, the `Mcp-*` headers, `resultType` and cache hints, all
 * done by the SDK's `createMcpHandler`) and the 2025 revisions (`initialize`,
 * through the stateless streamable HTTP transport). Each request gets a
 * server of its own; its tool definitions are built once (tools.ts).
 */
import { requestIdOf } from "../plugins/access-log.js";
import { jsonAnswer } from "../refusal.js";
import {
  createMcpHandler,
  isLegacyRequest,
  Server,
  specTypeSchemas,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Logger } from "pino";
import type { RestApi } from "../../rest/api.js";
import type { AnswerCache } from "../cache/answers.js";
import { keepRpc, type LeanName } from "../cache/keep.js";
import { mcpEntry, mcpTool, noteUses, usesNoted } from "../usage/coordinates.js";
import type { Context } from "../context.js";
import { rpcError } from "./rpc.js";
import { SERVER_INFO, SERVER_OPTIONS, serveTools } from "./tools.js";

export interface McpOptions {
  /** The v1 operations the tools mirror. */
  api: RestApi;
  /** Where a tool's answer is kept as bytes for the lean path (src/lean/path.ts), when that path named the request. */
  answers?: AnswerCache | undefined;
  /** The per-request context factory, the same one `/graphql` uses. */
  context: (request: Request) => Context | Promise<Context>;
  /** Server name and version announced to clients. */
  info?: { name: string; version: string };
  /** Where tool failures are logged. */
  log?: Pick<Logger, "error">;
}

/** Answers one request to `/mcp`; `leanName` is the lean path's name for it, when that path named it (its answer may then be kept). */
export type McpAnswer = (request: Request, leanName: LeanName | undefined) => Promise<Response>;

/** The answer of `/mcp` for {@link McpOptions}. */
export function mcpAnswer(options: McpOptions): McpAnswer {
  const info = options.info ?? SERVER_INFO;
  const contexts = new WeakMap<Request, Context>();
  /** Requests whose tool answered what the v1 cache keeps (200, 404): their whole answer may be kept too. */
  const keepable = new WeakSet<Request>();
  /** A server for one request, whose tools answer with that request's context. */
  const serverFor = (request: Request | undefined): Server => {
    const server = new Server(info, SERVER_OPTIONS);
    const context = request ? contexts.get(request) : undefined;
    serveTools(server, options.api.routes, options.api.schemas, (route, args) => {
      if (!context || !request) throw new Error("MCP tool called outside a request");
      noteUses(request, [...(usesNoted(request) ?? []), mcpTool(route.tool)]);
      return options.api
        .answer(route, args, context, (error) =>
          options.log?.error({ err: error, tool: route.tool, requestId: requestIdOf(request) }, "MCP tool failed"),
        )
        .then((answer) => {
          if (answer.status === 200 || answer.status === 404) keepable.add(request);
          return answer;
        });
    });
    return server;
  };
  // 2026-07-28: the SDK's per-request entry. Its answers are JSON: a tool sends nothing before its result.
  const modern = createMcpHandler(({ requestInfo }) => serverFor(requestInfo), {
    legacy: "reject",
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  // 2025-era requests: the stateless streamable HTTP transport, answering in JSON too (the entry's own
  // fallback would answer in event streams).
  const legacy = async (request: Request, parsedBody: unknown): Promise<Response> => {
    const server = serverFor(request);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, parsedBody === undefined ? {} : { parsedBody });
    } finally {
      await server.close().catch(() => undefined);
    }
  };
  return async (request, leanName) => {
    // Refuse what the SDK would answer badly before it takes the request.
    const screened = request.method === "POST" ? await screen(request) : { ok: true as const, body: undefined };
    if (!screened.ok) return screened.response;
    const context = await options.context(request);
    contexts.set(request, context);
    const era = (await isLegacyRequest(request, screened.body)) ? "legacy" : "modern";
    noteUses(request, [mcpEntry(era)]);
    const answer =
      era === "legacy"
        ? await legacy(request, screened.body)
        : await modern.fetch(request, screened.body === undefined ? {} : { parsedBody: screened.body });
    const full = await inFull(answer);
    if (options.answers && leanName && full.text !== undefined && full.response.status === 200 && keepable.has(request)) {
      keepRpc(options.answers, leanName, 200, full.text, full.headers, context.validForMs(), usesNoted(request));
    }
    return full.response;
  };
}

/**
 * The SDK's JSON answer read whole and sent with its length (the SDK streams
 * it, which would go out chunked, with no length for the client, the access
 * log or compression's threshold). Anything else (an event stream, no body)
 * goes as it is. Also the text and the SDK's own headers, which are those of the answer kept.
 */
async function inFull(answer: Response): Promise<{ response: Response; text?: string; headers: Record<string, string> }> {
  const headers = Object.fromEntries(answer.headers);
  if (answer.body === null || !answer.headers.get("content-type")?.startsWith("application/json")) return { response: answer, headers };
  delete headers["content-length"];
  const text = await answer.text();
  return { response: jsonAnswer(answer.status, text, headers), text, headers };
}

/** Largest MCP message read, in bytes. */
const MAX_BODY_BYTES = 1 << 20;

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
    const checked = specTypeSchemas.CallToolRequest["~standard"].validate(message);
    if (checked instanceof Promise) throw new Error("the SDK's CallToolRequest schema is asynchronous");
    if (checked.issues) {
      const problems = checked.issues.map((issue) => {
        const path = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");
        return `${path || "message"}: ${issue.message}`;
      });
      return { ok: false, response: rpcError(200, message.id, -32602, `invalid params: ${problems.join("; ")}`) };
    }
  }
  return { ok: true, body };
}
