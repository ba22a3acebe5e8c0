/**
 * Issue 8, finding 4: `nodes(ids:)` gave the first object for every id, in
 * n² loads (150 ids took 19.5 s, 5,000 ended the process). It now gives each
 * id's own object in order (null where none is public), with one load per id,
 * and refuses more than 100 ids (see input.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canaryExport } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

const gid = (type: string, id: string | number) => Buffer.from(`${type}:${id}`).toString("base64");
const QUERY = `query($ids: [ID!]!) { nodes(ids: $ids) {
  id
  ... on University { code }
  ... on Course { databaseId }
  ... on HubPack { name }
} }`;

let t: TestGateway;
beforeAll(async () => {
  t = await testGateway(canaryExport());
});
afterAll(() => t?.close());

async function nodes(ids: string[]) {
  t.statements.length = 0;
  const answer = await t.graphql(QUERY, { ids });
  expect(answer.errors).toBeUndefined();
  return answer.data!.nodes as (Record<string, unknown> | null)[];
}

describe("nodes(ids:)", () => {
  it("gives each id its own object, in the order asked", async () => {
    expect(await nodes([gid("University", 1), gid("University", 2)])).toEqual([
      { id: gid("University", 1), code: "NTU" },
      { id: gid("University", 2), code: "NTHU" },
    ]);
    expect(await nodes([gid("University", 3), gid("University", 1), gid("University", 3)])).toEqual([
      { id: gid("University", 3), code: "UW" },
      { id: gid("University", 1), code: "NTU" },
      { id: gid("University", 3), code: "UW" },
    ]);
  });

  it("mixes types, and gives null in place for what is missing or not public", async () => {
    expect(
      await nodes([gid("HubPack", "pk_private"), gid("Course", 1), gid("University", 999), gid("HubPack", "pk_public"), gid("Course", 2)]),
    ).toEqual([null, { id: gid("Course", 1), databaseId: 1 }, null, { id: gid("HubPack", "pk_public"), name: "Fractions Quiz" }, null]);
  });

  it("costs one statement per id: linear, not quadratic", async () => {
    const counts: number[] = [];
    for (const n of [25, 50, 100]) {
      const answer = await nodes(Array.from({ length: n }, (_, i) => gid("University", i + 1)));
      expect(answer.filter(Boolean)).toHaveLength(3);
      counts.push(t.statements.length);
    }
    expect(counts).toEqual([25, 50, 100]);
  });
});
