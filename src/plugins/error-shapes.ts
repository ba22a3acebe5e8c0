/**
 * `useErrorShapes`: every refusal in its surface's shape (docs/contract.md §2), also
 * the ones yoga and the MCP transport make themselves.
 *
 * - A GraphQL request whose `variables` or `extensions` are not JSON is a
 *   400 `BAD_REQUEST`, not an unexpected error (500).
 * - An error status without a body (yoga's 406 and 415, for example) gets
 *   the body of its surface: GraphQL `errors`, a JSON-RPC error on `/mcp`,
 *   the REST envelope elsewhere. Its headers (`Accept`, `Allow`) are kept.
 */
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { statusBody } from "../refusal.js";

export function useErrorShapes(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          throw new GraphQLError("variables and extensions must be JSON objects", {
            extensions: { code: "BAD_REQUEST", http: { status: 400 } },
          });
        }
      });
    },
    onResponse({ request, response, setResponse, fetchAPI }) {
      if (response.status < 400 || response.body !== null || request.method === "HEAD") return;
      const headers = new fetchAPI.Headers(response.headers);
      headers.set("content-type", "application/json; charset=utf-8");
      headers.delete("content-length");
      setResponse(new fetchAPI.Response(statusBody(new URL(request.url).pathname, response.status), { status: response.status, headers }));
    },
  };
}
