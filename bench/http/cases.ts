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
  /**
   * The request PostGraphile (the peer, peer.ts) answers with the same rows:
   * a POST body for its `/graphql`. Before the run the two answers are
   * compared (main.ts): byte for byte where the gateway's answer is GraphQL
   * too, by the ids and totals in them in order where it is REST's envelope.
   */
  peer?: string;
  /** Run on the gateway and the peer alone (the GraphQL cases PostGraphile answers too), and not from memory. */
  peerOnly?: true;
  /**
   * A page after a deep cursor: before the run, each server is walked this
   * many courses into its list (`after` of its own cursors, main.ts), and the
   * case's `after` variable is set to its cursor there.
   */
  after?: number;
}

/**
 * The rules of the gateway's answers, in the peer's documents: public
 * courses, newest semester first, then by id (PostGraphile's simplified
 * names: `rowId` is a table's `id` column).
 */
const PUBLIC_COURSES = "condition: { isPublic: true }, orderBy: [SEMESTER_DESC, ROW_ID_ASC]";
/** A course's fields in the gateway's document, and the same in the peer's. */
const COURSE = "databaseId courseNameChinese courseNameEnglish instructor semester";
const PEER_COURSE = "databaseId: rowId courseNameChinese courseNameEnglish instructor semester";
/** A course's fields of one record, with its school. */
const DETAIL = "department startDate endDate className courseNumber courseClass university { code nameZh nameEn }";

const body = (query: string, variables?: Record<string, unknown>) => JSON.stringify(variables ? { query, variables } : { query });

/** A case of GraphQL on `dataset` that the gateway and the peer both answer, with the same `data`. */
const graphqlPair = (
  name: string,
  dataset: DatasetName,
  gateway: string,
  peer: string,
  variables?: Record<string, unknown>,
  peerVariables = variables,
): Case => ({
  name: `GraphQL ${name}`,
  dataset,
  method: "POST",
  path: "/graphql",
  body: body(gateway, variables),
  peer: body(peer, peerVariables),
  peerOnly: true,
  connections: [1, 16],
});

/** How deep the deep-cursor case's page is. */
const DEEP = 500;

/** The cases PostGraphile answers too, on `dataset`: a list, nested lists, one record, a page with its total, a search, a deep page. */
function peerCases(dataset: DatasetName, course: number): Case[] {
  const ourNode = Buffer.from(`Course:${course}`).toString("base64");
  const peerNode = Buffer.from(JSON.stringify(["Course", course])).toString("base64");
  return [
    graphqlPair(
      "list",
      dataset,
      "{ universities(first: 20) { nodes { databaseId code nameZh nameEn } } }",
      "{ universities(first: 20, orderBy: ROW_ID_ASC) { nodes { databaseId: rowId code nameZh nameEn } } }",
    ),
    graphqlPair(
      "nested edges",
      dataset,
      `{ universities(first: 20) { nodes { code courses(first: 3) { edges { node { ${COURSE} } } } } } }`,
      `{ universities(first: 20, orderBy: ROW_ID_ASC) { nodes { code courses(first: 3, ${PUBLIC_COURSES}) { edges { node { ${PEER_COURSE} } } } } } }`,
    ),
    graphqlPair(
      "nested nodes",
      dataset,
      `{ universities(first: 20) { nodes { code courses(first: 3) { nodes { ${COURSE} } } } } }`,
      `{ universities(first: 20, orderBy: ROW_ID_ASC) { nodes { code courses(first: 3, ${PUBLIC_COURSES}) { nodes { ${PEER_COURSE} } } } } }`,
    ),
    graphqlPair(
      "course by id",
      dataset,
      `query ($id: Int!) { course(id: $id) { ${COURSE} ${DETAIL} } }`,
      `query ($id: Int!) { course(rowId: $id) { ${PEER_COURSE} ${DETAIL} } }`,
      { id: course },
    ),
    graphqlPair(
      "node(id:)",
      dataset,
      `query ($id: ID!) { node(id: $id) { ... on Course { ${COURSE} ${DETAIL} } } }`,
      `query ($id: ID!) { node(id: $id) { ... on Course { ${PEER_COURSE} ${DETAIL} } } }`,
      { id: ourNode },
      { id: peerNode },
    ),
    graphqlPair(
      "page totalCount",
      dataset,
      `{ courses(first: 20) { totalCount edges { node { ${COURSE} } } } }`,
      `{ courses(first: 20, ${PUBLIC_COURSES}) { totalCount edges { node { ${PEER_COURSE} } } } }`,
    ),
    graphqlPair(
      "title search",
      dataset,
      `query ($q: String!) { courses(first: 20, q: $q) { totalCount nodes { ${COURSE} } } }`,
      `query ($q: String!) { courses(first: 20, ${PUBLIC_COURSES}, filter: { or: [{ courseNameChinese: { includesInsensitive: $q } }, { courseNameEnglish: { includesInsensitive: $q } }] }) { totalCount nodes { ${PEER_COURSE} } } }`,
      { q: "learning" },
    ),
    {
      ...graphqlPair(
        `page after ${DEEP}`,
        dataset,
        `query ($after: String) { courses(first: 20, after: $after) { edges { node { ${COURSE} } } } }`,
        `query ($after: Cursor) { courses(first: 20, after: $after, ${PUBLIC_COURSES}) { edges { node { ${PEER_COURSE} } } } }`,
      ),
      after: DEEP,
    },
  ];
}

/** The documents that walk each server's course list by its own cursors, 100 at a time (main.ts). */
export const WALK = {
  gateway: "query ($after: String) { courses(first: 100, after: $after) { pageInfo { endCursor } } }",
  peer: `query ($after: Cursor) { courses(first: 100, after: $after, ${PUBLIC_COURSES}) { pageInfo { endCursor } } }`,
};

/** The peer's documents for the REST operations it can answer: their rows, ids and totals as the operation's. */
const REST_PEERS = {
  courses: body(
    `{ courses(first: 20, ${PUBLIC_COURSES}) { totalCount nodes { id: rowId className courseNumber courseClass courseNameChinese courseNameEnglish instructor instructorEnglish department departmentEnglish university { nameZh } semester startDate endDate } } }`,
  ),
  course: (id: number) =>
    body(
      "query ($id: Int!) { course(rowId: $id) { id: rowId className courseNumber courseClass courseNameChinese courseNameEnglish instructor instructorEnglish department departmentEnglish university { nameZh } semester startDate endDate teachingGoal teachingGoalEnglish teachingContent teachingContentEnglish classMemo isPublic } }",
      { id },
    ),
  // PostGraphile names these enum values as PostgreSQL spells them.
  packs: body(
    "{ hubPacks(first: 30, condition: { visibility: public, safetyStatus: passed }, orderBy: [LATEST_PUBLISHED_AT_DESC, ROW_ID_ASC]) { totalCount nodes { id: rowId name summary assetType latestVersion subject educationLevel bloomLevels difficulty starCount installCount ownerName } } }",
  ),
};

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

/** How a bench over the demo cases says what `--only` keeps (onlyCases), in its usage. */
export const ONLY_USAGE = `--only keeps the cases whose name contains TEXT (or one of a comma-separated
list; =NAME keeps the case of that exact name), as npm run bench reads it.`;

/**
 * The cases `--only` keeps: those whose name contains one of its
 * comma-separated texts; `=NAME` keeps the case of that exact name, and
 * `=NAME@DATASET` that case of that dataset alone. All of them without it.
 */
export function onlyCases(list: Case[], only: string | undefined): Case[] {
  const texts = only?.split(",");
  const keeps = (c: Case, text: string) =>
    text.startsWith("=") ? [c.name, `${c.name}@${c.dataset}`].includes(text.slice(1)) : c.name.includes(text);
  return list.filter((c) => !texts || texts.some((text) => keeps(c, text)));
}

/** Ids that name no row: the cases' names and datasets are known with them before a database is filled. */
export const STAND_IN_IDS = { course: 0, pack: "", word: "", school: "" };

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
    get("op 2 courses", "demo", "/api/v1/courses", { bare: true, peer: REST_PEERS.courses }),
    get("op 2 courses q", "demo", `/api/v1/courses?q=${encodeURIComponent(ids.word)}`, { bare: true }),
    get("op 3 course", "demo", `/api/v1/courses/${ids.course}`, { bare: true, peer: REST_PEERS.course(ids.course) }),
    get("op 4 course_stats", "demo", "/api/v1/course_stats"),
    get("op 7 school environment", "demo", `/api/v1/environment/schools/${ids.school}`),
    get("op 8 history days=90", "demo", `/api/v1/environment/schools/${ids.school}/history?days=90`),
    get("op 9 snapshot limit=100", "demo", "/api/v1/environment/snapshot?limit=100"),
    get("op 10 packs", "demo", "/api/v1/hub/packs", { bare: true, peer: REST_PEERS.packs }),
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
    // Beside PostGraphile (peer.ts), on the demo data and on 100,000 courses.
    ...peerCases("demo", ids.course),
    ...peerCases("large", ids.course),
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
