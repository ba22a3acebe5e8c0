/**
 * How an answer made by the gateway becomes one the lean path (src/lean/path.ts)
 * serves. The lean path names each request it can key before yoga sees it
 * ({@link nameRequest}); when the gateway's answer to that request may be
 * kept, the plugin that made it keeps its bytes under that name
 * ({@link keepGraphQL}, {@link keepRpc}), and the next request of the same
 * name is written from them without yoga.
 */
import type { IncomingMessage } from "node:http";
import type { AnswerCache, KeptBytes } from "./answers.js";
import { etagOf } from "./etag.js";

/** A request keyed by the lean path: its cache key, and the cache's generation when it arrived. */
export interface LeanName {
  key: string;
  since: number;
  /** Whether the request is a GET (its answer then carries an `ETag`). */
  get: boolean;
  /** A JSON-RPC call's id, whose place in the answer is kept apart. */
  id?: string | number;
}

const names = new WeakMap<IncomingMessage, LeanName>();

/** Names a request the lean path keyed but could not answer from memory. */
export function nameRequest(request: IncomingMessage, name: LeanName): void {
  names.set(request, name);
}

/** The lean name of the request behind yoga's server context, if the lean path keyed it. */
export function leanNameOf(serverContext: unknown): LeanName | undefined {
  const request = (serverContext as { req?: IncomingMessage } | undefined)?.req;
  return request ? names.get(request) : undefined;
}

/**
 * Keeps a GraphQL answer (a 200 without errors) as its bytes, with its media
 * type, and for a GET its `ETag`, as useConditionalGet tags it, and the `Vary:
 * Accept` of a public GraphQL answer.
 */
export function keepGraphQL(
  cache: AnswerCache,
  name: LeanName,
  bytes: Buffer,
  contentType: string,
  validForMs: number,
  uses: readonly string[] | undefined,
): void {
  const kept: KeptBytes = name.get
    ? { status: 200, bytes, headers: { "content-type": contentType, vary: "Accept" }, etag: etagOf(bytes), uses }
    : { status: 200, bytes, headers: { "content-type": contentType }, uses };
  cache.keep(name.key, kept, validForMs, name.since);
}

/** A stand-in for the id while the answer is written without it; JSON escapes it, so no answer holds it otherwise. */
const PLACE = "\u0000id\u0000";

/**
 * Keeps a JSON-RPC answer (an MCP tool's) as its bytes without the call's
 * id, and where the id goes: only when the answer is exactly the JSON of its
 * own parse, with the call's id, so that writing another id in gives the
 * bytes the gateway would have written.
 */
export function keepRpc(
  cache: AnswerCache,
  name: LeanName,
  status: number,
  text: string,
  headers: Record<string, string>,
  validForMs: number,
  uses: readonly string[] | undefined,
): void {
  if (name.id === undefined) return;
  let answer: { id?: unknown };
  try {
    answer = JSON.parse(text) as { id?: unknown };
  } catch {
    return;
  }
  if (typeof answer !== "object" || answer === null || answer.id !== name.id || JSON.stringify(answer) !== text) return;
  const [before, after, ...more] = JSON.stringify({ ...answer, id: PLACE }).split(JSON.stringify(PLACE));
  if (before === undefined || after === undefined || more.length) return;
  const head = Buffer.from(before);
  const bytes = Buffer.concat([head, Buffer.from(after)]);
  cache.keep(name.key, { status, bytes, headers, idAt: head.length, uses }, validForMs, name.since);
}
