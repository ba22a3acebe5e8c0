/** The body of `GET /api/v1` (docs/contract.md §1): what the API is and how to use it. */
import type { Limits } from "../src/limits/rate-limits.js";
import { SERVICE } from "../src/service.js";
import type { Route } from "./routes.js";

export function rootBody(routes: readonly Route[], limits: Limits) {
  return {
    success: true,
    data: {
      name: SERVICE.name,
      version: "v1",
      graphql: "/graphql",
      mcp: "/mcp",
      auth: SERVICE.auth,
      limits: { per_minute: limits.perMinute, per_day: limits.perDay },
      endpoints: routes.map((r) => ({ method: "GET", path: r.path, description: r.description })),
      terms: [...SERVICE.terms],
      attribution: SERVICE.attribution,
    },
  };
}
