/**
 * Operations 2, 3 and 4 (docs/contract.md §3): public courses, one course, course
 * statistics, over the rich fixture (./fixture.ts). Every response is checked
 * against the OpenAPI document by ./support.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { FILLER_IDS, PUBLIC_COURSE_ORDER, richExport } from "./fixture.js";
import { restClient, type RestClient } from "./support.js";

let t: TestGateway;
let rest: RestClient;
beforeAll(async () => {
  t = await testGateway(richExport());
  rest = restClient(t.gateway);
});
afterAll(() => t.close());

const ids = (body: { items: { id: number }[] }) => body.items.map((c) => c.id);
const page = async (query: string) => {
  const response = await rest.get(`/api/v1/courses${query}`);
  expect(response.status, query).toBe(200);
  return response.body;
};

describe("GET /api/v1/courses", () => {
  it("defaults to page 1 of 20, semester descending then id ascending, only public courses", async () => {
    const body = await page("");
    expect(body).toMatchObject({ success: true, page: 1, page_size: 20, total: 28 });
    expect(ids(body)).toEqual(PUBLIC_COURSE_ORDER.slice(0, 20));
    expect(Object.keys(body)).toEqual(["success", "items", "page", "page_size", "total"]);
  });

  it("the second page, a page past the end (empty, true total), one per page, all in one page", async () => {
    expect(ids(await page("?page=2"))).toEqual(FILLER_IDS.slice(12));
    expect(await page("?page=3")).toEqual({ success: true, items: [], page: 3, page_size: 20, total: 28 });
    expect(await page("?page=2147483647&page_size=100")).toEqual({ success: true, items: [], page: 2147483647, page_size: 100, total: 28 });
    const second = await page("?page=2&page_size=1");
    expect([ids(second), second.page, second.page_size, second.total]).toEqual([[1], 2, 1, 28]);
    expect(ids(await page("?page_size=100"))).toEqual(PUBLIC_COURSE_ORDER);
    expect(ids(await page("?page=7&page_size=4"))).toEqual(FILLER_IDS.slice(16, 20));
  });

  it("an item carries exactly the seed's course fields (no details, no join code)", async () => {
    const body = await page("?semester=113-2");
    expect(body.items).toEqual([
      {
        id: 4,
        class_name: "班級4",
        course_number: "CSIE1004",
        course_class: "01",
        course_name_chinese: "公開課程4",
        course_name_english: "Public Course 4",
        instructor: "老師1",
        instructor_english: "Teacher 1",
        department: "資訊工程學系",
        department_english: "Computer Science",
        school: "國立清華大學",
        semester: "113-2",
        start_date: "2024-09-02",
        end_date: "2025-01-10",
      },
    ]);
    expect(body.total).toBe(1);
  });

  it("a field with no value is null, not left out", async () => {
    const [course] = (await page("?university=NTNU")).items;
    expect(course).toMatchObject({ id: 9, instructor: null, instructor_english: null, start_date: null, end_date: null });
  });

  it("university: the school code in any case, or the exact Chinese name", async () => {
    for (const university of ["NTU", "ntu", "Ntu", "國立臺灣大學"]) {
      const body = await page(`?university=${encodeURIComponent(university)}`);
      expect([ids(body), body.total], university).toEqual([[1, 7, 8, 3], 4]);
    }
    expect(ids(await page("?university=ntnu"))).toEqual([9]);
    expect(ids(await page(`?university=${encodeURIComponent("國立臺灣師範大學")}`))).toEqual([9]);
    // A part of a name, a name in another case or an English name is no match.
    for (const university of ["國立臺灣", "National Taiwan University", "NT", "ntu "]) {
      expect(await page(`?university=${encodeURIComponent(university)}`), university).toEqual({
        success: true,
        items: [],
        page: 1,
        page_size: 20,
        total: 0,
      });
    }
  });

  it("semester: exact", async () => {
    expect(ids(await page("?semester=113-1"))).toEqual([1, 7, 8, 9]);
    expect((await page("?semester=113")).total).toBe(0);
    expect((await page("?semester=099-1")).total).toBe(0);
    expect(ids(await page("?university=ntu&semester=113-1"))).toEqual([1, 7, 8]);
    expect(ids(await page("?university=ntu&semester=113-1&page_size=2&page=2"))).toEqual([8]);
  });

  it("q: case-insensitive substring of the Chinese or the English title", async () => {
    const q = async (value: string) => ids(await page(`?q=${encodeURIComponent(value)}`));
    expect(await q("機器學習")).toEqual([7, 8]);
    expect(await q("machine learning")).toEqual([7]);
    expect(await q("LEARNING")).toEqual([7, 8]);
    expect(await q("data SCIENCE")).toEqual([9]);
    expect(await q("Public Course 2")).toEqual(FILLER_IDS.slice(0, 10));
    expect(await q("公開課程")).toEqual([4, 1, 3, 6, ...FILLER_IDS.slice(0, 16)]);
    expect(await q("no such title")).toEqual([]);
  });

  it("q: LIKE wildcards are literal (`%` and `_` do not match everything)", async () => {
    for (const value of ["%", "_", "100%", "English_Only"]) {
      const body = await page(`?q=${encodeURIComponent(value)}`);
      expect([ids(body), body.total], value).toEqual([[10], 1]);
    }
    expect((await page(`?q=${encodeURIComponent("%%")}`)).total).toBe(0);
    expect((await page(`?q=${encodeURIComponent("\\")}`)).total).toBe(0);
  });

  it("a filter that matches nothing is 200 with no items and total 0", async () => {
    expect(await page("?university=nope&q=x")).toEqual({ success: true, items: [], page: 1, page_size: 20, total: 0 });
  });

  it("private courses are counted nowhere (title search included)", async () => {
    expect((await page("?q=CANARY")).total).toBe(0);
    expect((await page("?q=PRIVATE")).total).toBe(0);
    expect((await page("?page_size=100")).items.some((c: { id: number }) => [2, 5, 11].includes(c.id))).toBe(false);
  });
});

describe("GET /api/v1/courses/{course_id}", () => {
  it("a public course with its details", async () => {
    const response = await rest.get("/api/v1/courses/1");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        id: 1,
        class_name: "班級1",
        course_number: "CSIE1001",
        course_class: "01",
        course_name_chinese: "公開課程1",
        course_name_english: "Public Course 1",
        instructor: "老師1",
        instructor_english: "Teacher 1",
        department: "資訊工程學系",
        department_english: "Computer Science",
        school: "國立臺灣大學",
        semester: "113-1",
        start_date: "2024-09-02",
        end_date: "2025-01-10",
        teaching_goal: "目標",
        teaching_goal_english: "Goals",
        teaching_content: "內容",
        teaching_content_english: "Content",
        class_memo: null,
      },
    });
  });

  it("null fields are present; the school is its university's Chinese name", async () => {
    const { body } = await rest.get("/api/v1/courses/9");
    expect(body.data).toMatchObject({
      id: 9,
      school: "國立臺灣師範大學",
      instructor: null,
      start_date: null,
      class_memo: "Bring a laptop",
    });
    expect(Object.keys(body.data)).toHaveLength(19);
  });

  it("a private course is 404 exactly as an unknown id", async () => {
    for (const id of [2, 5, 11]) {
      const response = await rest.get(`/api/v1/courses/${id}`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ success: false, error: `course_id ${id} not found` });
    }
    expect((await rest.get("/api/v1/courses/99999")).body).toEqual({ success: false, error: "course_id 99999 not found" });
  });

  it("an id that is not an integer is simply not found", async () => {
    for (const raw of ["abc", "1.5", "-1", "1e2", "0x1", "99999999999", "2147483648", "%20"]) {
      const response = await rest.get(`/api/v1/courses/${raw}`);
      expect(response.status, raw).toBe(404);
      expect(response.body.success).toBe(false);
    }
    expect((await rest.get("/api/v1/courses/abc")).body).toEqual({ success: false, error: "course_id abc not found" });
    expect((await rest.get("/api/v1/courses/0")).body).toEqual({ success: false, error: "course_id 0 not found" });
  });
});

describe("GET /api/v1/course_stats", () => {
  const stats = async (query: string) => {
    const response = await rest.get(`/api/v1/course_stats${query}`);
    expect(response.status, query).toBe(200);
    return response.body;
  };
  const row = (key: string, course_count: number, instructor_count: number) => ({ key, course_count, instructor_count });

  it("by semester (the default): key ascending; distinct instructors; public courses only", async () => {
    const expected = [
      row("110-1", 20, 1),
      row("111-2", 1, 1),
      row("112-1", 1, 1),
      row("112-2", 1, 1),
      row("113-1", 4, 2),
      row("113-2", 1, 1),
    ];
    expect(await stats("")).toEqual({ success: true, items: expected, total: 6 });
    expect((await stats("?group_by=semester")).items).toEqual(expected);
  });

  it("by year: the part of the semester before `-`", async () => {
    expect(await stats("?group_by=year")).toEqual({
      success: true,
      items: [row("110", 20, 1), row("111", 1, 1), row("112", 2, 1), row("113", 5, 2)],
      total: 4,
    });
  });

  it("by school: the school code; a school without public courses has no row", async () => {
    expect(await stats("?group_by=school")).toEqual({
      success: true,
      items: [row("NTHU", 2, 1), row("NTNU", 1, 0), row("NTU", 4, 3), row("UW", 21, 2)],
      total: 4,
    });
  });

  it("university filters by code (any case) or exact Chinese name, for each grouping", async () => {
    expect((await stats("?university=ntu")).items).toEqual([row("112-2", 1, 1), row("113-1", 3, 2)]);
    expect((await stats(`?university=${encodeURIComponent("國立臺灣大學")}&group_by=year`)).items).toEqual([
      row("112", 1, 1),
      row("113", 3, 2),
    ]);
    expect((await stats("?university=NTU&group_by=school")).items).toEqual([row("NTU", 4, 3)]);
    expect((await stats("?university=nthu&group_by=year")).items).toEqual([row("111", 1, 1), row("113", 1, 1)]);
  });

  it("a university that matches nothing is 200 with no rows", async () => {
    for (const groupBy of ["semester", "year", "school"]) {
      expect(await stats(`?university=nope&group_by=${groupBy}`)).toEqual({ success: true, items: [], total: 0 });
    }
    expect(await stats("?university=NCKU")).toEqual({ success: true, items: [], total: 0 });
  });
});
