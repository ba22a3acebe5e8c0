/**
 * A school's courses (`University.courses`). Without `q`, every school a
 * request lists is read in one statement: forwards, each school's page is a
 * range of its places (./course-places.ts), which reads the page's courses
 * alone (after a cursor, its course's place is looked up first); backwards,
 * Prisma pages the relation. Their totals come in another statement, from the
 * import's counts. With `q`, the school's title search (./title-search.ts)
 * reads the school's part of a piece's list, never every course of the school.
 */
import DataLoader from "dataloader";
import type { Context } from "../context.js";
import { present } from "./arguments.js";
import { builder } from "./builder.js";
import { pageCost } from "./cost.js";
import { COURSE_ORDER, COURSE_PAGES, type ConnectionQuery, connectionTotal, courseFilter, searchedCourses } from "./course.js";
import { schoolsPlaceRange } from "./course-places.js";
import { sqlForm } from "./sql-forms.js";

type CourseRow = Awaited<ReturnType<typeof searchedCourses>>[number];

/** What the schools of one field in one request share: the loaders of their pages (by window and selection) and totals (by semester). */
interface SchoolLoaders {
  pages: Map<string, DataLoader<number, CourseRow[]>>;
  totals: Map<string, DataLoader<number, number>>;
}

const loadersOf = new WeakMap<Context, SchoolLoaders>();

function schoolLoaders(ctx: Context): SchoolLoaders {
  let loaders = loadersOf.get(ctx);
  if (!loaders) {
    loaders = { pages: new Map(), totals: new Map() };
    loadersOf.set(ctx, loaders);
  }
  return loaders;
}

/** Each school's page of its courses of `semester` (without `q`), as `query` pages them. */
function schoolPages(ctx: Context, query: ConnectionQuery, semester: string | undefined) {
  const key = JSON.stringify([query, semester ?? null]);
  const pages = schoolLoaders(ctx).pages;
  let loader = pages.get(key);
  if (!loader) {
    loader = new DataLoader(async (schools: readonly number[]) => {
      const { cursor, skip, take, ...selection } = query;
      if (take >= 0) {
        const start = await pageStart(ctx, schools, semester, cursor?.id, skip ?? 0);
        const bySchool = new Map<number, CourseRow[]>(schools.map((school) => [school, []]));
        if (start.schools.length > 0) {
          // Each row says its school, to be dealt out below.
          const select = selection.select && { ...selection.select, universityId: true };
          const rows = await ctx.prisma.course.findMany({
            ...selection,
            ...(select && { select }),
            where: schoolsPlaceRange(start.schools, semester, start.first - 1, take),
            orderBy: COURSE_ORDER,
          });
          for (const row of rows) bySchool.get((row as { universityId: number }).universityId)?.push(row as CourseRow);
        }
        return schools.map((school) => bySchool.get(school) ?? []);
      }
      const found = await ctx.prisma.university.findMany({
        where: { id: { in: [...schools] } },
        select: { id: true, courses: { ...query, where: courseFilter({ semester }), orderBy: COURSE_ORDER } },
      });
      const bySchool = new Map(found.map((school) => [school.id, school.courses as CourseRow[]]));
      return schools.map((school) => bySchool.get(school) ?? []);
    });
    pages.set(key, loader);
  }
  return loader;
}

/**
 * Where the schools' pages start in their lists (of `semester`, when given):
 * at place `skip + 1` of each; after a cursor, at its course's place plus
 * `skip`, in its own school's list alone. As Prisma pages a relation from a
 * cursor's row, the other schools, whose lists do not hold that row, have no
 * page, nor has any when the row is not in the list (another semester's, or
 * not public).
 */
async function pageStart(
  ctx: Context,
  schools: readonly number[],
  semester: string | undefined,
  cursor: number | undefined,
  skip: number,
): Promise<{ schools: readonly number[]; first: number }> {
  if (cursor === undefined) return { schools, first: skip + 1 };
  const place = await ctx.prisma.coursePlace.findUnique({
    where: { id: cursor },
    select: { universityId: true, semester: true, inSchool: true, inSchoolSemester: true },
  });
  if (!place || !schools.includes(place.universityId) || (semester !== undefined && place.semester !== semester))
    return { schools: [], first: 1 };
  return { schools: [place.universityId], first: (semester === undefined ? place.inSchool : place.inSchoolSemester) + skip };
}

/** Each school's number of public courses of `semester` (without `q`), from the import's counts. */
function schoolTotals(ctx: Context, semester: string | undefined) {
  const key = semester ?? "";
  const totals = schoolLoaders(ctx).totals;
  let loader = totals.get(key);
  if (!loader) {
    loader = new DataLoader(async (schools: readonly number[]) => {
      const sums = await ctx.prisma.courseCount.groupBy({
        by: ["universityId"],
        _sum: { courses: true },
        where: { universityId: { in: [...schools] }, ...(semester === undefined ? {} : { semester }) },
      });
      const bySchool = new Map(sums.map((sum) => [sum.universityId, sum._sum.courses ?? 0]));
      return schools.map((school) => bySchool.get(school) ?? 0);
    });
    totals.set(key, loader);
  }
  return loader;
}

/** The filter of a school's courses: its id, and the field's semester and term when given. */
function schoolFilter(school: number, args: { semester?: string | null | undefined; q?: string | null | undefined }) {
  return { universityId: school, semester: present(args.semester), q: present(args.q) };
}

builder.prismaObjectFields("University", (t) => ({
  courses: t.prismaConnection({
    type: "Course",
    cursor: "id",
    description: "Public courses of this school, newest semester first, then by id.",
    complexity: pageCost(),
    args: {
      semester: t.arg.string({ description: "Only this semester, like `113-1`." }),
      q: t.arg.string({ description: "Case-insensitive substring of the Chinese or English title." }),
    },
    // Without `q`, from the start: the school's first courses in order, read from the courses' own index of a school's
    // list (university_id, is_public, semester DESC, id), a few index entries per school (a range of the school's places
    // joined to its courses read twice the pages: 0.35-0.48 ms against 0.21-0.23 for 20 schools of 100,000 courses);
    // its total from the import's counts, as `schoolTotals` reads it.
    extensions: sqlForm({
      ...COURSE_PAGES,
      list: (args, { row, parent, param }, _limit, after) => {
        // After a cursor, the cursor's own school alone has a page: its resolver's.
        if (after !== undefined || present(args.q as string | null | undefined) !== undefined) return undefined;
        const semester = present(args.semester as string | null | undefined);
        return {
          from: `course ${row}`,
          where: [
            `${row}.university_id = ${parent}.id`,
            ...(semester === undefined ? [] : [`${row}.semester = ${param(semester, "text")}`]),
          ],
        };
      },
      total: (args, { parent, param }) => {
        if (present(args.q as string | null | undefined) !== undefined) return undefined;
        const semester = present(args.semester as string | null | undefined);
        const filter = semester === undefined ? "" : ` AND n.semester = ${param(semester, "text")}`;
        return `(SELECT coalesce(sum(n.courses), 0) FROM course_count n WHERE n.university_id = ${parent}.id${filter})`;
      },
    }),
    resolve: (query, school, args, ctx) => {
      const filter = schoolFilter(school.id, args);
      if (filter.q === undefined) return schoolPages(ctx, query, filter.semester).load(school.id);
      return searchedCourses(ctx.prisma, query, args, filter);
    },
    totalCount: (school, args, ctx) => {
      const filter = schoolFilter(school.id, args);
      if (filter.q === undefined) return schoolTotals(ctx, filter.semester).load(school.id);
      return connectionTotal(ctx.prisma, args, filter);
    },
  }),
}));
