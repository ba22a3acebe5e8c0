import { jsonAnswer } from "../refusal.js";

/** A JSON-RPC error answer of `/mcp`, with its HTTP status: the origin check's (./plugin.ts) and the server's (./handler.ts). */
export const rpcError = (status: number, id: unknown, code: number, message: string): Response =>
  jsonAnswer(status, JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error: { code, message } }));
