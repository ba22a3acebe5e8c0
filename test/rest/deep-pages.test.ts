/**
 * Pages of public courses at any depth (issue 54) read the import's places
 * (`course_place`, src/schema/course-places.ts) instead of an OFFSET, and
 * answer exactly what a plain `ORDER BY semester DESC, id OFFSET … LIMIT …`
 * over the courses answers: items, order and totals, with every filter of
 * operation 2, every page size, the first, middle, last and past-the-last
 * pages; over REST, GraphQL's `coursePage`, and the `courses` connection
 * walked whole forwards and backwards by cursor. The cases a place cannot
 * answer (a Chinese name two schools share, a cursor outside the filtered
 * list) still answer the same, through Prisma.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCourses } from "../../src/demo/courses.js";
import { DEMO_UNIVERSITIES } from "../../src/demo/index.js";
import { exportDocument } from "../../src/import/records.js";
import { createReadClient, type QueryEvent } from "../../src/db/client.js";
import { placeWindow } from "../../src/schema/course-places.js";
import type { CourseFilterArgs, SearchWindow } from "../../src/schema/title-search.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { plansOf } from "../support/plans.js";

/** A 16th school with NTU's Chinese name: `university=國立臺灣大學` matches two schools. */
const NAMESAKE = { ...DEMO_UNIVERSITIES[0]!, id: 16, code: "NTU2", name_en: "Namesake University" };
const SHARED_NAME = NAMESAKE.name_zh;

function catalogue(): unknown {
  const universities = [...DEMO_UNIVERSITIES.map((u) => ({ ...u })), NAMESAKE];
  // 6,000 courses over 16 schools and 7 semesters, a fifth private, ids with gaps.
  const courses = buildCourses(54, universities, 6_000);
  return exportDocument(new Date("2026-11-28T00:00:00Z"), { universities, courses });
}

interface Filter {
  university?: string;
  semester?: string;
}

interface Found {
  ids: number[];
  total: number;
}

let t: TestGateway;
beforeAll(async () => {
  t = await testGateway(catalogue());
}, 120_000);
afterAll(() => t?.close());

/** The whole filtered list, in the default order, by a plain scan of the courses. */
async function scan(f: Filter): Promise<number[]> {
  const rows = await t.db.query<{ id: number }>(
    `SELECT c.id FROM course c JOIN university u ON u.id = c.university_id
      WHERE c.is_public
        AND ($1::text IS NULL OR u.code_key = lower($1) OR u.name_zh = $1)
        AND ($2::text IS NULL OR c.semester = $2)
      ORDER BY c.semester DESC, c.id`,
    [f.university?.trim() ? f.university : null, f.semester?.trim() ? f.semester : null],
  );
  return rows.map((r) => r.id);
}

/** One page by a plain OFFSET, and the filter's total. */
async function offsetPage(f: Filter, page: number, size: number): Promise<Found> {
  const rows = await t.db.query<{ id: number; total: number }>(
    `SELECT c.id, count(*) OVER ()::int AS total FROM course c JOIN university u ON u.id = c.university_id
      WHERE c.is_public
        AND ($1::text IS NULL OR u.code_key = lower($1) OR u.name_zh = $1)
        AND ($2::text IS NULL OR c.semester = $2)
      ORDER BY c.semester DESC, c.id OFFSET $3 LIMIT $4`,
    [f.university?.trim() ? f.university : null, f.semester?.trim() ? f.semester : null, (page - 1) * size, size],
  );
  return { ids: rows.map((r) => r.id), total: rows[0]?.total ?? (await scan(f)).length };
}

async function rest(f: Filter, page: number, size: number): Promise<Found> {
  const params = new URLSearchParams({ page: String(page), page_size: String(size), ...f });
  const response = await t.gateway.fetch(`http://gateway.test/api/v1/courses?${params}`);
  const body = (await response.json()) as { items: { id: number }[]; total: number; page: number; page_size: number };
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect([body.page, body.page_size]).toEqual([page, size]);
  return { ids: body.items.map((c) => c.id), total: body.total };
}

/** A statement that reads the courses table with an OFFSET (Prisma's paging). */
const skipsCourses = (sql: string) => /"course"(?!_)/.test(sql) && /\bOFFSET\b/i.test(sql);

const FILTERS: Filter[] = [
  {},
  { university: "NTU" },
  { university: "nthu" },
  { university: "國立成功大學" },
  { semester: "113-1" },
  { semester: "111-1" },
  { university: "NCKU", semester: "112-2" },
  { university: "ntu2", semester: "114-1" },
  { university: "NOPE" },
  { semester: "099-9" },
  { university: " ", semester: "" },
];

/** The pages worth asking for a list of `total` at `size` a page: first, second, middle, last, past the last. */
function pagesOf(total: number, size: number): number[] {
  const last = Math.max(1, Math.ceil(total / size));
  return [...new Set([1, 2, Math.floor(last / 2) + 1, last - 1, last, last + 1].filter((p) => p >= 1))];
}

describe("deep pages of operation 2", () => {
  it("the catalogue is large enough to matter: thousands of public courses, every school and semester", async () => {
    const all = await scan({});
    expect(all.length).toBeGreaterThan(4_000);
    const [places] = await t.db.query<{ n: number; last: number }>("SELECT count(*)::int AS n, max(in_all) AS last FROM course_place");
    expect(places).toEqual({ n: all.length, last: all.length });
  });

  it("every filter, page size and depth answers what ORDER BY … OFFSET answers, read by place", async () => {
    let asked = 0;
    for (const f of FILTERS) {
      const total = (await scan(f)).length;
      for (const size of [1, 7, 20, 100]) {
        for (const page of pagesOf(total, size)) {
          t.statements.length = 0;
          expect(await rest(f, page, size), JSON.stringify({ f, page, size })).toEqual(await offsetPage(f, page, size));
          // Read by place: no statement skips courses by OFFSET.
          expect(t.statements.some((s) => s.includes("course_place"))).toBe(true);
          expect(t.statements.filter(skipsCourses)).toEqual([]);
          asked++;
        }
      }
    }
    expect(asked).toBeGreaterThan(150);
  }, 120_000);

  it("a Chinese name two schools share: both schools' courses, in one order, through Prisma", async () => {
    const f = { university: SHARED_NAME };
    const all = await scan(f);
    const [a, b] = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM course WHERE is_public AND university_id IN (1, 16) GROUP BY university_id ORDER BY university_id",
    );
    expect(all.length).toBe(a!.n + b!.n);
    for (const size of [7, 100]) {
      for (const page of pagesOf(all.length, size)) {
        t.statements.length = 0;
        expect(await rest(f, page, size)).toEqual(await offsetPage(f, page, size));
        if (page > 1) expect(t.statements.filter(skipsCourses)).toHaveLength(1);
      }
    }
  });

  it("GraphQL's coursePage at depth is REST's page", async () => {
    const f = { university: "NYCU", semester: "113-2" };
    const { total } = await offsetPage(f, 1, 3);
    const page = Math.ceil(total / 3);
    const body = await t.graphql(
      `query ($u: String, $s: String, $p: Int!) { coursePage(university: $u, semester: $s, page: $p, pageSize: 3) { total items { databaseId } } }`,
      { u: f.university, s: f.semester, p: page },
    );
    expect(body.errors).toBeUndefined();
    const got = body.data!.coursePage as { total: number; items: { databaseId: number }[] };
    expect({ ids: got.items.map((c) => c.databaseId), total: got.total }).toEqual(await offsetPage(f, page, 3));
  });
});

interface Edge {
  cursor: string;
  node: { databaseId: number };
}
interface Connection {
  totalCount: number;
  edges: Edge[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean };
}

/** A page of the courses connection, or with `ofSchool` of `University.courses` (the filter's university as its `ref`). */
async function connection(f: Filter, args: string, ofSchool = false): Promise<Connection> {
  const fields = "totalCount edges { cursor node { databaseId } } pageInfo { hasNextPage hasPreviousPage }";
  const body = ofSchool
    ? await t.graphql(`query ($u: String!, $s: String) { university(ref: $u) { courses(semester: $s, ${args}) { ${fields} } } }`, {
        u: f.university,
        s: f.semester ?? null,
      })
    : await t.graphql(`query ($u: String, $s: String) { courses(university: $u, semester: $s, ${args}) { ${fields} } }`, {
        u: f.university ?? null,
        s: f.semester ?? null,
      });
  expect(body.errors, args).toBeUndefined();
  return (ofSchool ? body.data!.university.courses : body.data!.courses) as Connection;
}

describe("the courses connection, by cursor", () => {
  it.each<[string, Filter, number, boolean]>([
    ["every public course", {}, 100, false],
    ["one school", { university: "NCKU" }, 37, false],
    ["one semester", { semester: "112-1" }, 50, false],
    ["one school's semester", { university: "NTU", semester: "114-1" }, 9, false],
    ["a name two schools share", { university: SHARED_NAME }, 64, false],
    ["University.courses", { university: "NCKU" }, 37, true],
    ["University.courses of a semester", { university: "NTU", semester: "114-1" }, 9, true],
  ])(
    "%s: walked whole forwards and backwards, the order of the scan",
    async (_name, f, size, ofSchool) => {
      const expected = await scan(f);
      const forward: number[] = [];
      let after: string | undefined;
      for (;;) {
        const c = await connection(f, `first: ${size}${after ? `, after: "${after}"` : ""}`, ofSchool);
        expect(c.totalCount).toBe(expected.length);
        forward.push(...c.edges.map((e) => e.node.databaseId));
        expect(c.pageInfo.hasPreviousPage).toBe(after !== undefined);
        if (!c.pageInfo.hasNextPage) break;
        after = c.edges.at(-1)!.cursor;
      }
      expect(forward).toEqual(expected);

      const backward: number[] = [];
      let before: string | undefined;
      for (;;) {
        const c = await connection(f, `last: ${size}${before ? `, before: "${before}"` : ""}`, ofSchool);
        backward.unshift(...c.edges.map((e) => e.node.databaseId));
        if (!c.pageInfo.hasPreviousPage) break;
        before = c.edges[0]!.cursor;
      }
      expect(backward).toEqual(expected);
    },
    60_000,
  );

  it("a cursor outside the filtered list pages as before: Prisma's paging from its place, which also skips the first row after it", async () => {
    const ntu = await scan({ university: "NTU" });
    const others = (await scan({})).filter((id) => !ntu.includes(id));
    const outsider = others[Math.floor(others.length / 2)]!;
    const all = await connection({}, "first: 1000");
    // Its cursor, from the unfiltered list (the first 1,000 courses are enough when it is among them; otherwise walk on).
    let cursor = all.edges.find((e) => e.node.databaseId === outsider)?.cursor;
    let after = all.edges.at(-1)!.cursor;
    while (!cursor) {
      const next = await connection({}, `first: 100, after: "${after}"`);
      cursor = next.edges.find((e) => e.node.databaseId === outsider)?.cursor;
      after = next.edges.at(-1)!.cursor;
    }
    const [place] = await t.db.query<{ semester: string }>("SELECT semester FROM course WHERE id = $1", [outsider]);
    const rows = await t.db.query<{ id: number }>(
      `SELECT id FROM course WHERE is_public AND university_id = 1 AND (semester < $1 OR (semester = $1 AND id > $2))
        ORDER BY semester DESC, id LIMIT 6`,
      [place!.semester, outsider],
    );
    const c = await connection({ university: "NTU" }, `first: 5, after: "${cursor}"`);
    expect(c.edges.map((e) => e.node.databaseId)).toEqual(rows.slice(1).map((r) => r.id));
  });

  it("the places decide the answer: a tampered place moves its course (the comparisons above would see it)", async () => {
    const f = { semester: "113-1" };
    const expected = await offsetPage(f, 3, 20);
    const a = expected.ids[0]!;
    const b = (await offsetPage(f, 5, 20)).ids[0]!;
    // Each takes the other's place in its semester's list: page 3 then holds b where a was, sorted into its order.
    const swap = `UPDATE course_place p SET in_semester = o.in_semester FROM course_place o
                   WHERE (p.id, o.id) IN ((${a}, ${b}), (${b}, ${a}))`;
    await t.db.exec(swap);
    try {
      expect((await rest(f, 3, 20)).ids).toEqual([...expected.ids.slice(1), b]);
    } finally {
      await t.db.exec(swap);
    }
    expect(await rest(f, 3, 20)).toEqual(expected);
  });
});

describe("every school's courses in one document (University.courses under universities)", () => {
  it.each([
    [1, undefined],
    [3, undefined],
    [20, undefined],
    [5, "113-1"],
    [2, "099-9"],
  ] as const)("first %i of semester %s: each school's first courses of the scan, read by place", async (first, semester) => {
    t.statements.length = 0;
    const body = await t.graphql(
      `query ($f: Int!, $s: String) { universities { nodes { code courses(first: $f, semester: $s) { totalCount nodes { databaseId } pageInfo { hasNextPage } } } } }`,
      { f: first, s: semester ?? null },
    );
    expect(body.errors).toBeUndefined();
    const schools = body.data!.universities.nodes as {
      code: string;
      courses: { totalCount: number; nodes: { databaseId: number }[]; pageInfo: { hasNextPage: boolean } };
    }[];
    expect(schools).toHaveLength(16);
    for (const school of schools) {
      // A school's own list: NTU2 shares NTU's Chinese name, not its code.
      const all = await scan({ university: school.code, ...(semester && { semester }) });
      expect(
        school.courses.nodes.map((c) => c.databaseId),
        school.code,
      ).toEqual(all.slice(0, first));
      expect([school.courses.totalCount, school.courses.pageInfo.hasNextPage]).toEqual([all.length, all.length > first]);
    }
    const courses = t.statements.filter((sql) => /"course"(?!_)/.test(sql));
    expect(courses).toHaveLength(1);
    expect(courses[0]).toContain(semester ? '"in_school_semester"' : '"in_school"');
  });
});

describe("every school's courses after a cursor (University.courses under universities)", () => {
  it.each([
    ["NCKU", undefined, 3, 5],
    ["NTU", "113-1", 1, 4],
    ["NTU2", undefined, 0, 20],
  ] as const)(
    "after a course of %s (semester %s) at %i, the next %i: that school's next courses, none for the others, read by place",
    async (code, semester, at, first) => {
      const own = await scan({ university: code, ...(semester && { semester }) });
      const pageOf = async (after: string | null) => {
        t.statements.length = 0;
        const body = await t.graphql(
          `query ($f: Int!, $s: String, $a: String) { universities { nodes { code courses(first: $f, semester: $s, after: $a) { edges { cursor node { databaseId } } pageInfo { hasNextPage } } } } }`,
          { f: first, s: semester ?? null, a: after },
        );
        expect(body.errors).toBeUndefined();
        return body.data!.universities.nodes as { code: string; courses: { edges: Edge[]; pageInfo: { hasNextPage: boolean } } }[];
      };
      // The cursor of the school's course at `at`, from a first page long enough to hold it.
      const school = (await pageOf(null)).find((s) => s.code === code)!;
      const cursor = school.courses.edges[at]!.cursor;
      expect(school.courses.edges[at]!.node.databaseId).toBe(own[at]);
      const after = await pageOf(cursor);
      for (const s of after) {
        const ids = s.courses.edges.map((e) => e.node.databaseId);
        if (s.code === code) {
          expect(ids, code).toEqual(own.slice(at + 1, at + 1 + first));
          expect(s.courses.pageInfo.hasNextPage).toBe(own.length > at + 1 + first);
        } else expect(ids, s.code).toEqual([]);
      }
      // The cursor's place, then the page's courses: no statement reads the schools' courses past it whole.
      const courses = t.statements.filter((sql) => /"course"(?!_)/.test(sql));
      expect(courses).toHaveLength(1);
      expect(courses[0]).toContain(semester ? '"in_school_semester"' : '"in_school"');
    },
  );
});

describe("the statement of a page by place", () => {
  it.each<[string, CourseFilterArgs, SearchWindow]>([
    ["after a cursor", {}, { cursor: 13_067, skip: 1, take: 21 }],
    ["a school's, after a cursor", { university: "NTU" }, { cursor: 13_067, skip: 1, take: 21 }],
    ["a school's semester, backwards", { university: "NTU", semester: "113-1" }, { skip: 0, take: -21 }],
  ])("%s: PostgreSQL plans it once, and keeps its generic plan for every later page of the kind", async (_name, args, window) => {
    const events: QueryEvent[] = [];
    const prisma = createReadClient(t.db, { onQuery: (e) => events.push(e) });
    try {
      await placeWindow(prisma, args, window);
    } finally {
      await prisma.$disconnect();
    }
    expect(events).toHaveLength(1);
    expect(await plansOf(t.db, events[0]!)).toEqual({ generic: 3, custom: 5 });
  });
});
