/**
 * `useErrorShapes`: every refusal in its surface's shape (docs/contract.md §2), also
 * the ones yoga and the MCP transport make themselves.
 *
 * - A GraphQL request whose `variables` or `extensions` are not JSON is a
 *   400 `BAD_REQUEST`, not an unexpected error (500).
 * - An error status without a body (yoga's 406 and 415, for example) gets
 *   the body of its surface: GraphQL `errors`, a JSON-RPC error on `/mcp`,
 *   the REST envelope elsewhere. Its headers (`Accept`, `Allow`) are kept.
 */
import { STATUS_CODES } from "node:http";
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { failure } from "../refusal.js";
import { ownerOf } from "./paths.js";

/** What each bodiless status tells the client. */
const MESSAGES: Record<number, string> = {
  404: "not found",
  405: "method not allowed",
  406: "not acceptable: accept application/json or application/graphql-response+json",
  413: "request body too large",
  415: "unsupported media type: send application/json",
};

const GRAPHQL_CODES: Record<number, string> = {
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  406: "NOT_ACCEPTABLE",
  415: "UNSUPPORTED_MEDIA_TYPE",
};

/** Which surface a request came through; it decides the error shape. */
export type Surface = "rest" | "graphql" | "mcp";

/** A refusal's body: GraphQL `errors` with `codes.graphql`, a JSON-RPC error with `codes.rpc`, or the REST envelope. */
export function refusalBody(surface: Surface, message: string, codes: { graphql: string; rpc: number }): string {
  switch (surface) {
    case "graphql":
      return JSON.stringify({ errors: [{ message, extensions: { code: codes.graphql } }] });
    case "mcp":
      return JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: codes.rpc, message } });
    case "rest":
      return JSON.stringify(failure(message));
  }
}

/** The body of an error status that came without one, on `pathname`'s surface. */
export function statusBody(pathname: string, status: number): string {
  const owner = ownerOf(pathname);
  const surface: Surface = owner === "graphql" || owner === "mcp" ? owner : "rest";
  const message = MESSAGES[status] ?? (STATUS_CODES[status] ?? "error").toLowerCase();
  return refusalBody(surface, message, {
    graphql: GRAPHQL_CODES[status] ?? (status >= 500 ? "INTERNAL_SERVER_ERROR" : "BAD_REQUEST"),
    rpc: status >= 500 ? -32603 : -32600,
  });
}

export function useErrorShapes(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          throw new GraphQLError("variables and extensions must be JSON objects", {
            extensions: { code: "BAD_REQUEST", http: { status: 400 } },
          });
        }
      });
    },
    onResponse({ request, response, setResponse, fetchAPI }) {
      if (response.status < 400 || response.body !== null || request.method === "HEAD") return;
      const headers = new fetchAPI.Headers(response.headers);
      headers.set("content-type", "application/json; charset=utf-8");
      headers.delete("content-length");
      setResponse(new fetchAPI.Response(statusBody(new URL(request.url).pathname, response.status), { status: response.status, headers }));
    },
  };
}
