/**
 * Course totals and statistics are read from what the import keeps
 * (src/import/courses.ts: course_count and course_stat), not counted per
 * request. They must answer exactly what counting the courses answers: for
 * every school (by code in any case and by Chinese name), every semester and
 * every grouping, on the demo data, and again after an import that changes
 * the courses.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReadClient, type ReadClient } from "../../src/db/client.js";
import { demoExportChunks } from "../../src/demo/index.js";
import { courseFilter } from "../../src/schema/course.js";
import { liveStats } from "../../src/schema/course-stats.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { testGateway, type TestGateway } from "../support/gateway.js";
import { richExport } from "../rest/fixture.js";

const GROUPINGS = ["semester", "year", "school"] as const;

/** Title searches: words in either language and any case, LIKE's own characters, short needles, nothing. */
const NEEDLES = ["learning", "LEARNING", "學習", "程式", "a", "機", "100%", "_", "english_only", "\\", "Intro to", "no such title"];

const SEARCH = `query ($university: String, $semester: String, $q: String, $page: Int!, $pageSize: Int!) {
  coursePage(university: $university, semester: $semester, q: $q, page: $page, pageSize: $pageSize) { total items { databaseId } }
}`;

const STATS = `query ($university: String, $groupBy: CourseStatsGrouping!) {
  courseStats(university: $university, groupBy: $groupBy) { totalCount nodes { key courseCount instructorCount } }
}`;
const TOTALS = `query ($university: String, $semester: String) {
  coursePage(university: $university, semester: $semester, pageSize: 1) { total }
  courses(university: $university, semester: $semester, first: 1) { totalCount }
}`;

/** Every school reference worth asking for: none, each code in two cases, each Chinese name, and one that matches nothing. */
async function references(prisma: ReadClient): Promise<(string | undefined)[]> {
  const schools = await prisma.university.findMany({ select: { code: true, nameZh: true }, orderBy: { id: "asc" } });
  return [undefined, "no-such-school", ...schools.flatMap((s) => [s.code, s.code.toLowerCase(), s.nameZh])];
}

/** Checks every answer against the courses counted live; returns how many were compared. */
async function expectExact(t: TestGateway, prisma: ReadClient): Promise<number> {
  let compared = 0;
  const semesters = (await prisma.course.findMany({ select: { semester: true }, distinct: ["semester"] })).map((c) => c.semester);
  for (const university of await references(prisma)) {
    for (const groupBy of GROUPINGS) {
      const body = await t.graphql(STATS, { university, groupBy });
      const live = await liveStats(prisma, university, groupBy);
      expect({ university, groupBy, rows: body.data?.courseStats.nodes }).toEqual({ university, groupBy, rows: live });
      expect(body.data?.courseStats.totalCount).toBe(live.length);
      compared++;
    }
    for (const semester of [undefined, "000-1", ...semesters]) {
      const body = await t.graphql(TOTALS, { university, semester });
      const live = await prisma.course.count({ where: courseFilter({ university, semester }) });
      expect({ university, semester, total: body.data?.coursePage.total }).toEqual({ university, semester, total: live });
      expect(body.data?.courses.totalCount).toBe(live);
      compared++;
    }
  }
  return compared;
}

/** Checks title searches (pages and totals) against the live filter; returns how many matched something. */
async function expectSearchExact(t: TestGateway, prisma: ReadClient): Promise<number> {
  const schools = await prisma.university.findMany({ select: { code: true, nameZh: true }, orderBy: { id: "asc" }, take: 2 });
  const [semester] = (await prisma.course.findMany({ select: { semester: true }, distinct: ["semester"], take: 1 })).map((c) => c.semester);
  let found = 0;
  for (const q of NEEDLES) {
    for (const university of [undefined, schools[0]!.code.toLowerCase(), schools[1]!.nameZh, "no-such-school"]) {
      for (const sem of [undefined, semester]) {
        for (const [page, pageSize] of [
          [1, 20],
          [2, 3],
          [1_000, 100],
        ] as const) {
          const args = { university, semester: sem, q };
          const body = await t.graphql(SEARCH, { ...args, page, pageSize });
          const where = courseFilter(args);
          const live = {
            total: await prisma.course.count({ where }),
            ids: (
              await prisma.course.findMany({
                where,
                select: { id: true },
                orderBy: [{ semester: "desc" }, { id: "asc" }],
                skip: (page - 1) * pageSize,
                take: pageSize,
              })
            ).map((c) => c.id),
          };
          const got = {
            total: body.data?.coursePage.total,
            ids: body.data?.coursePage.items.map((c: { databaseId: number }) => c.databaseId),
          };
          expect({ ...args, page, pageSize, ...got }).toEqual({ ...args, page, pageSize, ...live });
          if (live.total > 0) found++;
        }
      }
    }
  }
  return found;
}

describe("course totals and statistics kept by the import", () => {
  let t: TestGateway;
  let prisma: ReadClient;
  beforeAll(async () => {
    t = await testGateway(demoObject(), { db: await freshDatabase() });
    prisma = createReadClient(t.db);
  }, 120_000);
  afterAll(async () => {
    await prisma?.$disconnect();
    await t?.close();
  });

  it("answer exactly what counting the demo data's public courses answers", async () => {
    const counts = await prisma.courseCount.count();
    expect(counts).toBeGreaterThan(10);
    expect(await expectExact(t, prisma)).toBeGreaterThan(100);
  }, 120_000);

  it("title searches page and count exactly as filtering the courses does", async () => {
    expect(await expectSearchExact(t, prisma)).toBeGreaterThan(20);
  }, 120_000);
});

describe("course totals and statistics after imports that change the courses", () => {
  let t: TestGateway;
  let prisma: ReadClient;
  beforeAll(async () => {
    t = await testGateway(richExport(), { db: await freshDatabase() });
    prisma = createReadClient(t.db);
  }, 120_000);
  afterAll(async () => {
    await prisma?.$disconnect();
    await t?.close();
  });

  it("follow the next import: courses made private, instructors removed", async () => {
    await expectExact(t, prisma);
    const before = await t.graphql(STATS, { groupBy: "school" });
    const rich = richExport();
    const courses = rich.courses.map((c, i) => ({ ...c, is_public: i % 3 !== 0, instructor: i % 4 === 0 ? null : c.instructor }));
    await importObject(t.db, { ...rich, courses });
    const after = await t.graphql(STATS, { groupBy: "school" });
    expect(after.data?.courseStats.nodes).not.toEqual(before.data?.courseStats.nodes);
    await expectExact(t, prisma);
    expect(await expectSearchExact(t, prisma)).toBeGreaterThan(5);
  }, 120_000);

  it("a reference matching two schools (one's code is the other's Chinese name) counts both, as the courses do", async () => {
    const both = richExport();
    const [first, second] = both.universities;
    both.universities = both.universities.map((u) => (u === second ? { ...u, name_zh: first!.code } : u));
    await importObject(t.db, both);
    const ref = first!.code;
    const schools = await prisma.university.count({ where: { OR: [{ codeKey: ref.toLowerCase() }, { nameZh: ref }] } });
    expect(schools).toBe(2);
    for (const groupBy of GROUPINGS) {
      const body = await t.graphql(STATS, { university: ref, groupBy });
      expect(body.data?.courseStats.nodes).toEqual(await liveStats(prisma, ref, groupBy));
    }
    await expectExact(t, prisma);
  }, 120_000);
});

/** The demo export as one object: its schools and courses, and one day of observations (which nothing here reads), not 35. */
function demoObject(): unknown {
  return JSON.parse([...demoExportChunks({ now: new Date("2026-11-26T00:00:00Z"), days: 1 })].join(""));
}
