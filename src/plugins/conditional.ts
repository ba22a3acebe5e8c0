/**
 * `useConditionalGet`: every successful GET answer carries an `ETag`, and a request whose `If-None-Match` names it is answered 304 with
 * no body. The tag is weak (`W/"…"`): the same representation may go out
 * gzip- or brotli-encoded (src/http.ts). It runs after the key check, so a
 * 304 still counts against the key's limits (docs/contract.md §8).
 */
import { createHash } from "node:crypto";
import type { Plugin } from "graphql-yoga";

/** The weak `ETag` of a body; a cached answer's is computed once, when it is kept (rest/cached-path.ts). */
export const etagOf = (body: Uint8Array | string): string => `W/"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;

/** Whether an `If-None-Match` value names `etag` (weak comparison, RFC 9110 §13.1.2). */
export function matches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => opaque(tag) === opaque(etag));
}

/** The headers of a 304 answering one with `headers`: every one but the content's own (RFC 9110 §15.4.5). */
export function notModifiedHeaders(headers: Iterable<[string, string]>): [string, string][] {
  return [...headers].filter(([name]) => !name.toLowerCase().startsWith("content-"));
}

export function useConditionalGet(): Plugin {
  return {
    async onResponse({ request, response, setResponse, fetchAPI }) {
      if (request.method !== "GET" || response.status !== 200 || response.headers.has("etag")) return;
      const contentType = response.headers.get("content-type") ?? "";
      // Event streams never end; only whole bodies are tagged.
      if (contentType.startsWith("text/event-stream") || response.bodyUsed) return;
      const body = new Uint8Array(await response.arrayBuffer());
      const etag = etagOf(body);
      const ifNoneMatch = request.headers.get("if-none-match");
      if (ifNoneMatch && matches(ifNoneMatch, etag)) {
        const headers = new fetchAPI.Headers(notModifiedHeaders(response.headers));
        headers.set("etag", etag);
        setResponse(new fetchAPI.Response(null, { status: 304, headers }));
        return;
      }
      const headers = new fetchAPI.Headers(response.headers);
      headers.set("etag", etag);
      setResponse(new fetchAPI.Response(body, { status: 200, statusText: response.statusText, headers }));
    },
  };
}
