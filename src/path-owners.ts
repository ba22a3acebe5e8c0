/**
 * The service's paths (docs/contract.md §1) and what answers each: a fact
 * of the contract that the path check, the key check, CORS, the refusal
 * bodies and the pages all read, so it lives below them all.
 */

/** What answers a path. */
export type PathOwner = "graphql" | "mcp" | "rest" | "health" | "openapi" | "page" | "account";

/** The owner of a normalised URL path (as `new URL(...).pathname` gives it), if any. */
export function ownerOf(pathname: string): PathOwner | undefined {
  switch (pathname) {
    case "/graphql":
      return "graphql";
    case "/mcp":
      return "mcp";
    case "/healthz":
    case "/readyz":
      return "health";
    case "/openapi.json":
      return "openapi";
    case "/":
    case "/docs":
      return "page";
  }
  if (pathname.startsWith("/assets/")) return "page";
  if (pathname === "/account" || pathname.startsWith("/account/")) return "account";
  return pathname === "/api/v1" || pathname.startsWith("/api/v1/") ? "rest" : undefined;
}
