import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canaryExport } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

let t: TestGateway;
beforeAll(async () => {
  t = await testGateway(canaryExport());
});
afterAll(() => t.close());

describe("GraphQL query limits", () => {
  it("refuses a document nested past the depth limit before running it", async () => {
    const deep = `{ courses { nodes { university { courses { nodes { university { courses { nodes { university { courses { nodes { university { code } } } } } } } } } } } } }`;
    t.statements.length = 0;
    const body = await t.graphql(deep);
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]?.message).toMatch(/depth/i);
    expect(t.statements).toEqual([]);
  });

  it("refuses a document with too many aliases", async () => {
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: universities { totalCount }`).join(" ");
    const body = await t.graphql(`{ ${aliases} }`);
    expect(body.errors?.[0]?.message).toMatch(/alias/i);
  });

  it("refuses a document whose cost is too high", async () => {
    const fields = "databaseId courseNameChinese courseNameEnglish school semester instructor department startDate endDate";
    const wide = Array.from({ length: 28 }, (_, i) => `c${i}: courses(first: 100) { nodes { university { courses(first: 100) { nodes { ${fields} university { code nameZh } } } } } }`).join(" ");
    const body = await t.graphql(`{ ${wide} }`);
    expect(body.errors?.[0]?.message).toMatch(/cost/i);
  });

  it("answers an ordinary nested query", async () => {
    const body = await t.graphql(`{ universities { nodes { code courses(first: 5) { totalCount nodes { school university { code } } } environment { realtime { aqi } } } } }`);
    expect(body.errors).toBeUndefined();
    expect(body.data?.universities.nodes).toHaveLength(3);
  });
});
