/**
 * Operations 1, 5 and 6 (docs/contract.md §3): universities, papers, conferences,
 * over the rich fixture (./fixture.ts). Every response is checked against
 * the OpenAPI document by ./support.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { richExport } from "./fixture.js";
import { restClient, type RestClient } from "./support.js";

let t: TestGateway;
let rest: RestClient;
beforeAll(async () => {
  t = await testGateway(richExport());
  rest = restClient(t.gateway);
});
afterAll(() => t.close());

const list = async (url: string) => {
  const response = await rest.get(url);
  expect(response.status, url).toBe(200);
  expect(Object.keys(response.body), url).toEqual(["success", "items", "total"]);
  return response.body;
};
const EMPTY = { success: true, items: [], total: 0 };

describe("GET /api/v1/universities", () => {
  it("every school by id ascending, with exactly the seed's fields (nulls present)", async () => {
    const body = await list("/api/v1/universities");
    expect(body.total).toBe(5);
    expect(body.items.map((u: { id: number }) => u.id)).toEqual([1, 2, 3, 4, 5]);
    expect(body.items[0]).toEqual({
      id: 1,
      code: "NTU",
      name_zh: "國立臺灣大學",
      name_en: "National Taiwan University",
      short_name: "臺大",
      region: "Taipei",
    });
    expect(body.items[3]).toEqual({ id: 4, code: "NTNU", name_zh: "國立臺灣師範大學", name_en: null, short_name: null, region: "Taipei" });
    expect(body.items[4].region).toBeNull();
  });

  it("region: exact", async () => {
    const taipei = await list("/api/v1/universities?region=Taipei");
    expect([taipei.items.map((u: { id: number }) => u.id), taipei.total]).toEqual([[1, 4], 2]);
    expect((await list("/api/v1/universities?region=Seattle")).items.map((u: { code: string }) => u.code)).toEqual(["UW"]);
    for (const region of ["taipei", "Taipe", "Taipei ", "Nowhere"]) {
      expect(await list(`/api/v1/universities?region=${encodeURIComponent(region)}`), region).toEqual(EMPTY);
    }
  });
});

describe("GET /api/v1/papers", () => {
  const slugs = (body: { items: { slug: string }[] }) => body.items.map((p) => p.slug);

  it("year descending, then slug; authors joined with `, `; nulls present", async () => {
    const body = await list("/api/v1/papers");
    expect([slugs(body), body.total]).toEqual([["a-2025-x", "p-2025-a", "p-2025-c", "p-2024-b", "z-2023"], 5]);
    expect(body.items[1]).toEqual({
      slug: "p-2025-a",
      title: "Paper A",
      title_zh: "論文甲",
      authors: "A. Chen, B. Lin",
      conference: "edm-2025",
      year: 2025,
      doi: "10.1/a",
      category: "learning-analytics",
      platform_feature: "ai-tutor",
      award: null,
    });
    expect(body.items[0]).toMatchObject({ authors: "X. Xu", conference: null, category: null, title_zh: null });
  });

  it("category: exact", async () => {
    expect(slugs(await list("/api/v1/papers?category=hci"))).toEqual(["p-2025-c", "p-2024-b", "z-2023"]);
    expect(slugs(await list("/api/v1/papers?category=learning-analytics"))).toEqual(["p-2025-a"]);
    expect(await list("/api/v1/papers?category=HCI")).toEqual(EMPTY);
    expect(await list("/api/v1/papers?category=hc")).toEqual(EMPTY);
  });

  it("year: an integer", async () => {
    expect(slugs(await list("/api/v1/papers?year=2025"))).toEqual(["a-2025-x", "p-2025-a", "p-2025-c"]);
    expect(slugs(await list("/api/v1/papers?year=2024"))).toEqual(["p-2024-b"]);
    expect(slugs(await list("/api/v1/papers?year=02024"))).toEqual(["p-2024-b"]);
    expect(slugs(await list("/api/v1/papers?year=2025&category=hci"))).toEqual(["p-2025-c"]);
    expect(await list("/api/v1/papers?year=1999")).toEqual(EMPTY);
    expect(await list("/api/v1/papers?year=2024&category=learning-analytics")).toEqual(EMPTY);
  });
});

describe("GET /api/v1/conferences", () => {
  it("year descending then slug, each with relationship and paper_count (papers whose conference is its slug)", async () => {
    const body = await list("/api/v1/conferences");
    expect(body.total).toBe(4);
    expect(
      body.items.map((c: { slug: string; relationship: string; paper_count: number }) => [c.slug, c.relationship, c.paper_count]),
    ).toEqual([
      ["aied-2027", "participated", 0],
      ["chi-2027", "watching", 1],
      ["edm-2025", "participated", 2],
      ["icalt-2024", "watching", 0],
    ]);
    expect(body.items[2]).toEqual({
      slug: "edm-2025",
      name: "Educational Data Mining 2025",
      name_short: "EDM",
      year: 2025,
      dates: "2025-07-20 to 2025-07-23",
      location: "Palermo",
      website: "https://example.org/edm",
      organizer: "IEDMS",
      indexing: "Scopus",
      relationship: "participated",
      paper_count: 2,
    });
    expect(body.items[0]).toEqual({
      slug: "aied-2027",
      name: "AIED 2027",
      name_short: null,
      year: 2027,
      dates: null,
      location: null,
      website: null,
      organizer: null,
      indexing: null,
      relationship: "participated",
      paper_count: 0,
    });
  });

  it("takes no parameter: any is ignored", async () => {
    expect(await list("/api/v1/conferences?year=2025&limit=0&relationship=watching")).toEqual(await list("/api/v1/conferences"));
  });
});
