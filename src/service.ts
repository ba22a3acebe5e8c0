/**
 * What the service is and the terms it is offered under (seed rule 7), as
 * the REST root (rest/root.ts) and the landing page (src/pages/landing.ts)
 * both say them.
 */
export const SERVICE = {
  name: "Public Data API",
  summary:
    "Low-sensitivity public data of the online learning platform: universities, public courses and their details, course statistics, " +
    "the team's papers and conferences, per-school environment data (air quality and weather aggregated from government stations) and " +
    "public community teaching Packs. Served as a v1 REST API, as GraphQL and as an MCP server for AI clients.",
  auth: "Authorization: Bearer <API_KEY>",
  terms: [
    "No commercial bulk scraping or resale of the data.",
    "Attribute data obtained through the API to the platform.",
    "Abuse or breach of these terms may lead to revocation of the key.",
  ],
  attribution:
    "Data from the learning platform's Public Data API; environment data aggregated from public government observations (CWA, MOENV, NWS, AirNow).",
} as const;
