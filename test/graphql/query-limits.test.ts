import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../src/server.js";
import { MAX_COST } from "../../src/input-limits.js";
import { COST } from "../../src/schema/cost.js";
import { canaryExport } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

let t: TestGateway;
/** The same data with a limit of 0: every request is refused, and the answer says what it costs. */
let pricing: Gateway;
beforeAll(async () => {
  t = await testGateway(canaryExport());
  const { createReadClient } = await import("../../src/db/client.js");
  pricing = createGateway({ db: t.db, prisma: createReadClient(t.db), auth: false, queryLimits: { maxCost: 0 } });
});
afterAll(() => t.close());

async function post(gateway: Gateway, body: Record<string, unknown>) {
  const response = await gateway.fetch("http://gateway.test/graphql", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { data?: any; errors?: { message: string; extensions?: any }[] } };
}

async function costOf(query: string, variables?: Record<string, unknown>, operationName?: string): Promise<number> {
  const { body } = await post(pricing, { query, variables, operationName });
  return body.errors?.[0]?.extensions?.cost;
}

describe("the cost of a request", () => {
  const history = (first: string, days: string) =>
    `{ universities(first: ${first}) { nodes { environmentHistory(days: ${days}) { days } } } }`;

  it("prices environment fields by schools and days, pages by the size asked for", async () => {
    // A connection: its query, then each item.
    expect(await costOf("{ courses(first: 10) { totalCount nodes { databaseId } } }")).toBe(COST.list + 10 * COST.row);
    // A substring search scans the titles.
    expect(await costOf(`{ courses(first: 10, q: "程式") { totalCount } }`)).toBe(COST.list + COST.search);
    expect(await costOf(`{ coursePage(pageSize: 10, q: "程式") { items { databaseId } } }`)).toBe(COST.list + COST.search + 10 * COST.row);
    // A history: each school of the page, each day.
    expect(await costOf(history("15", "90"))).toBe(COST.list + 15 * (COST.row + 90 * COST.historyDay));
    expect(await costOf(history("15", "7"))).toBe(COST.list + 15 * (COST.row + 7 * COST.historyDay));
    // At the root, a history is a batch of its own.
    expect(await costOf(`{ schoolEnvironmentHistory(ref: "NTU", days: 90) { days } }`)).toBe(
      COST.row + COST.historyAlone + 90 * COST.historyDay,
    );
    // Snapshots: computed together in a list, alone at the root.
    expect(await costOf("{ universities(first: 10) { nodes { environment { dayBoundary } } } }")).toBe(
      COST.list + 10 * (COST.row + COST.snapshotInList),
    );
    expect(await costOf(`{ schoolEnvironment(ref: "NTU") { dayBoundary } }`)).toBe(COST.row + COST.snapshotAlone);
    expect(await costOf("{ environmentSnapshot(limit: 100) { totalCount } }")).toBe(
      COST.list + COST.snapshotAlone + 100 * COST.snapshotInList,
    );
    // Each id of nodes(ids:) is a lookup of its own.
    expect(await costOf(`{ nodes(ids: ["VW5pdmVyc2l0eTox", "VW5pdmVyc2l0eToy"]) { id } }`)).toBe(2 * COST.lookup);
  });

  it("uses the variables and prices only the operation that runs", async () => {
    const query =
      "query H($n: Int!, $d: Int!) { universities(first: $n) { nodes { environmentHistory(days: $d) { days } } } } query Cheap { __typename }";
    expect(await costOf(query, { n: 2, d: 3 }, "H")).toBe(COST.list + 2 * (COST.row + 3 * COST.historyDay));
    expect(await costOf(query, { n: 2, d: 3 }, "Cheap")).toBe(1);
    expect((await post(t.gateway, { query, variables: { n: 100, d: 90 }, operationName: "H" })).status).toBe(400);
    expect((await post(t.gateway, { query, variables: { n: 100, d: 90 }, operationName: "Cheap" })).body).toEqual({
      data: { __typename: "Query" },
    });
  });

  it("prices each request of a document already priced: other variables, another operation, the same refusal again", async () => {
    const query =
      "query H($n: Int!, $d: Int!) { universities(first: $n) { nodes { environmentHistory(days: $d) { days } } } } query Cheap { __typename }";
    const code = async (variables: Record<string, unknown>, operationName: string) =>
      (await post(t.gateway, { query, variables, operationName })).body.errors?.[0]?.extensions?.code;
    // The same document within the limit first, so that a remembered price could be misused.
    expect(await code({ n: 2, d: 3 }, "H")).toBeUndefined();
    expect(await code({ n: 2, d: 3 }, "H")).toBeUndefined();
    expect(await code({ n: 100, d: 90 }, "Cheap")).toBeUndefined();
    for (let i = 0; i < 3; i++) expect(await code({ n: 100, d: 90 }, "H")).toBe("QUERY_TOO_COSTLY");
    // More variable sets than a document remembers: the first is priced again, and still within the limit.
    for (let n = 1; n <= 20; n++) expect(await code({ n, d: 1 }, "H")).toBeUndefined();
    expect(await code({ n: 2, d: 3 }, "H")).toBeUndefined();
  });

  it("refuses a request above the limit with 400 before any SQL, saying what it costs", async () => {
    t.statements.length = 0;
    const answer = await post(t.gateway, { query: history("500", "90") });
    expect(answer.status).toBe(400);
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors).toEqual([
      {
        message: expect.stringMatching(/^Query cost 2251550 is above the limit of 100000: ask for smaller pages/),
        extensions: { code: "QUERY_TOO_COSTLY", cost: 2_251_550, maxCost: MAX_COST },
      },
    ]);
    expect(t.statements).toEqual([]);
  });

  it("accepts 15 schools' 90-day histories, and refuses the same list 15 times over", async () => {
    expect((await post(t.gateway, { query: history("15", "90") })).body.errors).toBeUndefined();
    const fifteen = Array.from(
      { length: 15 },
      (_, i) => `a${i}: universities(first: 15) { nodes { environmentHistory(days: ${90 - i}) { days } } }`,
    );
    t.statements.length = 0;
    expect((await post(t.gateway, { query: `{ ${fifteen.join(" ")} }` })).body.errors?.[0]?.extensions?.code).toBe("QUERY_TOO_COSTLY");
    expect(t.statements).toEqual([]);
  });

  it("refuses 3 aliases of nodes(ids:) with 100 ids each, accepts 2", async () => {
    const ids = Array.from({ length: 100 }, () => "VW5pdmVyc2l0eTox");
    const aliases = (n: number) =>
      `query($ids: [ID!]!) { ${Array.from({ length: n }, (_, i) => `a${i}: nodes(ids: $ids) { id }`).join(" ")} }`;
    expect((await post(t.gateway, { query: aliases(3), variables: { ids } })).body.errors?.[0]?.extensions?.code).toBe("QUERY_TOO_COSTLY");
    expect((await post(t.gateway, { query: aliases(2), variables: { ids } })).body.errors).toBeUndefined();
  });

  it("an argument the cost depends on that cannot be read is a 400, and nothing runs", async () => {
    t.statements.length = 0;
    const answer = await post(t.gateway, { query: `{ nodes(ids: ["not a global id"]) { id } courses { totalCount } }` });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ errors: [{ message: expect.stringMatching(/global ID/i), extensions: { code: "BAD_USER_INPUT" } }] });
    expect(t.statements).toEqual([]);
  });
});

describe("GraphQL query limits", () => {
  /** POSTs a document; the status and body. */
  const send = (query: string) => post(t.gateway, { query });
  /** A refusal of one limit: a 400 with only that error, its code, measure and bound, and no parser prefix. */
  const refusal = (code: string, extensions: Record<string, number>) => ({
    status: 400,
    body: { errors: [{ message: expect.not.stringMatching(/^Syntax Error/), extensions: { code, ...extensions } }] },
  });

  it("counts a Relay page's connection wrappers as no level: two connection levels and each course's school run", async () => {
    const relay = `{ universities(first: 2) { edges { cursor node { id code courses(first: 2) { edges { cursor node { id courseNameChinese university { id code } } } pageInfo { endCursor hasNextPage } } } } pageInfo { endCursor hasNextPage } } }`;
    const answer = await send(relay);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.universities.edges[0].node.courses.edges[0].node.university.code).toBe(
      answer.body.data.universities.edges[0].node.code,
    );
    // The same page through `nodes`, and through fragments, measures the same.
    const viaFragments = `fragment Row on Course { id university { code } } fragment Card on University { courses(first: 2) { edges { node { ...Row } } } } { universities(first: 2) { edges { node { ...Card } } } }`;
    expect((await send(viaFragments)).body.errors).toBeUndefined();
  });

  it("refuses a document going round University.courses and Course.university five times, before any SQL, with QUERY_TOO_DEEP", async () => {
    const round = (n: number): string => (n === 0 ? "code" : `courses(first: 1) { edges { node { university { ${round(n - 1)} } } } }`);
    t.statements.length = 0;
    expect(await send(`{ universities(first: 1) { edges { node { ${round(5)} } } } }`)).toEqual(
      refusal("QUERY_TOO_DEEP", { depth: 12, maxDepth: 7 }),
    );
    expect(t.statements).toEqual([]);
    // Through nodes, and named: the same measure, and the operation named.
    const viaNodes = (n: number): string => (n === 0 ? "code" : `courses(first: 1) { nodes { university { ${viaNodes(n - 1)} } } }`);
    expect(await send(`query Deep { universities(first: 1) { nodes { ${viaNodes(5)} } } }`)).toMatchObject({
      status: 400,
      body: {
        errors: [
          { message: expect.stringMatching(/^Operation Deep is nested 12 levels deep; at most 7/), extensions: { code: "QUERY_TOO_DEEP" } },
        ],
      },
    });
  });

  it("accepts depth 7 and refuses 8 (the deepest useful shape, a school's courses' school's weather now, is 6)", async () => {
    const school = (inner: string) => `courses(first: 1) { nodes { university { ${inner} } } }`;
    const six = `{ universities(first: 2) { edges { node { ${school("environment { realtime { aqi } }")} } } } }`;
    expect((await send(six)).body.errors).toBeUndefined();
    const seven = `{ universities(first: 1) { nodes { ${school(school("environment { dayBoundary }"))} } } }`;
    expect((await send(seven)).body.errors).toBeUndefined();
    const eight = `{ universities(first: 1) { nodes { ${school(school("environment { realtime { aqi } }"))} } } }`;
    expect(await send(eight)).toEqual(refusal("QUERY_TOO_DEEP", { depth: 8, maxDepth: 7 }));
  });

  it("does not count introspection's depth: GraphiQL's schema query runs", async () => {
    const { getIntrospectionQuery } = await import("graphql");
    expect((await send(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }))).body.errors).toBeUndefined();
  });

  it("refuses 16 aliases with QUERY_TOO_MANY_ALIASES, __typename and fragments each time they are spread counted, and accepts 15", async () => {
    const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: universities { totalCount }`).join(" ");
    expect(await send(`{ ${aliases(16)} }`)).toEqual(refusal("QUERY_TOO_MANY_ALIASES", { aliases: 16, maxAliases: 15 }));
    const typenames = Array.from({ length: 16 }, (_, i) => `t${i}: __typename`).join(" ");
    expect(await send(`{ ${typenames} }`)).toEqual(refusal("QUERY_TOO_MANY_ALIASES", { aliases: 16, maxAliases: 15 }));
    const spread =
      'fragment F on University { a: code b: nameZh c: region d: shortName } { universities(first: 1) { nodes { ...F x: id ...F } } u: university(ref: "NTU") { ...F ...F } }';
    expect(await send(spread)).toEqual(refusal("QUERY_TOO_MANY_ALIASES", { aliases: 18, maxAliases: 15 }));
    expect((await send(`{ ${aliases(15)} }`)).body.errors).toBeUndefined();
  });

  it("refuses 11 directives with QUERY_TOO_MANY_DIRECTIVES, and accepts 10", async () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: universities @include(if: true) { totalCount }`).join(" ");
    expect(await send(`{ ${fields(11)} }`)).toEqual(refusal("QUERY_TOO_MANY_DIRECTIVES", { directives: 11, maxDirectives: 10 }));
    expect((await send(`{ ${fields(10)} }`)).body.errors).toBeUndefined();
  });

  it("refuses fragments that each spread the one before twice, 300 tokens making 2^30 fields, with QUERY_TOO_MANY_FIELDS at once", async () => {
    const fanOut = (levels: number, width: number) =>
      `{ courses(first: 1) { nodes { ...F${levels} } } } fragment F0 on Course { ${"databaseId ".repeat(width)}} ${Array.from(
        { length: levels },
        (_, i) => `fragment F${i + 1} on Course { ...F${i} ...F${i} }`,
      ).join(" ")}`;
    t.statements.length = 0;
    const started = Date.now();
    // 2 fields above the first fragment, then 2^30 written out.
    expect(await send(fanOut(30, 1))).toEqual(refusal("QUERY_TOO_MANY_FIELDS", { fields: 2 + 2 ** 30, maxFields: 2_000 }));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(t.statements).toEqual([]);
    // 2 + 2^5 × 62 = 1,986 runs; 2 + 2^5 × 63 = 2,018 does not.
    expect((await send(fanOut(5, 62))).body.errors).toBeUndefined();
    expect(await send(fanOut(5, 63))).toEqual(refusal("QUERY_TOO_MANY_FIELDS", { fields: 2_018, maxFields: 2_000 }));
  });

  it("refuses 1,001 tokens with QUERY_TOO_MANY_TOKENS, counting all of them, and accepts 1,000 (comments are not tokens)", async () => {
    // 13 tokens, 14 with `__typename`, and 2 for each spread of F (a field repeated a thousand times would
    // meet graphql-js's own budget for comparing fields).
    const tokens = (n: number) =>
      `# a comment is not a token\n{ universities { totalCount } ${(n - 13) % 2 ? "__typename " : ""}${"...F ".repeat(Math.floor((n - 13) / 2))}} fragment F on Query { __typename }`;
    t.statements.length = 0;
    expect(await send(tokens(1_001))).toEqual(refusal("QUERY_TOO_MANY_TOKENS", { tokens: 1_001, maxTokens: 1_000 }));
    expect(await send(tokens(5_000))).toEqual(refusal("QUERY_TOO_MANY_TOKENS", { tokens: 5_000, maxTokens: 1_000 }));
    expect(t.statements).toEqual([]);
    expect((await send(tokens(1_000))).body.errors).toBeUndefined();
    // A syntax error within the bound is still one.
    expect((await send("{ universities { totalCount ")).body.errors?.[0]?.message).toMatch(/^Syntax Error/);
  });

  it("refuses a document whose cost is too high (fragments make it cheap in tokens)", async () => {
    const fields = "databaseId courseNameChinese courseNameEnglish school semester instructor department startDate endDate";
    const wide = Array.from(
      { length: 15 },
      (_, i) => `c${i}: courses(first: 100) { nodes { ...C university { code nameZh courses(first: 100) { nodes { ...C } } } } }`,
    ).join(" ");
    const body = await t.graphql(`fragment C on Course { ${fields} } { ${wide} }`);
    expect(body.errors?.[0]?.extensions?.code).toBe("QUERY_TOO_COSTLY");
  });

  it("refuses a cycle of fragments as invalid, without measuring it forever", async () => {
    const body = await t.graphql(
      "fragment A on University { courses { nodes { university { ...B } } } } fragment B on University { ...A } { universities { nodes { ...A } } }",
    );
    expect(body.errors?.map((e) => e.message).join(" ")).toMatch(/Cannot spread fragment "A" within itself/);
  });

  it("says no 'did you mean' for a mistyped field", async () => {
    const body = await t.graphql("{ universitie { totalCount } }");
    expect(body.errors?.[0]?.message).toBeDefined();
    expect(body.errors![0]!.message).not.toMatch(/did you mean/i);
  });

  it("answers an ordinary nested query", async () => {
    const body = await t.graphql(
      `{ universities { nodes { code courses(first: 5) { totalCount nodes { school university { code } } } environment { realtime { aqi } } } } }`,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data?.universities.nodes).toHaveLength(3);
  });
});
