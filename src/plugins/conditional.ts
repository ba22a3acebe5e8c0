/**
 * `useConditionalGet`: every successful GET answer carries an `ETag`, and a request whose `If-None-Match` names it is answered 304 with
 * no body. The tag is weak (`W/"…"`): the same representation may go out
 * gzip- or brotli-encoded (src/http.ts). It runs after the key check, so a
 * 304 still counts against the key's limits (docs/contract.md §8).
 *
 * A REST answer and a GraphQL answer to a GET (a persisted query's, say)
 * also carry {@link PUBLIC_CACHE_CONTROL}, so that a CDN may keep them; a
 * GraphQL one varies with `Accept`, which chooses its media type.
 */
import type { Plugin } from "graphql-yoga";
import { etagOf } from "../cache/etag.js";
import { surfaceOf } from "./paths.js";

/**
 * The `Cache-Control` of a public answer: any cache, a CDN's too, may keep
 * it (`public`: the requests carry `Authorization`, without which a shared
 * cache would not, RFC 9111 §3.5), but must ask the gateway again before
 * each use (`no-cache`). The gateway then checks the key, counts the request
 * against its limits, and answers 304 while the answer is unchanged.
 */
export const PUBLIC_CACHE_CONTROL = "public, no-cache";

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
      const surface = surfaceOf(request, new URL(request.url));
      const publicAnswer = (surface === "rest" || surface === "graphql") && !response.headers.has("cache-control");
      const ifNoneMatch = request.headers.get("if-none-match");
      if (ifNoneMatch && matches(ifNoneMatch, etag)) {
        const headers = new fetchAPI.Headers(notModifiedHeaders(response.headers));
        headers.set("etag", etag);
        if (publicAnswer) publicCaching(headers, surface);
        setResponse(new fetchAPI.Response(null, { status: 304, headers }));
        return;
      }
      const headers = new fetchAPI.Headers(response.headers);
      headers.set("etag", etag);
      if (publicAnswer) publicCaching(headers, surface);
      setResponse(new fetchAPI.Response(body, { status: 200, statusText: response.statusText, headers }));
    },
  };
}

/** Marks a public answer as one a CDN may keep; a GraphQL answer's media type follows `Accept`. */
function publicCaching(headers: Headers, surface: string): void {
  headers.set("cache-control", PUBLIC_CACHE_CONTROL);
  const vary = headers.get("vary");
  // set, not append: the Fetch ponyfill's Headers then loses the case-insensitive lookup of its other names
  if (surface === "graphql") headers.set("vary", vary ? `${vary}, Accept` : "Accept");
}
