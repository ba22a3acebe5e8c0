/** The body of `GET /api/v1` (docs/contract.md §1): what the API is and how to use it. */
import type { Limits } from "../src/limits/rate-limits.js";
import type { Route } from "./routes.js";

export function rootBody(routes: readonly Route[], limits: Limits) {
  return {
    success: true,
    data: {
      name: "Public Data API",
      version: "v1",
      graphql: "/graphql",
      mcp: "/mcp",
      auth: "Authorization: Bearer <API_KEY>",
      limits: { per_minute: limits.perMinute, per_day: limits.perDay },
      endpoints: routes.map((r) => ({ method: "GET", path: r.path, description: r.description })),
      terms: [
        "No commercial bulk scraping or resale of the data.",
        "Attribute data obtained through the API to the platform.",
        "Abuse or breach of these terms may lead to revocation of the key.",
      ],
      attribution:
        "Data from the learning platform's Public Data API; environment data aggregated from public government observations (CWA, MOENV, NWS, AirNow).",
    },
  };
}
