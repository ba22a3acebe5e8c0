/**
 * `usePages`: the landing page at `GET /`, the REST reference at `GET /docs`
 * and the pages' files under `/assets/` (docs/contract.md §1), answered
 * before any key check. The
 * GraphiQL page itself is yoga's, rendered by ./graphiql.ts.
 */
import type { Plugin } from "graphql-yoga";
import type { Limits } from "../limits/rate-limits.js";
import { statusBody } from "../refusal.js";
import { assetAt } from "./assets.js";
import { docsPage } from "./docs.js";
import { landingPage } from "./landing.js";

export interface PagesOptions {
  /** The per-key limits the landing page announces. */
  limits: Limits;
}

/** A year: asset names change with their content. */
const IMMUTABLE = "public, max-age=31536000, immutable";

export function usePages(options: PagesOptions): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      const landing = url.pathname === "/";
      const answer = (status: number, type: string, body: string, headers: Record<string, string> = {}) =>
        endResponse(
          new fetchAPI.Response(request.method === "HEAD" ? null : body, {
            status,
            headers: { "content-type": type, "content-length": String(Buffer.byteLength(body)), ...headers },
          }),
        );
      const docs = url.pathname === "/docs";
      if (!landing && !docs && !url.pathname.startsWith("/assets/")) return;
      if (request.method !== "GET" && request.method !== "HEAD") {
        return answer(405, "application/json; charset=utf-8", statusBody(url.pathname, 405), { allow: "GET, HEAD" });
      }
      if (landing) {
        return answer(200, "text/html; charset=utf-8", landingPage({ limits: options.limits, origin: url.origin }), {
          "cache-control": "no-cache",
        });
      }
      if (docs) return answer(200, "text/html; charset=utf-8", await docsPage(), { "cache-control": "no-cache" });
      const asset = await assetAt(url.pathname);
      if (!asset) return answer(404, "application/json; charset=utf-8", statusBody(url.pathname, 404));
      answer(200, asset.type, asset.body, { "cache-control": IMMUTABLE });
    },
  };
}
