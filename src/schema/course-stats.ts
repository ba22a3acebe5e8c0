/** Aggregate statistics over public courses (operation 4). */
import { foldStats, semesterYear, type StatsGrouping, type StatsRow } from "../domain/course-stats.js";
import { builder } from "./builder.js";
import { COUNT, POSITIVE } from "./json-schema.js";
import { COST } from "./cost.js";
import { courseFilter } from "./course.js";

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
    complexity: COST.list, // one GROUP BY over the public courses
    resolve: async (_root, args, ctx) => {
      const where = courseFilter({ university: args.university });
      const grouping: StatsGrouping = args.groupBy;
      if (grouping === "school") {
        const [cells, schools] = await Promise.all([
          ctx.prisma.course.groupBy({ by: ["universityId", "instructor"], where, _count: { _all: true } }),
          ctx.prisma.university.findMany({ select: { id: true, code: true } }),
        ]);
        const codes = new Map(schools.map((s) => [s.id, s.code]));
        return {
          rows: foldStats(
            cells.map((c) => ({
              key: codes.get(c.universityId) ?? String(c.universityId),
              instructor: c.instructor,
              courses: c._count._all,
            })),
          ),
        };
      }
      const cells = await ctx.prisma.course.groupBy({ by: ["semester", "instructor"], where, _count: { _all: true } });
      const key = grouping === "year" ? semesterYear : (s: string) => s;
      return { rows: foldStats(cells.map((c) => ({ key: key(c.semester), instructor: c.instructor, courses: c._count._all }))) };
    },
  }),
);
