/** A JSON-RPC error answer of `/mcp`, with its HTTP status. */
import { jsonAnswer } from "../refusal.js";

export const rpcError = (status: number, id: unknown, code: number, message: string): Response =>
  jsonAnswer(status, JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error: { code, message } }));
