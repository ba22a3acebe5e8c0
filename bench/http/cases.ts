/**
 * What the bench asks: each case is one request, repeated under load, on one
 * dataset. Cases with `bare` are also answered by the bare handler
 * (baseline.ts); every case is also answered from memory (the static one).
 */
import { createHash } from "node:crypto";
import type { DatasetName } from "./datasets.js";

export interface Case {
  /** Short name in the table. */
  name: string;
  dataset: DatasetName;
  method: "GET" | "POST";
  /** Path and query. */
  path: string;
  body?: string;
  /** Headers of its own, besides the key and (for a POST) the JSON content type. */
  headers?: Record<string, string>;
  /** The bare handler answers it too. */
  bare?: boolean;
  /** Connection counts it is driven at (the run's list when unset). */
  connections?: number[];
  /**
   * A growth case: it compares the gateway with itself on another dataset,
   * so it runs on the gateway alone (no cache, baseline or workers).
   */
  growth?: boolean;
  /** A POST body sent to `/graphql` of every gateway before the case runs (a persisted document's registration). */
  setup?: string;
  /**
   * A REST list's last page: before the run, the path gets the `page` that
   * the first page's `total` makes the last (main.ts, lastPage).
   */
  last?: true;
}

const NESTED = JSON.stringify({
  query:
    "{ universities { nodes { code nameZh courses(first: 20) { nodes { databaseId courseNameChinese courseNameEnglish instructor semester startDate } } } } }",
});

/** The nested document's automatic persisted query: registered once by POST, then asked for by hash over GET. */
const NESTED_HASH = createHash("sha256")
  .update((JSON.parse(NESTED) as { query: string }).query)
  .digest("hex");
const PERSISTED = { persistedQuery: { version: 1, sha256Hash: NESTED_HASH } };

const mcpCall = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });

/** A 2026-07-28 tool call: the envelope in `_meta`, and the headers that must agree with it. */
const modernMcpCall = (name: string, args: Record<string, unknown>): Pick<Case, "body" | "headers"> => ({
  body: JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name,
      arguments: args,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  }),
  headers: { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name },
});

/**
 * Short title terms people type (issue 43), which no trigram serves: one
 * Chinese character, a two-character Chinese word and two English letters
 * (upper case: the search ignores case). In the bench's varied titles they
 * match about 2%, 5% and 8% of courses.
 */
const SHORT_TERMS = [
  ["1 char", "熱"],
  ["2 zh", "資料"],
  ["2 en", "AI"],
] as const;

/** GraphQL's first page of a title search, with its total. */
const searchQuery = (q: string) =>
  JSON.stringify({
    query:
      "query ($q: String) { courses(q: $q, first: 20) { totalCount nodes { databaseId courseNameChinese courseNameEnglish semester } } }",
    variables: { q },
  });

/** GraphQL's first page of one school's courses matching `q`. */
const schoolSearchQuery = (school: string, q: string) =>
  JSON.stringify({
    query:
      "query ($ref: String!, $q: String) { university(ref: $ref) { courses(q: $q, first: 20) { totalCount nodes { databaseId courseNameChinese semester } } } }",
    variables: { ref: school, q },
  });

/** A semester every dataset's courses have. */
const SEMESTER = "113-1";

/** The cases, given a course id and a Pack id that exist in the demo data, and a title word to search for. */
export function cases(ids: { course: number; pack: string; word: string; school: string }): Case[] {
  const get = (name: string, dataset: DatasetName, path: string, more: Partial<Case> = {}): Case => ({
    name,
    dataset,
    method: "GET",
    path,
    ...more,
  });
  const growth = { connections: [1, 16], growth: true };
  return [
    get("op 1 universities", "demo", "/api/v1/universities"),
    get("op 2 courses", "demo", "/api/v1/courses", { bare: true }),
    get("op 2 courses q", "demo", `/api/v1/courses?q=${encodeURIComponent(ids.word)}`, { bare: true }),
    get("op 3 course", "demo", `/api/v1/courses/${ids.course}`, { bare: true }),
    get("op 4 course_stats", "demo", "/api/v1/course_stats"),
    get("op 7 school environment", "demo", `/api/v1/environment/schools/${ids.school}`),
    get("op 8 history days=90", "demo", `/api/v1/environment/schools/${ids.school}/history?days=90`),
    get("op 9 snapshot limit=100", "demo", "/api/v1/environment/snapshot?limit=100"),
    get("op 10 packs", "demo", "/api/v1/hub/packs", { bare: true }),
    get("op 11 pack", "demo", `/api/v1/hub/packs/${ids.pack}`),
    { name: "GraphQL nested", dataset: "demo", method: "POST", path: "/graphql", body: NESTED },
    get("GraphQL nested GET by hash", "demo", `/graphql?extensions=${encodeURIComponent(JSON.stringify(PERSISTED))}`, {
      setup: JSON.stringify({ ...(JSON.parse(NESTED) as object), extensions: PERSISTED }),
    }),
    { name: "MCP tools/call", dataset: "demo", method: "POST", path: "/mcp", body: mcpCall("list_courses", { page_size: 20 }) },
    {
      name: "MCP 2026-07-28 tools/call",
      dataset: "demo",
      method: "POST",
      path: "/mcp",
      ...modernMcpCall("list_courses", { page_size: 20 }),
    },
    get("op 10 packs q", "demo", "/api/v1/hub/packs?q=quiz"),
    // Growth: the same operations on 1,000, 100,000 and 1,000,000 courses (each filter, a page 40 deep, every
    // grouping), and on 2.8 M observations (compared with the demo's 35 days, results.ts).
    ...(["courses-1k", "large", "taiwan"] as const).flatMap((dataset) => [
      get("op 2 courses", dataset, "/api/v1/courses", growth),
      get("op 2 courses q", dataset, `/api/v1/courses?q=${encodeURIComponent(ids.word)}`, growth),
      ...SHORT_TERMS.map(([label, q]) => get(`op 2 courses q ${label}`, dataset, `/api/v1/courses?q=${encodeURIComponent(q)}`, growth)),
      { name: "GraphQL courses q 2 zh", dataset, method: "POST" as const, path: "/graphql", body: searchQuery("資料"), ...growth },
      get("op 2 courses university", dataset, `/api/v1/courses?university=${ids.school.toLowerCase()}`, growth),
      get("op 2 courses semester", dataset, `/api/v1/courses?semester=${SEMESTER}`, growth),
      get("op 2 courses university semester", dataset, `/api/v1/courses?university=${ids.school}&semester=${SEMESTER}`, growth),
      get("op 2 courses q long", dataset, `/api/v1/courses?q=${encodeURIComponent("machine learning")}`, growth),
      {
        name: "GraphQL University.courses q",
        dataset,
        method: "POST" as const,
        path: "/graphql",
        body: schoolSearchQuery(ids.school, "學"),
        ...growth,
      },
      get("op 4 course_stats university", dataset, `/api/v1/course_stats?university=${ids.school}`, growth),
      get("op 4 course_stats year university", dataset, `/api/v1/course_stats?group_by=year&university=${ids.school}`, growth),
      get("op 4 course_stats school university", dataset, `/api/v1/course_stats?group_by=school&university=${ids.school}`, growth),
      get("op 2 courses page 40", dataset, "/api/v1/courses?page=40", growth),
      get("op 4 course_stats", dataset, "/api/v1/course_stats", growth),
      get("op 4 course_stats year", dataset, "/api/v1/course_stats?group_by=year", growth),
      get("op 4 course_stats school", dataset, "/api/v1/course_stats?group_by=school", growth),
    ]),
    // Deep pages (issue 54): each filter's last page on 1,000,000 courses, beside its first page above.
    ...(
      [
        ["", ""],
        [" university", `university=${ids.school}`],
        [" semester", `semester=${SEMESTER}`],
        [" university semester", `university=${ids.school}&semester=${SEMESTER}`],
        [" q 1 char", `q=${encodeURIComponent(SHORT_TERMS[0][1])}`],
      ] as const
    ).map(([label, query]) => get(`op 2 courses${label} last page`, "taiwan", `/api/v1/courses?${query}`, { ...growth, last: true })),
    get("op 10 packs q", "taiwan", "/api/v1/hub/packs?q=quiz", growth),
    get("op 8 history days=7", "large", `/api/v1/environment/schools/${ids.school}/history?days=7`, growth),
    get("op 8 history days=90", "large", `/api/v1/environment/schools/${ids.school}/history?days=90`, growth),
    get("op 9 snapshot limit=100", "large", "/api/v1/environment/snapshot?limit=100", growth),
  ];
}
