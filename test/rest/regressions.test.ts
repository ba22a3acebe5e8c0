/**
 * Behaviours fixed after review, each on a fixture of its own: versions
 * published at the same instant order as semantic versions, and a paper
 * with no authors answers `authors: null` (docs/contract.md §2: no value is null).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canaryExport } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { restClient, type RestClient } from "./support.js";

let t: TestGateway;
let rest: RestClient;
beforeAll(async () => {
  const e = canaryExport();
  const tie = (v: string) => ({ version: v, published_at: "2026-05-05T05:05:05Z", changelog: null, safety_status: "passed", payload: {} });
  e.hub_packs[0]!.versions = [tie("1.9.0"), tie("1.10.0"), tie("1.2.0")] as never;
  e.papers.push({ ...e.papers[0]!, slug: "no-authors", authors: [] as never });
  t = await testGateway(e);
  rest = restClient(t.gateway);
});
afterAll(() => t.close());

describe("review fixes", () => {
  it("versions published at the same instant come highest semantic version first", async () => {
    const { body } = await rest.get("/api/v1/hub/packs/pk_public");
    expect(body.data.latest_version).toBe("1.10.0");
    expect(body.data.versions.map((v: { version: string }) => v.version)).toEqual(["1.10.0", "1.9.0", "1.2.0"]);
  });

  it("a paper with no authors has authors null, not an empty string", async () => {
    const { body } = await rest.get("/api/v1/papers");
    expect(body.items.find((p: { slug: string }) => p.slug === "no-authors").authors).toBeNull();
  });
});
