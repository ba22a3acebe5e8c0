/**
 * Operations 10 and 11 (docs/contract.md §3–§4): public, safety-checked hub Packs,
 * over the rich fixture (./fixture.ts). Every response is checked against
 * the OpenAPI document by ./support.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReadClient, type QueryEvent } from "../../src/db/client.js";
import { DEMO_UNIVERSITIES } from "../../src/demo/index.js";
import { buildHubPacks } from "../../src/demo/packs.js";
import { exportDocument } from "../../src/import/records.js";
import { freshDatabase } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { plansOf } from "../support/plans.js";
import { richExport } from "./fixture.js";
import { restClient, type RestClient } from "./support.js";

let t: TestGateway;
let rest: RestClient;
beforeAll(async () => {
  t = await testGateway(richExport());
  rest = restClient(t.gateway);
});
afterAll(() => t.close());

const PACK_FIELDS = [
  "id",
  "name",
  "summary",
  "asset_type",
  "latest_version",
  "subject",
  "education_level",
  "bloom_levels",
  "difficulty",
  "star_count",
  "install_count",
  "owner_name",
];
const packs = async (query: string) => {
  const response = await rest.get(`/api/v1/hub/packs${query}`);
  expect(response.status, query).toBe(200);
  expect(Object.keys(response.body)).toEqual(["success", "items", "total"]);
  return response.body as { success: true; items: Record<string, unknown>[]; total: number };
};
const ids = async (query: string) => {
  const body = await packs(query);
  return [body.items.map((p) => p.id), body.total];
};

describe("GET /api/v1/hub/packs", () => {
  it("only public, safety-checked Packs; items carry every Pack field but readme_md (and no versions)", async () => {
    const body = await packs("");
    expect(body.total).toBe(6);
    for (const item of body.items) expect(Object.keys(item)).toEqual(PACK_FIELDS);
    expect(body.items.find((p) => p.id === "pk_public")).toEqual({
      id: "pk_public",
      name: "Fractions Quiz",
      summary: "Summary of Fractions Quiz",
      asset_type: "quiz_bank",
      latest_version: "1.10.0",
      subject: "Mathematics",
      education_level: "university",
      bloom_levels: ["remember", "apply"],
      difficulty: "intermediate",
      star_count: 3,
      install_count: 7,
      owner_name: "林老師",
    });
    expect(body.items.find((p) => p.id === "pk_a")).toMatchObject({
      subject: null,
      education_level: null,
      bloom_levels: [],
      owner_name: null,
    });
  });

  it("sort=recent (default): the latest passed version's published_at descending, none last, ties by id", async () => {
    const expected = [["pk_b", "pk_a", "pk_public", "pk_e", "pk_d", "pk_c"], 6];
    expect(await ids("")).toEqual(expected);
    expect(await ids("?sort=recent")).toEqual(expected);
  });

  it("sort=stars: star_count descending, ties by id", async () => {
    expect(await ids("?sort=stars")).toEqual([["pk_e", "pk_a", "pk_b", "pk_d", "pk_public", "pk_c"], 6]);
  });

  it("sort=installs: install_count descending, ties by id", async () => {
    expect(await ids("?sort=installs")).toEqual([["pk_c", "pk_b", "pk_e", "pk_public", "pk_a", "pk_d"], 6]);
  });

  it("latest_version is the highest passed version in semver order, not the newest nor a rejected or pending one", async () => {
    const body = await packs("?limit=100");
    const latest = Object.fromEntries(body.items.map((p) => [p.id, p.latest_version]));
    expect(latest).toEqual({ pk_b: "1.1.0", pk_a: "3.0.0", pk_public: "1.10.0", pk_e: "1.10.0", pk_d: "0.1.0", pk_c: null });
  });

  it("limit cuts the list; total counts every match", async () => {
    expect(await ids("?limit=2")).toEqual([["pk_b", "pk_a"], 6]);
    expect(await ids("?limit=1&sort=installs")).toEqual([["pk_c"], 6]);
    expect(await ids("?limit=100&sort=stars")).toEqual([["pk_e", "pk_a", "pk_b", "pk_d", "pk_public", "pk_c"], 6]);
    expect(await ids("?limit=1&asset_type=quiz_bank&sort=stars")).toEqual([["pk_e"], 2]);
  });

  it("asset_type: each value, exact", async () => {
    expect(await ids("?asset_type=quiz_bank")).toEqual([["pk_public", "pk_e"], 2]);
    expect(await ids("?asset_type=skill")).toEqual([["pk_b"], 1]);
    expect(await ids("?asset_type=ai_task")).toEqual([["pk_a"], 1]);
    expect(await ids("?asset_type=channel_template")).toEqual([["pk_c"], 1]);
    expect(await ids("?asset_type=survey_bank")).toEqual([["pk_d"], 1]);
  });

  it("education_level: each value, exact", async () => {
    expect(await ids("?education_level=university")).toEqual([["pk_public"], 1]);
    expect(await ids("?education_level=high_school")).toEqual([["pk_b"], 1]);
    expect(await ids("?education_level=junior_high")).toEqual([["pk_e"], 1]);
    expect(await ids("?education_level=elementary")).toEqual([["pk_d"], 1]);
    expect(await ids("?education_level=general")).toEqual([["pk_c"], 1]);
    expect(await ids("?education_level=general&asset_type=skill")).toEqual([[], 0]);
  });

  it("q: case-insensitive substring of name, summary or subject; wildcards literal", async () => {
    expect(await ids("?q=fraction")).toEqual([["pk_public"], 1]);
    expect(await ids("?q=FEEDBACK")).toEqual([["pk_a"], 1]);
    expect(await ids("?q=physic")).toEqual([["pk_b"], 1]);
    expect(await ids("?q=MATHEMATICS")).toEqual([["pk_public"], 1]);
    expect(await ids("?q=summary")).toEqual([["pk_public"], 1]);
    expect(await ids("?q=%25")).toEqual([["pk_d"], 1]);
    expect(await ids("?q=_")).toEqual([[], 0]);
    expect(await ids("?q=pk_")).toEqual([[], 0]);
    expect(await ids("?q=s&sort=stars&asset_type=quiz_bank")).toEqual([["pk_e", "pk_public"], 2]);
  });

  it("hidden Packs match no search", async () => {
    expect(await ids("?q=CANARY")).toEqual([[], 0]);
    expect(await ids("?q=rejected")).toEqual([[], 0]);
  });
});

describe("GET /api/v1/hub/packs/{pack_id}", () => {
  it("a public Pack with readme_md and its passed versions, newest first (no content body)", async () => {
    const response = await rest.get("/api/v1/hub/packs/pk_public");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        id: "pk_public",
        name: "Fractions Quiz",
        summary: "Summary of Fractions Quiz",
        asset_type: "quiz_bank",
        latest_version: "1.10.0",
        subject: "Mathematics",
        education_level: "university",
        bloom_levels: ["remember", "apply"],
        difficulty: "intermediate",
        star_count: 3,
        install_count: 7,
        owner_name: "林老師",
        readme_md: "# Fractions Quiz",
        versions: [
          { version: "1.10.0", published_at: "2026-02-01T00:00:00Z", changelog: "Release 1.10.0" },
          { version: "1.9.0", published_at: "2026-01-01T00:00:00Z", changelog: "Release 1.9.0" },
        ],
      },
    });
    expect(Object.keys(response.body.data)).toEqual([...PACK_FIELDS, "readme_md", "versions"]);
  });

  it("versions: passed only (no rejected, no pending), newest published first", async () => {
    const { body } = await rest.get("/api/v1/hub/packs/pk_e");
    expect(body.data.latest_version).toBe("1.10.0");
    expect(body.data.versions).toEqual([
      { version: "1.9.0", published_at: "2026-04-01T00:00:00Z", changelog: "Release 1.9.0" },
      { version: "1.10.0", published_at: "2026-01-15T00:00:00Z", changelog: "Release 1.10.0" },
    ]);
  });

  it("a Pack without a passed version: latest_version null, versions empty; readme_md null when absent", async () => {
    const { body } = await rest.get("/api/v1/hub/packs/pk_c");
    expect(body.data).toMatchObject({ id: "pk_c", latest_version: null, versions: [], readme_md: null, owner_name: "陳老師" });
    expect((await rest.get("/api/v1/hub/packs/pk_b")).body.data.readme_md).toBe("# Motion Lab\n\nExperiments.");
  });

  it("every detail matches its list item plus readme_md and versions", async () => {
    for (const item of (await packs("?limit=100")).items) {
      const { body } = await rest.get(`/api/v1/hub/packs/${item.id as string}`);
      const { readme_md: _readme, versions: _versions, ...rest_ } = body.data;
      expect(rest_).toEqual(item);
    }
  });

  it("private, link-only, pending and rejected Packs are 404 exactly as an unknown id", async () => {
    for (const id of ["pk_private", "pk_link", "pk_pending", "pk_rejected", "pk_nope", "PK_PUBLIC"]) {
      const response = await rest.get(`/api/v1/hub/packs/${id}`);
      expect(response.status, id).toBe(404);
      expect(response.body).toEqual({ success: false, error: `pack_id ${id} not found` });
    }
  });

  it("an encoded id is decoded once", async () => {
    expect((await rest.get("/api/v1/hub/packs/pk%5Fpublic")).body.data.id).toBe("pk_public");
    expect((await rest.get("/api/v1/hub/packs/pk%2Fpublic")).body).toEqual({ success: false, error: "pack_id pk/public not found" });
  });
});

describe("the statement of a Pack search, over 3,000 Packs", () => {
  let many: TestGateway;
  const events: QueryEvent[] = [];
  beforeAll(async () => {
    const now = Date.UTC(2026, 10, 20);
    const generated = new Map<string, ReturnType<typeof buildHubPacks>[number]>();
    for (let round = 0; generated.size < 3_000; round++) {
      for (const pack of buildHubPacks(20240901 + round, now)) if (generated.size < 3_000) generated.set(pack.id, pack);
    }
    const db = await freshDatabase();
    many = await testGateway(
      exportDocument(new Date(now), { universities: DEMO_UNIVERSITIES.map((u) => ({ ...u })), hub_packs: [...generated.values()] }),
      { db, gateway: { prisma: createReadClient(db, { onQuery: (e) => events.push(e) }) } },
    );
  }, 120_000);
  afterAll(() => many?.close());

  it("PostgreSQL plans it once, and keeps its generic plan for every later term", async () => {
    const response = await restClient(many.gateway).get("/api/v1/hub/packs?q=quiz");
    expect(response.status).toBe(200);
    const search = events.filter((e) => e.query.includes("ILIKE"));
    expect(search).toHaveLength(1);
    // With each column's full statistics, every run was planned again for its term: { generic: 0, custom: 8 }.
    expect(await plansOf(many.db, search[0]!)).toEqual({ generic: 3, custom: 5 });
  });
});
