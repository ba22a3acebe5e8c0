/** The v1 response bodies (docs/contract.md §2). */

export type Body = Record<string, unknown>;

export { failure } from "../src/refusal.js";

/** docs/contract.md §2: `data`, `items` + `total`, or the paged list. */
export type Envelope = "object" | "list" | "paged";

/**
 * What each envelope carries beside `success: true`: the operation's whole
 * `result` as `data`, or these fields of it. The answers (below) and their
 * schemas (schemas.ts) are both made from this.
 */
export const ENVELOPE_FIELDS = {
  object: [],
  list: ["items", "total"],
  paged: ["items", "page", "page_size", "total"],
} as const satisfies Record<Envelope, readonly string[]>;

/**
 * Wraps an operation's `result` in the route's envelope; null when the
 * resource does not exist (the caller answers 404).
 */
export function envelope(kind: Envelope, result: unknown): Body | null {
  if (result === null || result === undefined) return null;
  const r = result as Record<string, unknown>;
  if (kind === "object") return { success: true, data: r };
  const body: Body = { success: true };
  for (const field of ENVELOPE_FIELDS[kind]) body[field] = r[field];
  return body;
}
