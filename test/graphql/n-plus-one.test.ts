import { afterEach, describe, expect, it } from "vitest";
import { canaryExport } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

/** The canary export grown to `schools` schools with 6 courses each and as many conferences. */
function scaled(schools: number) {
  const base = canaryExport();
  const template = base.courses[0]!;
  const universities = Array.from({ length: schools }, (_, i) => ({
    ...base.universities[0]!,
    id: i + 1,
    code: `S${i + 1}`,
    name_zh: `學校${i + 1}`,
  }));
  const courses = universities.flatMap((u, i) =>
    Array.from({ length: 6 }, (_, j) => ({
      ...template,
      id: i * 6 + j + 1,
      university_id: u.id,
      instructor: `T${j}`,
      is_public: j === 5 ? 0 : 1,
    })),
  );
  const conferences = universities.map((u) => ({ ...base.conferences[0]!, slug: `conf-${u.id}` }));
  const papers = universities.map((u) => ({ ...base.papers[0]!, slug: `paper-${u.id}`, conference: `conf-${u.id}` }));
  return { ...base, universities, courses, conferences, papers, stations: [], observations: [] };
}

const NESTED = `{
  universities { totalCount nodes { code courses(first: 10) { totalCount nodes { databaseId school university { code } } } } }
  courses(first: 100) { totalCount nodes { school university { nameZh } } }
  coursePage(pageSize: 100) { total items { school } }
  conferences { totalCount nodes { slug paperCount } }
  hubPacks { nodes { versions { version } } }
}`;

// Under both executors: graphql-jit's response paths once hid a relation's plan from the relation nested in it (src/schema/shared-paths.ts).
describe.each([
  ["compiled", true],
  ["graphql-js", false],
])("no N+1 behind nested queries (%s)", (_name, compile) => {
  let open: TestGateway[] = [];
  afterEach(async () => {
    await Promise.all(open.map((t) => t.close()));
    open = [];
  });

  async function statementsFor(schools: number) {
    const t = await testGateway(scaled(schools), { gateway: { compile } });
    open.push(t);
    t.statements.length = 0;
    const body = await t.graphql(NESTED);
    expect(body.errors).toBeUndefined();
    expect(body.data?.universities.totalCount).toBe(schools);
    expect(body.data?.courses.totalCount).toBe(schools * 5);
    expect(body.data?.conferences.nodes.every((c: { paperCount: number }) => c.paperCount === 1)).toBe(true);
    return t.statements.length;
  }

  it("sends as many SQL statements for 30 schools as for 3", async () => {
    const few = await statementsFor(3);
    const many = await statementsFor(30);
    expect(many).toBe(few);
    // And that number is small: one or two per root field and relation level.
    expect(few).toBeLessThanOrEqual(16);
  });

  it("reads each school's first courses, not all of them, for a nested page", async () => {
    const t = await testGateway(scaled(10), { gateway: { compile } });
    open.push(t);
    t.statements.length = 0;
    const body = await t.graphql(`{ universities { nodes { courses(first: 2) { nodes { databaseId } } } } }`);
    expect(body.errors).toBeUndefined();
    expect(body.data?.universities.nodes.every((u: { courses: { nodes: unknown[] } }) => u.courses.nodes.length === 2)).toBe(true);
    // One statement, which reads each school's first courses by their places in the school's list
    // (src/schema/course-places.ts), instead of every course of every school: neither cut in memory
    // nor built into JSON for every course of the school before a LATERAL join's LIMIT.
    const courses = t.statements.filter((sql) => sql.includes('"public"."course"'));
    expect(courses.length).toBe(1);
    expect(courses[0]).toMatch(/"public"\."course_place"[\s\S]*"in_school"/);
    expect(courses[0]).not.toMatch(/LATERAL|JSONB_AGG/);
  });

  it("reads a course's syllabus columns only for a query that asks for them", async () => {
    const t = await testGateway(scaled(3), { gateway: { compile } });
    open.push(t);
    const SYLLABUS = ["teaching_goal", "teaching_goal_english", "teaching_content", "teaching_content_english", "class_memo"];
    const read = async (fields: string) => {
      t.statements.length = 0;
      const body = await t.graphql(
        `{ universities { nodes { courses(first: 5) { nodes { ${fields} } } } } courses(first: 5) { nodes { ${fields} } } }`,
      );
      expect(body.errors).toBeUndefined();
      expect(body.data?.courses.nodes).toHaveLength(5);
      return { body, columns: SYLLABUS.filter((c) => t.statements.some((sql) => sql.includes(`"${c}"`))) };
    };
    const titles = await read("databaseId courseNameChinese instructor semester startDate");
    expect(titles.columns).toEqual([]);
    const syllabus = await read("databaseId teachingContent classMemo");
    expect(syllabus.columns).toEqual(["teaching_content", "class_memo"]);
    expect(syllabus.body.data?.courses.nodes[0].teachingContent).toBe(canaryExport().courses[0]!.teaching_content);
  });
});
