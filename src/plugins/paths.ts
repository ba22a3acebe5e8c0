/**
 * `usePaths`: the service's paths (docs/contract.md §1), decided once, first.
 *
 * A request whose (normalised) path is not one of them answers 404 in JSON
 * before any other plugin sees it. This is what keeps GraphQL at exactly
 * `/graphql`: yoga would otherwise run any path that merely ends in
 * `/graphql` (`/graphql/`, `/x/graphql`, `/api/v1/%2e%2e/graphql`), and the
 * key check, which guards exactly `/graphql`, would not see them.
 */
import type { Plugin } from "graphql-yoga";
import { ownerOf } from "../path-owners.js";
import { failure } from "../refusal.js";

/** A browser asking for the GraphiQL page (not a GraphQL request sent by GET). */
export const isGraphiQLPage = (request: Request, url: URL) =>
  request.method === "GET" && !url.searchParams.has("query") && (request.headers.get("accept") ?? "").includes("text/html");

/** The surface a request is for: REST, GraphQL, MCP, or a page (landing, assets, health, OpenAPI, metrics, GraphiQL, an unknown path). */
export function surfaceOf(request: Request, url: URL): "rest" | "graphql" | "mcp" | "page" {
  const owner = ownerOf(url.pathname);
  if (owner === "rest" || owner === "mcp") return owner;
  return owner === "graphql" && !isGraphiQLPage(request, url) ? "graphql" : "page";
}

export function usePaths(): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (ownerOf(url.pathname)) return;
      endResponse(
        new fetchAPI.Response(request.method === "HEAD" ? null : JSON.stringify(failure(`no such path: ${url.pathname}`)), {
          status: 404,
          headers: { "content-type": "application/json; charset=utf-8" },
        }),
      );
    },
  };
}
