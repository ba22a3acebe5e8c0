/**
 * The body of every refusal outside GraphQL and MCP: the v1 failure envelope
 * (docs/contract.md §2). The HTTP layer, the path check and REST all answer
 * with it, so it lives below them all.
 */
import { STATUS_CODES } from "node:http";

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
