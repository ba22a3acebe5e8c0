/**
 * Issue 8, finding 5: a NUL byte in any text parameter was a 500 on every
 * surface, and Prisma merged one request's lookup with others', so the bad
 * value failed other clients' requests too. Control characters, over-long
 * text and over-long lists are now 400s naming the parameter, before the
 * database sees anything, and no lookup is ever shared between requests.
 * (MCP's twins of these REST failures are in test/mcp/tools.test.ts.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ROUTES } from "../../rest/routes.js";
import { MAX_LIST_LENGTH, MAX_TEXT_LENGTH } from "../../src/input-limits.js";
import { canaryExport } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { type ListeningGateway, listen } from "../support/socket.js";

let t: TestGateway;
let socket: ListeningGateway;

beforeAll(async () => {
  t = await testGateway(canaryExport());
  socket = await listen(t.gateway);
});
afterAll(async () => {
  await socket?.close();
  await t?.close();
});
beforeEach(() => {
  t.statements.length = 0;
});

async function get(path: string) {
  const response = await t.gateway.fetch(`http://gateway.test${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function graphql(body: unknown) {
  const response = await t.gateway.fetch("http://gateway.test/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { data?: any; errors?: any[] } };
}

/** Every free-text query parameter of every route, with a path that reaches it. */
const TEXT_PARAMS = ROUTES.flatMap((route) =>
  Object.entries(route.query)
    .filter(([, rule]) => rule.schema.maxLength === MAX_TEXT_LENGTH)
    .map(([name]) => ({ name, path: route.path.replace(/\{\w+\}/g, "1") })),
);

describe("REST: bad text is a 400 naming the parameter, and no SQL is sent", () => {
  it("covers every free-text parameter", () => {
    expect(TEXT_PARAMS.map((p) => p.name).sort()).toEqual([
      "category",
      "q",
      "q",
      "region",
      "region",
      "semester",
      "university",
      "university",
    ]);
  });

  it.each(TEXT_PARAMS)("$name of $path: NUL, other controls, and one character too many", async ({ name, path }) => {
    for (const [value, problem] of [
      ["%00", "must not contain control characters"],
      ["a%0Ab", "must not contain control characters"],
      ["%7F", "must not contain control characters"],
      ["%C2%85", "must not contain control characters"],
      ["x".repeat(MAX_TEXT_LENGTH + 1), `must be at most ${MAX_TEXT_LENGTH} characters`],
      [encodeURIComponent("程".repeat(MAX_TEXT_LENGTH + 1)), `must be at most ${MAX_TEXT_LENGTH} characters`],
    ] as const) {
      const answer = await get(`${path}?${name}=${value}`);
      expect(answer, `${path}?${name}=${value.slice(0, 20)}`).toEqual({
        status: 400,
        body: { success: false, error: `${name} ${problem}` },
      });
    }
    expect(t.statements).toEqual([]);
  });

  it("text path parameters too; the longest allowed text is served", async () => {
    expect(await get("/api/v1/environment/schools/%00")).toEqual({
      status: 400,
      body: { success: false, error: "school_ref must not contain control characters" },
    });
    expect(await get(`/api/v1/environment/schools/${"n".repeat(201)}/history`)).toEqual({
      status: 400,
      body: { success: false, error: `school_ref must be at most ${MAX_TEXT_LENGTH} characters` },
    });
    expect((await get(`/api/v1/hub/packs/pk%1Fpublic`)).status).toBe(400);
    expect(t.statements).toEqual([]);
    // 200 characters, Chinese ones counted as one each (600 bytes), are fine.
    expect((await get(`/api/v1/courses?q=${encodeURIComponent("程".repeat(MAX_TEXT_LENGTH))}`)).status).toBe(200);
    expect((await get(`/api/v1/courses?q=${"x".repeat(MAX_TEXT_LENGTH)}`)).status).toBe(200);
  });

  it("over a real socket as well", async () => {
    const answer = await socket.raw("GET /api/v1/courses?q=%00 HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n");
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ success: false, error: "q must not contain control characters" });
  });
});

describe("GraphQL: bad arguments and variables are BAD_USER_INPUT with 400, and no SQL is sent", () => {
  it.each([
    ['{ courses(first: 1, q: "a\\u0000b") { totalCount } }', undefined, "argument q must not contain control characters"],
    [`{ courses(first: 1, q: "${"x".repeat(201)}") { totalCount } }`, undefined, "argument q must be at most 200 characters"],
    ["query($q: String) { courses(first: 1, q: $q) { totalCount } }", { q: "\u0007" }, "variable $q must not contain control characters"],
    ["query($q: String) { courses(first: 1, q: $q) { totalCount } }", { q: "q".repeat(201) }, "variable $q must be at most 200 characters"],
    ["query($q: String) { courses(first: 1, q: $q) { totalCount } }", { q: "\ud800" }, "variable $q must be valid Unicode text"],
    [
      `query($q: String = "${"d".repeat(201)}") { courses(first: 1, q: $q) { totalCount } }`,
      undefined,
      "variable $q must be at most 200 characters",
    ],
    [
      "query($ids: [ID!]!) { nodes(ids: $ids) { id } }",
      { ids: Array.from({ length: MAX_LIST_LENGTH + 1 }, () => "x") },
      "variable $ids must have at most 100 items",
    ],
    [
      `{ nodes(ids: [${Array.from({ length: MAX_LIST_LENGTH + 1 }, () => '"x"').join(",")}]) { id } }`,
      undefined,
      "argument ids must have at most 100 items",
    ],
    ['{ university(ref: "\\u0000") { code } }', undefined, "argument ref must not contain control characters"],
  ])("%#: %s", async (query, variables, message) => {
    const answer = await graphql({ query, variables });
    expect(answer.status).toBe(400);
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors).toEqual([{ message, extensions: { code: "BAD_USER_INPUT" } }]);
    expect(t.statements).toEqual([]);
  });

  it("a document already seen is checked again with each request's variables, and a bad literal is refused each time", async () => {
    const query = "query($q: String) { courses(first: 1, q: $q) { totalCount } }";
    expect((await graphql({ query, variables: { q: "ok" } })).status).toBe(200);
    const bad = await graphql({ query, variables: { q: "\u0007" } });
    expect(bad.body.errors).toEqual([
      { message: "variable $q must not contain control characters", extensions: { code: "BAD_USER_INPUT" } },
    ]);
    for (let i = 0; i < 2; i++) {
      const literal = await graphql({ query: '{ courses(first: 1, q: "a\\u0001b") { totalCount } }' });
      expect(literal.body.errors).toEqual([
        { message: "argument q must not contain control characters", extensions: { code: "BAD_USER_INPUT" } },
      ]);
    }
  });

  it("the limits themselves are accepted", async () => {
    const answer = await graphql({
      query: "query($q: String, $ids: [ID!]!) { courses(first: 1, q: $q) { totalCount } nodes(ids: $ids) { id } }",
      variables: { q: "程".repeat(MAX_TEXT_LENGTH), ids: Array.from({ length: MAX_LIST_LENGTH }, () => "VW5pdmVyc2l0eTox") },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
  });
});

describe("one request never fails another", () => {
  it("a bad school beside good ones: every good one answers", async () => {
    const paths = Array.from({ length: 60 }, (_, i) =>
      i % 3 === 0 ? "/api/v1/environment/schools/%00" : "/api/v1/environment/schools/NTU",
    );
    const answers = await Promise.all(paths.map(get));
    for (const [i, answer] of answers.entries()) expect(answer.status, paths[i]).toBe(i % 3 === 0 ? 400 : 200);
  });

  it("lookups by key made in the same tick by different requests are not merged into one query", async () => {
    const refs = ["NTU", "NTHU", "UW", "1", "2", "3", "ntu", "nthu", "uw", "nowhere"];
    const answers = await Promise.all(refs.map((ref) => graphql({ query: `{ university(ref: "${ref}") { code } }` })));
    for (const answer of answers) expect(answer.body.errors).toBeUndefined();
    // One SELECT per request: a merged lookup (… WHERE id IN (…) or code_key IN (…)) would be fewer.
    const lookups = t.statements.filter((sql) => /FROM "public"\."university"/.test(sql));
    expect(lookups).toHaveLength(refs.length);
    for (const sql of lookups) expect(sql).not.toMatch(/ IN \(/);
  });
});
