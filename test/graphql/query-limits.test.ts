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
    const wide = Array.from({ length: 15 }, (_, i) => `c${i}: courses(first: 100) { nodes { ...C university { code nameZh courses(first: 100) { nodes { ...C } } } } }`).join(" ");
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
    const body = await t.graphql(`{ universities { nodes { code courses(first: 5) { totalCount nodes { school university { code } } } environment { realtime { aqi } } } } }`);
    expect(body.errors).toBeUndefined();
    expect(body.data?.universities.nodes).toHaveLength(3);
  });
});
