import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../src/server.js";
import { COST, MAX_COST } from "../../src/schema/cost.js";
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
  it("refuses a document nested past the depth limit before running it", async () => {
    const deep = `{ courses { nodes { university { courses { nodes { university { courses { nodes { university { courses { nodes { university { code } } } } } } } } } } } } }`;
    t.statements.length = 0;
    const body = await t.graphql(deep);
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]?.message).toMatch(/depth/i);
    expect(t.statements).toEqual([]);
  });

  it("refuses a document with too many aliases, __typename included", async () => {
    const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: universities { totalCount }`).join(" ");
    expect((await t.graphql(`{ ${aliases} }`)).errors?.[0]?.message).toMatch(/alias/i);
    const typenames = Array.from({ length: 16 }, (_, i) => `t${i}: __typename`).join(" ");
    expect((await t.graphql(`{ ${typenames} }`)).errors?.[0]?.message).toMatch(/alias/i);
    const fifteen = Array.from({ length: 15 }, (_, i) => `a${i}: universities { totalCount }`).join(" ");
    expect((await t.graphql(`{ ${fifteen} }`)).errors).toBeUndefined();
  });

  it("refuses a document whose cost is too high (fragments make it cheap in tokens)", async () => {
    const fields = "databaseId courseNameChinese courseNameEnglish school semester instructor department startDate endDate";
    const wide = Array.from(
      { length: 15 },
      (_, i) => `c${i}: courses(first: 100) { nodes { ...C university { code nameZh courses(first: 100) { nodes { ...C } } } } }`,
    ).join(" ");
    const body = await t.graphql(`fragment C on Course { ${fields} } { ${wide} }`);
    expect(body.errors?.[0]?.message).toMatch(/cost/i);
  });

  it("refuses more than 10 directives", async () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: universities @include(if: true) { totalCount }`).join(" ");
    expect((await t.graphql(`{ ${fields(11)} }`)).errors?.[0]?.message).toMatch(/directive/i);
    expect((await t.graphql(`{ ${fields(10)} }`)).errors).toBeUndefined();
  });

  it("says no 'did you mean' for a mistyped field", async () => {
    const body = await t.graphql("{ universitie { totalCount } }");
    expect(body.errors?.[0]?.message).toBeDefined();
    expect(body.errors![0]!.message).not.toMatch(/did you mean/i);
  });

  it("allows depth 6, the nested connection read through nodes, and refuses 7", async () => {
    expect((await t.graphql("{ universities { nodes { courses { nodes { university { code } } } } } }")).errors).toBeUndefined();
    const seven = await t.graphql("{ universities { nodes { courses { nodes { university { courses { totalCount } } } } } } }");
    expect(seven.errors?.[0]?.message).toMatch(/depth/i);
  });

  it("answers an ordinary nested query", async () => {
    const body = await t.graphql(
      `{ universities { nodes { code courses(first: 5) { totalCount nodes { school university { code } } } environment { realtime { aqi } } } } }`,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data?.universities.nodes).toHaveLength(3);
  });
});
