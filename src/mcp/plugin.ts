/**
 * `useMcp`: the MCP server at `/mcp` (streamable HTTP, stateless: every
 * request is answered on its own, so any gateway process can take it), and
 * `useMcpOrigins`, its DNS-rebinding check. The server itself (./handler.ts)
 * and the MCP SDK under it, about a tenth of a second of CPU to load, are
 * loaded by the first request to `/mcp`: a process that serves none never
 * loads them.
 */
import type { Plugin } from "graphql-yoga";
import { leanNameOf } from "../cache/keep.js";
import type { McpAnswer, McpOptions } from "./handler.js";
import { rpcError } from "./rpc.js";

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
 * The DNS-rebinding check of `/mcp`, as the MCP specification requires: the
 * problem with a request addressed to `asked` (its `Host`, as a URL reads it)
 * from `Origin`, if it has one.
 * A foreign `Origin` (or, on a loopback-only service, a foreign `Host`) is
 * refused. The gateway (useMcpOrigins) and the lean path (src/lean/path.ts)
 * both ask it.
 */
export function mcpOriginCheck(
  options: McpOriginOptions = {},
): (asked: Pick<URL, "host" | "hostname">, origin: string | null | undefined) => string | undefined {
  const listed = new Set(options.origins ?? []);
  return (asked, origin) => {
    if (options.loopback && !LOOPBACK.has(asked.hostname)) return `forbidden host: ${asked.host}`;
    if (origin === null || origin === undefined || listed.has(origin)) return undefined;
    let from: URL | undefined;
    try {
      from = new URL(origin);
    } catch {
      // "null" or garbage: foreign
    }
    const same = from !== undefined && from.host === asked.host;
    const local = from !== undefined && options.loopback === true && LOOPBACK.has(from.hostname);
    return same || local ? undefined : `forbidden origin: ${origin}`;
  };
}

/** `useMcpOrigins`: {@link mcpOriginCheck}'s refusal, 403 in JSON-RPC, before anything else. */
export function useMcpOrigins(options: McpOriginOptions = {}): Plugin {
  const problemOf = mcpOriginCheck(options);
  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== "/mcp") return;
      const problem = problemOf(url, request.headers.get("origin"));
      if (problem) endResponse(rpcError(403, null, -32600, problem));
    },
  };
}

/** `useMcp`: answers `/mcp` ({@link McpOptions}); the server is loaded by the first such request. */
export function useMcp(options: McpOptions): Plugin {
  let answer: Promise<McpAnswer> | undefined;
  const load = () => {
    answer ??= import("./handler.js").then(
      (handler) => handler.mcpAnswer(options),
      (error: unknown) => {
        answer = undefined; // the next request tries again
        throw error;
      },
    );
    return answer;
  };
  return {
    async onRequest({ request, url, endResponse, serverContext }) {
      if (url.pathname !== "/mcp") return;
      endResponse(await (await load())(request, leanNameOf(serverContext)));
    },
  };
}
