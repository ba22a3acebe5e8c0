/** Aggregate statistics over public courses (operation 4). */
import type { ReadClient } from "../db/client.js";
import { byKey, foldStats, semesterYear, type StatsGrouping, type StatsRow } from "../domain/course-stats.js";
import { builder } from "./builder.js";
import { COUNT, POSITIVE } from "./json-schema.js";
import { COST } from "./cost.js";
import { courseFilter } from "./course.js";
import { present } from "./arguments.js";
import { universityMatch } from "./university.js";

const CourseStatsGrouping = builder.enumType("CourseStatsGrouping", {
  description: "What course statistics are grouped by.",
  values: {
    semester: { description: "Per semester; the key is like `113-1`." },
    year: { description: "Per academic year; the key is the part of the semester before `-`, like `113`." },
    school: { description: "Per school; the key is the school code." },
  } as const,
});

const CourseStat = builder.objectRef<StatsRow>("CourseStat").implement({
  description: "Counts of public courses in one group. Pure aggregates, no personal data.",
  fields: (t) => ({
    key: t.exposeString("key", { description: "The group: a semester, a year or a school code." }),
    courseCount: t.exposeInt("courseCount", { ...POSITIVE, description: "Number of public courses in the group." }),
    instructorCount: t.exposeInt("instructorCount", { ...COUNT, description: "Number of distinct instructors in the group." }),
  }),
});

const CourseStats = builder.objectRef<{ rows: StatsRow[] }>("CourseStats").implement({
  description: "Course statistics rows, by key ascending.",
  fields: (t) => ({
    totalCount: t.int({ ...COUNT, description: "Number of rows.", resolve: (p) => p.rows.length }),
    nodes: t.field({ type: [CourseStat], description: "The rows, by key ascending.", resolve: (p) => p.rows }),
  }),
});

builder.queryField("courseStats", (t) =>
  t.field({
    type: CourseStats,
    description: "Public course and instructor counts grouped by semester, year or school.",
    args: {
      university: t.arg.string({ description: "School code (case-insensitive) or exact Chinese name." }),
      groupBy: t.arg({ type: CourseStatsGrouping, required: true, defaultValue: "semester", description: "The grouping." }),
    },
    complexity: COST.list, // a few rows the import kept (a GROUP BY when two schools match)
    resolve: async (_root, args, ctx) => {
      const grouping: StatsGrouping = args.groupBy;
      const scope = await statsScope(ctx.prisma, args.university);
      if (scope === null) return { rows: [] };
      if (scope === undefined) return { rows: await liveStats(ctx.prisma, args.university, grouping) };
      // One row holding them all: a school's rows are 160 on the full catalogue, and the client's work per row
      // read cost more than the statement (at 16 connections, operation 4 by school went from 0.53 of its rate on 15 schools to 0.68).
      const [kept] = await ctx.prisma.$queryRaw<{ rows: StatsRow[] | null }[]>`
        SELECT json_agg(json_build_object('key', key, 'courseCount', course_count, 'instructorCount', instructor_count)) AS rows
          FROM course_stat WHERE university_id = ${scope} AND grouping = ${grouping}`;
      return { rows: (kept?.rows ?? []).sort(byKey) };
    },
  }),
);

/**
 * Whose rows the import kept (src/import/courses.ts) answer a `university`
 * filter: 0 (all schools) without one, the school's id when exactly one school
 * matches, null when none does (no courses, no rows). Undefined when two
 * schools match (one's code is the other's Chinese name): their union is
 * counted live.
 */
async function statsScope(prisma: ReadClient, university: string | null | undefined): Promise<number | null | undefined> {
  const value = present(university);
  if (value === undefined) return 0;
  const schools = await prisma.university.findMany({ where: universityMatch(value), select: { id: true }, take: 2 });
  if (schools.length === 0) return null;
  return schools.length === 1 ? schools[0]!.id : undefined;
}

/** The rows counted from the courses themselves. */
export async function liveStats(prisma: ReadClient, university: string | null | undefined, grouping: StatsGrouping): Promise<StatsRow[]> {
  const where = courseFilter({ university });
  if (grouping === "school") {
    const [cells, schools] = await Promise.all([
      prisma.course.groupBy({ by: ["universityId", "instructor"], where, _count: { _all: true } }),
      prisma.university.findMany({ select: { id: true, code: true } }),
    ]);
    const codes = new Map(schools.map((s) => [s.id, s.code]));
    return foldStats(
      cells.map((c) => ({ key: codes.get(c.universityId) ?? String(c.universityId), instructor: c.instructor, courses: c._count._all })),
    );
  }
  const cells = await prisma.course.groupBy({ by: ["semester", "instructor"], where, _count: { _all: true } });
  const key = grouping === "year" ? semesterYear : (s: string) => s;
  return foldStats(cells.map((c) => ({ key: key(c.semester), instructor: c.instructor, courses: c._count._all })));
}
