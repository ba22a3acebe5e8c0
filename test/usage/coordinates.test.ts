/**
 * What a request uses (src/usage/coordinates.ts): names only, each GraphQL
 * document's computed once per parsed document and operation.
 */
import { parse } from "graphql";
import { describe, expect, it } from "vitest";
import { schema } from "../../src/schema/index.js";
import { graphqlUses, isEntry, mcpEntry, mcpTool, restUses } from "../../src/usage/coordinates.js";

describe("GraphQL coordinates", () => {
  it("are the fields, arguments and enum values written in the operation and the fragments it spreads, never a value", () => {
    const document = parse(`
      query Packs($q: String) {
        hubPacks(first: 2, q: $q, sort: stars, assetType: quiz_bank) { nodes { ...Pack } }
        __typename
      }
      fragment Pack on HubPack { name @include(if: true) ...More }
      fragment More on HubPack { installCount }
      fragment Unused on HubPack { starCount }
      query Other { universities { totalCount } }
    `);
    expect(graphqlUses(schema, document, "Packs")).toEqual([
      "/graphql",
      "Query.hubPacks",
      "Query.hubPacks(first:)",
      "Query.hubPacks(q:)",
      "Query.hubPacks(sort:)",
      "PackSort.stars",
      "Query.hubPacks(assetType:)",
      "AssetType.quiz_bank",
      "QueryHubPacksConnection.nodes",
      "HubPack.name",
      "HubPack.installCount",
    ]);
    expect(graphqlUses(schema, document, "Other")).toEqual(["/graphql", "Query.universities", "QueryUniversitiesConnection.totalCount"]);
  });

  it("are computed once per parsed document and operation", () => {
    const document = parse("{ universities { nodes { code } } }");
    const first = graphqlUses(schema, document, undefined);
    expect(graphqlUses(schema, document, null)).toBe(first);
    expect(graphqlUses(schema, parse("{ universities { nodes { code } } }"), undefined)).not.toBe(first);
  });

  it("of a document without that operation are the entry alone", () => {
    expect(graphqlUses(schema, parse("query A { universities { totalCount } }"), "B")).toEqual(["/graphql"]);
  });
});

describe("REST and MCP coordinates", () => {
  it("a REST request: its route's template, and each parameter's name once, never its value", () => {
    expect(restUses("/api/v1/courses", new URLSearchParams("q=secret&page=2&q=again"))).toEqual([
      "/api/v1/courses",
      "/api/v1/courses?page",
      "/api/v1/courses?q",
    ]);
  });

  it("the entries are one per request", () => {
    expect(["/graphql", mcpEntry("legacy"), "/api/v1/courses/{course_id}"].every(isEntry)).toBe(true);
    expect(["/api/v1/courses?q", mcpTool("list_courses"), "Query.courses"].some(isEntry)).toBe(false);
  });
});
