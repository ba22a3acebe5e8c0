/** The v1 response bodies (docs/contract.md §2). */

export type Body = Record<string, unknown>;

export { failure } from "../src/refusal.js";

/**
 * Wraps an operation's `result` in the route's envelope; null when the
 * resource does not exist (the caller answers 404).
 */
export function envelope(kind: "object" | "list" | "paged", result: unknown): Body | null {
  if (result === null || result === undefined) return null;
  const r = result as Record<string, unknown>;
  switch (kind) {
    case "object":
      return { success: true, data: r };
    case "list":
      return { success: true, items: r.items, total: r.total };
    case "paged":
      return { success: true, items: r.items, page: r.page, page_size: r.page_size, total: r.total };
  }
}
