/**
 * The body of every refusal, in its surface's shape (docs/contract.md §2):
 * the v1 failure envelope, GraphQL `errors`, a JSON-RPC error. The HTTP
 * layer, the path check, the plugins, the lean path, the pages and REST all
 * answer with them, so they live below them all.
 */
import { STATUS_CODES } from "node:http";
import { ownerOf } from "./path-owners.js";

export const failure = (error: string): { success: false; error: string } => ({ success: false, error });

/**
 * A JSON answer written in full: with its length (a bare `Response` of a
 * string goes out chunked, with no length for the client or the access log)
 * and its status line's reason phrase.
 */
export function jsonAnswer(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    statusText: STATUS_CODES[status] ?? "",
    headers: { "content-type": "application/json; charset=utf-8", "content-length": String(Buffer.byteLength(body)), ...headers },
  });
}

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
