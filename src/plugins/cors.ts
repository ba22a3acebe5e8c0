/**
 * `useCors`: which browser pages may read the answers, and `OPTIONS`.
 *
 * Keys travel in the `Authorization` header, never in cookies, so answers are
 * shared without credentials: with any origin by default (`*`), or with the
 * configured ones only. Browser code may read the limit headers. A CORS
 * preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`)
 * answers 204; any other `OPTIONS` is a 405 with `Allow`, in its surface's
 * shape (docs/contract.md §1).
 */
import type { Plugin } from "graphql-yoga";
import { statusBody } from "./error-shapes.js";
import { ownerOf, type PathOwner } from "./paths.js";

export interface CorsOptions {
  /**
   * Origins (`https://app.example.org`) whose pages may read the answers;
   * unset or empty: any origin. Credentials are never allowed.
   */
  origins?: readonly string[] | undefined;
}

/** The methods each kind of path answers. */
const METHODS: Record<PathOwner, string> = {
  graphql: "GET, POST",
  mcp: "GET, POST, DELETE",
  rest: "GET, HEAD",
  health: "GET, HEAD",
  openapi: "GET, HEAD",
  page: "GET, HEAD",
  account: "GET, HEAD, POST",
};

const ALLOWED_HEADERS = "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID";
const EXPOSED_HEADERS =
  "RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Request-Id, Mcp-Session-Id";

export function useCors(options: CorsOptions = {}): Plugin {
  const listed = options.origins?.length ? new Set(options.origins) : undefined;
  /** The `Access-Control-Allow-Origin` for a request's `Origin`, if it may read; never for "My API Keys", which only its own pages use. */
  const allowOrigin = (origin: string | null, owner: PathOwner | undefined) =>
    origin === null || owner === "account" ? undefined : !listed ? "*" : listed.has(origin) ? origin : undefined;

  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== "OPTIONS") return;
      const owner = ownerOf(url.pathname)!; // unknown paths were answered 404 before
      const origin = request.headers.get("origin");
      if (origin !== null && request.headers.has("access-control-request-method")) {
        const allowed = allowOrigin(origin, owner);
        const headers: Record<string, string> = { "content-length": "0", vary: "Origin" };
        if (allowed) {
          Object.assign(headers, {
            "access-control-allow-origin": allowed,
            "access-control-allow-methods": METHODS[owner],
            "access-control-allow-headers": ALLOWED_HEADERS,
            "access-control-max-age": "600",
          });
        }
        return endResponse(new fetchAPI.Response(null, { status: 204, headers }));
      }
      endResponse(
        new fetchAPI.Response(statusBody(url.pathname, 405), {
          status: 405,
          headers: { "content-type": "application/json; charset=utf-8", allow: METHODS[owner] },
        }),
      );
    },
    onResponse({ request, response }) {
      const allowed = allowOrigin(request.headers.get("origin"), ownerOf(new URL(request.url).pathname));
      if (listed) response.headers.append("vary", "Origin");
      if (!allowed || response.status === 204) return;
      response.headers.set("access-control-allow-origin", allowed);
      response.headers.set("access-control-expose-headers", EXPOSED_HEADERS);
    },
  };
}

/** `X-Content-Type-Options: nosniff` on every answer, and framing and referrer rules on HTML pages. */
export function useSecurityHeaders(): Plugin {
  return {
    onResponse({ response }) {
      response.headers.set("x-content-type-options", "nosniff");
      if ((response.headers.get("content-type") ?? "").startsWith("text/html")) {
        response.headers.set("x-frame-options", "DENY");
        response.headers.set("content-security-policy", "frame-ancestors 'none'");
        // A page may need its own (the account pages' forms must send their Origin).
        if (!response.headers.has("referrer-policy")) response.headers.set("referrer-policy", "no-referrer");
      }
    },
  };
}
