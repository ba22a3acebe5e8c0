/**
 * Apollo Client (with `relayStylePagination`) and urql (with Graphcache's
 * `relayPagination`), as frontend teams set them up: fragments, a list inside
 * a list through `edges { node }`, and two pages of a nested connection
 * fetched into a normalized cache, over a real socket with a key. What each
 * client sent is measured against the document bounds.
 */
import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql } from "@apollo/client";
import { relayStylePagination } from "@apollo/client/utilities";
import { cacheExchange } from "@urql/exchange-graphcache";
import { relayPagination } from "@urql/exchange-graphcache/extras";
import { Client, fetchExchange, gql as urqlGql } from "@urql/core";
import { parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCUMENT_BOUNDS, countTokens, measureOperations } from "../../src/schema/document-limits.js";
import { schema } from "../../src/schema/index.js";
import type { ListeningGateway } from "../support/socket.js";
import { COURSE_ROW, HOME, SCHOOL_COURSES } from "./documents.js";
import { type DemoService, demoService, type Exchange } from "./served.js";

let service: DemoService;
let gateway: ListeningGateway;
/** The first six courses of NTU, as one page of six: what two pages of three must merge into. */
let firstSix: string[];
beforeAll(async () => {
  service = await demoService();
  gateway = await service.serve();
  const answer = await service.fetch([])(`${gateway.base}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: `{ university(ref: "NTU") { courses(first: 6) { edges { node { id } } } } }` }),
  });
  firstSix = ((await answer.json()) as any).data.university.courses.edges.map((e: any) => e.node.id);
}, 120_000);
afterAll(() => service?.close());

/** The sizes of the documents a client sent, each kept well within every bound. */
function expectWithinBounds(exchanges: Exchange[]): void {
  expect(exchanges.length).toBeGreaterThan(0);
  for (const exchange of exchanges) {
    const text = exchange.sent?.query as string;
    const [shape] = [...measureOperations(schema, parse(text)).values()];
    expect(shape!.depth).toBeLessThanOrEqual(DOCUMENT_BOUNDS.maxDepth / 2 + 1);
    expect(shape!.aliases).toBe(0);
    expect(shape!.directives).toBe(0);
    expect(countTokens(text)).toBeLessThanOrEqual(DOCUMENT_BOUNDS.maxTokens / 2);
  }
}

describe("Apollo Client with relayStylePagination", () => {
  const exchanges: Exchange[] = [];
  let client: ApolloClient;
  beforeAll(() => {
    client = new ApolloClient({
      link: new HttpLink({ uri: `${gateway.base}/graphql`, fetch: service.fetch(exchanges) }),
      cache: new InMemoryCache({
        typePolicies: {
          University: { fields: { courses: relayStylePagination(["semester", "q"]) } },
          Query: { fields: { universities: relayStylePagination(["region"]) } },
        },
      }),
    });
  });

  it("a list inside a list, with fragments, in one request", async () => {
    const { data, error } = await client.query({ query: apolloGql(`${HOME}${COURSE_ROW}`), variables: { schools: 3, courses: 2 } });
    expect(error).toBeUndefined();
    const schools = (data as any).universities.edges;
    expect(schools).toHaveLength(3);
    for (const { node } of schools) {
      expect(node.courses.edges.length).toBeGreaterThan(0);
      for (const { node: course } of node.courses.edges) expect(course.university.code).toBe(node.code);
    }
  });

  it("two pages of a school's courses, merged in the normalized cache", async () => {
    const query = apolloGql(`${SCHOOL_COURSES}${COURSE_ROW}`);
    const watched = client.watchQuery({ query, variables: { ref: "NTU", first: 3 } });
    const first = await watched.refetch();
    const pageInfo = (first.data as any).university.courses.pageInfo;
    expect(pageInfo.hasNextPage).toBe(true);
    await watched.fetchMore({ variables: { after: pageInfo.endCursor } });
    const merged = client.readQuery({ query, variables: { ref: "NTU", first: 3 } }) as any;
    expect(merged.university.courses.edges.map((e: any) => e.node.id)).toEqual(firstSix);
    // Normalized: each course one object of the cache, under its global id.
    const cached = client.cache.extract() as Record<string, any>;
    for (const id of firstSix) expect(cached[`Course:${id}`]?.id).toBe(id);
  });

  it("sent documents (with __typename added) within the bounds, each answered 200 without errors", () => {
    expect(exchanges.every((e) => e.status === 200 && !(e.answer as any).errors)).toBe(true);
    expect(exchanges.some((e) => /__typename/.test(e.sent?.query as string))).toBe(true);
    expectWithinBounds(exchanges);
  });
});

describe("urql with Graphcache's relayPagination", () => {
  const exchanges: Exchange[] = [];
  /**
   * A client with its own cache. relayPagination merges every page of a field
   * with the same filters, so an app that asks for a school's courses both
   * with and without pageInfo (the home page's cards, the school page) keeps
   * them apart; here each case starts from an empty cache.
   */
  const urql = () =>
    new Client({
      url: `${gateway.base}/graphql`,
      requestPolicy: "cache-first",
      preferGetMethod: false,
      fetch: service.fetch(exchanges),
      exchanges: [
        cacheExchange({
          // Connections, edges and page information have no id: they are kept inside their parent.
          keys: Object.fromEntries(
            [
              "PageInfo",
              "QueryUniversitiesConnection",
              "QueryUniversitiesConnectionEdge",
              "UniversityCoursesConnection",
              "UniversityCoursesConnectionEdge",
            ].map((type) => [type, () => null]),
          ),
          resolvers: { University: { courses: relayPagination() } },
        }),
        fetchExchange,
      ],
    });

  it("a list inside a list, with fragments, in one request", async () => {
    const result = await urql()
      .query(urqlGql(`${HOME}${COURSE_ROW}`), { schools: 3, courses: 2 })
      .toPromise();
    expect(result.error).toBeUndefined();
    for (const { node } of result.data.universities.edges) {
      for (const { node: course } of node.courses.edges) expect(course.university.code).toBe(node.code);
    }
  });

  it("two pages of a school's courses, merged by the cache", async () => {
    const query = urqlGql(`${SCHOOL_COURSES}${COURSE_ROW}`);
    const client = urql();
    const first = await client.query(query, { ref: "NTU", first: 3 }).toPromise();
    expect(first.error).toBeUndefined();
    const pageInfo = first.data.university.courses.pageInfo;
    expect(pageInfo.hasNextPage).toBe(true);
    const second = await client.query(query, { ref: "NTU", first: 3, after: pageInfo.endCursor }).toPromise();
    expect(second.error).toBeUndefined();
    expect(second.data.university.courses.edges.map((e: any) => e.node.id)).toEqual(firstSix);
    // From the cache now: no request for the first page again.
    const before = exchanges.length;
    const again = await client.query(query, { ref: "NTU", first: 3 }).toPromise();
    expect(again.data.university.courses.edges.map((e: any) => e.node.id)).toEqual(firstSix);
    expect(exchanges.length).toBe(before);
  });

  it("sent documents (with __typename added) within the bounds, each answered 200 without errors", () => {
    expect(exchanges.every((e) => e.status === 200 && !(e.answer as any).errors)).toBe(true);
    expect(exchanges.some((e) => /__typename/.test(e.sent?.query as string))).toBe(true);
    expectWithinBounds(exchanges);
  });
});
