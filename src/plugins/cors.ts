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
import { statusBody } from "../refusal.js";
import { ownerOf, type PathOwner } from "../path-owners.js";

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

/** Which origins may read answers, decided once from the options. */
export interface CorsPolicy {
  /** The `Access-Control-Allow-Origin` for a request's `Origin`, if it may read; never for "My API Keys", which only its own pages use. */
  allowOrigin(origin: string | null | undefined, owner: PathOwner | undefined): string | undefined;
  /** Whether answers vary by `Origin` (only some origins may read them). */
  variesByOrigin: boolean;
}

export function corsPolicy(options: CorsOptions = {}): CorsPolicy {
  const listed = options.origins?.length ? new Set(options.origins) : undefined;
  return {
    allowOrigin: (origin, owner) =>
      origin == null || owner === "account" ? undefined : !listed ? "*" : listed.has(origin) ? origin : undefined,
    variesByOrigin: listed !== undefined,
  };
}

/**
 * The CORS headers of an answer (not of a preflight) to a request from
 * `origin`, handed to `set` one by one; `vary` is to be appended to any
 * `Vary` the answer has. Both the gateway and the lean path
 * (src/lean/path.ts) add them through this.
 */
export function answerCorsHeaders(
  policy: CorsPolicy,
  origin: string | null | undefined,
  owner: PathOwner | undefined,
  status: number,
  set: (name: string, value: string) => void,
): void {
  if (policy.variesByOrigin) set("vary", "Origin");
  const allowed = policy.allowOrigin(origin, owner);
  if (!allowed || status === 204) return;
  set("access-control-allow-origin", allowed);
  set("access-control-expose-headers", EXPOSED_HEADERS);
}

export function useCors(options: CorsOptions = {}): Plugin {
  const policy = corsPolicy(options);
  const { allowOrigin } = policy;

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
      answerCorsHeaders(policy, request.headers.get("origin"), ownerOf(new URL(request.url).pathname), response.status, (name, value) =>
        name === "vary" ? response.headers.append(name, value) : response.headers.set(name, value),
      );
    },
  };
}

/**
 * The security headers of an answer of `contentType`: `X-Content-Type-Options:
 * nosniff` on every one, and framing and referrer rules on HTML pages. A
 * page that has its own `Referrer-Policy` keeps it (the account pages' forms
 * must send their Origin).
 */
export function securityHeaders(contentType: string): Record<string, string> {
  if (!contentType.startsWith("text/html")) return NOSNIFF;
  return { ...NOSNIFF, "x-frame-options": "DENY", "content-security-policy": "frame-ancestors 'none'", "referrer-policy": "no-referrer" };
}

const NOSNIFF: Readonly<Record<string, string>> = Object.freeze({ "x-content-type-options": "nosniff" });

/** {@link securityHeaders} on every answer. */
export function useSecurityHeaders(): Plugin {
  return {
    onResponse({ response }) {
      for (const [name, value] of Object.entries(securityHeaders(response.headers.get("content-type") ?? ""))) {
        if (name !== "referrer-policy" || !response.headers.has(name)) response.headers.set(name, value);
      }
    },
  };
}
