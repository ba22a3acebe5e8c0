/** Public courses. Private ones are invisible at the client level (db/guards.ts). */
import type { ReadClient } from "../db/client.js";
import type { Prisma } from "../generated/prisma/client.js";
import { INT32_MAX } from "../input-limits.js";
import { builder } from "./builder.js";
import { COUNT, jsonSchema, POSITIVE } from "./json-schema.js";
import { COST, PAGE, pageCost } from "./cost.js";
import { checkRange, inRange, literal, present } from "./arguments.js";
import {
  type CourseFilterArgs,
  type SearchPage,
  type SearchWindow,
  titleSearch,
  titleSearchStatement,
  titleSearchTotal,
} from "./title-search.js";
import { placeRange, placeWindow } from "./course-places.js";
import { universityMatch } from "./university.js";
import { embedded, type Param, type SqlList, type SqlPage, sqlColumn, sqlForm, sqlOrder } from "./sql-forms.js";

/** The most courses a page by number holds (`coursePage`'s `pageSize`). */
const PAGE_SIZE_MAX = 100;

/** Newest semester first, then by id (docs/contract.md §3). */
export const COURSE_ORDER: Prisma.CourseOrderByWithRelationInput[] = [{ semester: "desc" }, { id: "asc" }];

/** What the SQL forms of every connection of courses share: their rows, cursor, order (COURSE_ORDER's) and page sizes (Pothos' defaults). */
export const COURSE_PAGES = {
  kind: "page",
  model: "Course",
  cursor: "id",
  orderBy: sqlOrder(COURSE_ORDER),
  defaultSize: PAGE.default,
  maxSize: PAGE.max,
} as const;

/** The filters of operation 2: school code or Chinese name, exact semester, title substring. */
export function courseFilter(args: CourseFilterArgs): Prisma.CourseWhereInput {
  const and: Prisma.CourseWhereInput[] = [];
  const university = present(args.university);
  const semester = present(args.semester);
  const q = present(args.q);
  if (university !== undefined) and.push({ university: universityMatch(university) });
  if (args.universityId !== undefined) and.push({ universityId: args.universityId });
  // As a range of one value, not `=`: PostgreSQL drops an equal column from
  // ORDER BY, then walks the primary key for `ORDER BY id` and filters (47 ms
  // at 100,000 courses when the semester's ids come late) instead of reading
  // the semester's rows in order from (is_public, semester DESC, id) (0.1 ms).
  if (semester !== undefined) and.push({ semester: { gte: semester, lte: semester } });
  if (q !== undefined) {
    and.push({
      OR: [
        { courseNameChinese: { contains: literal(q), mode: "insensitive" } },
        { courseNameEnglish: { contains: literal(q), mode: "insensitive" } },
      ],
    });
  }
  return and.length ? { AND: and } : {};
}

/**
 * The number of public courses matching `args`. Without `q` it sums the
 * import's per-school, per-semester counts (src/import/courses.ts), a few
 * rows whatever the size of the catalogue; with `q` it is a title search's
 * (./title-search.ts).
 */
async function courseTotal(prisma: ReadClient, args: CourseFilterArgs): Promise<number> {
  if (present(args.q) !== undefined) return titleSearchTotal(prisma, args);
  const university = present(args.university);
  const semester = present(args.semester);
  const sum = await prisma.courseCount.aggregate({
    _sum: { courses: true },
    where: {
      ...(university === undefined ? {} : { university: universityMatch(university) }),
      ...(args.universityId === undefined ? {} : { universityId: args.universityId }),
      ...(semester === undefined ? {} : { semester }),
    },
  });
  return sum._sum.courses ?? 0;
}

/**
 * The columns every course row is read with: short ones, so a page of titles
 * costs what its titles cost. Their fields resolve from the row as it is. The
 * syllabus columns (teaching goal and content, notes) are read only when a
 * field asks for them: those fields select their own column, which costs a
 * lookup per row, per field, in the Pothos prisma plugin, so the common
 * columns do not.
 */
const COURSE_COLUMNS = {
  id: true,
  className: true,
  courseNumber: true,
  courseClass: true,
  courseNameChinese: true,
  courseNameEnglish: true,
  instructor: true,
  instructorEnglish: true,
  department: true,
  departmentEnglish: true,
  semester: true,
  startDate: true,
  endDate: true,
} as const;

builder.prismaNode("Course", {
  description: "A public course (one its teacher made public). Join codes are never part of it.",
  select: COURSE_COLUMNS,
  id: { field: "id", description: "Global ID of the course." },
  fields: (t) => ({
    databaseId: t.int({
      ...POSITIVE,
      description: "Numeric course id (the REST `id`).",
      extensions: { ...POSITIVE.extensions, ...sqlColumn("id") },
      resolve: (c) => c.id,
    }),
    className: t.string({ nullable: true, description: "Class name.", resolve: (c) => c.className }),
    courseNumber: t.string({ nullable: true, description: "Course number in the school's catalogue.", resolve: (c) => c.courseNumber }),
    courseClass: t.string({ nullable: true, description: "Class (section) code.", resolve: (c) => c.courseClass }),
    courseNameChinese: t.string({ nullable: true, description: "Title in Chinese.", resolve: (c) => c.courseNameChinese }),
    courseNameEnglish: t.string({ nullable: true, description: "Title in English.", resolve: (c) => c.courseNameEnglish }),
    instructor: t.string({ nullable: true, description: "Instructor's name.", resolve: (c) => c.instructor }),
    instructorEnglish: t.string({ nullable: true, description: "Instructor's name in English.", resolve: (c) => c.instructorEnglish }),
    department: t.string({ nullable: true, description: "Offering department.", resolve: (c) => c.department }),
    departmentEnglish: t.string({ nullable: true, description: "Offering department in English.", resolve: (c) => c.departmentEnglish }),
    school: t.string({
      description: "The offering school's Chinese name.",
      extensions: sqlColumn("university.nameZh"),
      select: { university: { select: { nameZh: true } } },
      resolve: (course) => course.university.nameZh,
    }),
    university: t.relation("university", { description: "The offering school." }),
    semester: t.string({
      ...jsonSchema({ pattern: "^\\d{3}-[1-9]$" }),
      description: "Semester as `<year>-<term>`, like `113-1`.",
      resolve: (c) => c.semester,
    }),
    startDate: t.field({ type: "Date", nullable: true, description: "First day of the course.", resolve: (c) => c.startDate }),
    endDate: t.field({ type: "Date", nullable: true, description: "Last day of the course.", resolve: (c) => c.endDate }),
    teachingGoal: t.exposeString("teachingGoal", { nullable: true, description: "Learning objectives." }),
    teachingGoalEnglish: t.exposeString("teachingGoalEnglish", { nullable: true, description: "Learning objectives in English." }),
    teachingContent: t.exposeString("teachingContent", { nullable: true, description: "Content outline." }),
    teachingContentEnglish: t.exposeString("teachingContentEnglish", { nullable: true, description: "Content outline in English." }),
    classMemo: t.exposeString("classMemo", { nullable: true, description: "Course notes." }),
  }),
});

/** The courses of `ids`, read with `query`'s selection, in the order of `ids`. */
async function coursesInOrder(prisma: ReadClient, query: Pick<Prisma.CourseFindManyArgs, "select" | "include">, ids: number[]) {
  if (ids.length === 0) return [];
  const courses = await prisma.course.findMany({ ...query, where: { id: { in: ids } } });
  const byId = new Map(courses.map((c) => [c.id, c]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The courses of `window` of the list `args` (without `q`) filters, by place
 * (./course-places.ts), as cheap at any depth as the first page: without a
 * school and a cursor, one statement (the range of places is the page, filter
 * and all); otherwise the page's ids, then its courses. Undefined when a
 * place cannot answer.
 */
async function coursesByPlace(
  prisma: ReadClient,
  query: Pick<Prisma.CourseFindManyArgs, "select" | "include">,
  args: CourseFilterArgs,
  window: SearchWindow,
) {
  const range = window.cursor === undefined && window.take >= 0 ? placeRange(args, window.skip, window.take) : undefined;
  if (range) return prisma.course.findMany({ ...query, where: range, orderBy: COURSE_ORDER });
  const ids = await placeWindow(prisma, args, window);
  return ids && coursesInOrder(prisma, query, ids);
}

interface CoursePageShape {
  filter: CourseFilterArgs;
  page: number;
  pageSize: number;
  /** The page's title search (with `q`), run once for its total and its items. */
  search?: Promise<SearchPage>;
}

/** The title search of a page by number: one statement gives its total and its ids. */
function pageSearch(parent: CoursePageShape, prisma: ReadClient): Promise<SearchPage> {
  parent.search ??= titleSearch(prisma, parent.filter, { skip: (parent.page - 1) * parent.pageSize, take: parent.pageSize }).then(
    (found) => found ?? { total: 0, ids: [] },
  );
  return parent.search;
}

/** What a title search found while paging a connection of courses, by the field's arguments: its totalCount needs no second search. */
const connectionTotals = new WeakMap<object, number>();

/** How a connection pages its courses, as Pothos hands it to the resolver: the selection, and the cursor, skip and take. */
export type ConnectionQuery = Pick<Prisma.CourseFindManyArgs, "select" | "include" | "cursor" | "skip"> & { take: number };

/**
 * The courses of a connection's page that `filter` (with `q`) matches, by
 * title search; paged as Prisma pages them when the cursor is not one of the
 * matches. The search's total is kept for the field's `totalCount` (by `args`,
 * the field's arguments: see connectionTotal).
 */
export async function searchedCourses(prisma: ReadClient, query: ConnectionQuery, args: object, filter: CourseFilterArgs) {
  const { cursor, skip, take, ...selection } = query;
  const found = await titleSearch(prisma, filter, { cursor: cursor?.id, skip: skip ?? 0, take });
  if (!found) return prisma.course.findMany({ ...query, where: courseFilter(filter), orderBy: COURSE_ORDER });
  connectionTotals.set(args, found.total);
  return coursesInOrder(prisma, selection, found.ids);
}

/** The totalCount of a connection of courses: what its search found, or the total of `filter`. */
export function connectionTotal(prisma: ReadClient, args: object, filter: CourseFilterArgs): number | Promise<number> {
  return connectionTotals.get(args) ?? courseTotal(prisma, filter);
}

const CoursePage = builder.objectRef<CoursePageShape>("CoursePage").implement({
  description: "One page of public courses by page number (the paging of REST `/courses`).",
  fields: (t) => ({
    page: t.exposeInt("page", { ...POSITIVE, description: "The page number, from 1." }),
    pageSize: t.exposeInt("pageSize", { ...POSITIVE, description: "Courses per page." }),
    total: t.int({
      ...COUNT,
      description: "Number of matching courses on all pages.",
      resolve: async (parent, _args, ctx) =>
        present(parent.filter.q) === undefined ? courseTotal(ctx.prisma, parent.filter) : (await pageSearch(parent, ctx.prisma)).total,
    }),
    items: t.prismaField({
      type: ["Course"],
      description: "The courses of this page; empty past the last page.",
      resolve: async (query, parent, _args, ctx) => {
        const skip = (parent.page - 1) * parent.pageSize;
        if (present(parent.filter.q) === undefined) {
          const placed = await coursesByPlace(ctx.prisma, query, parent.filter, { skip, take: parent.pageSize });
          if (placed) return placed;
          return ctx.prisma.course.findMany({
            ...query,
            where: courseFilter(parent.filter),
            orderBy: COURSE_ORDER,
            skip,
            take: parent.pageSize,
          });
        }
        // A title search finds the page's ids first, then reads those courses whole.
        return coursesInOrder(ctx.prisma, query, (await pageSearch(parent, ctx.prisma)).ids);
      },
    }),
  }),
});

/** The column of `course_place` that numbers a list of courses with or without a school and a semester. */
const placeColumnName = (school: boolean, semester: boolean) =>
  school ? (semester ? "in_school_semester" : "in_school") : semester ? "in_semester" : "in_all";

/**
 * The filters of a list of courses in SQL (for its SQL form): which schools
 * (`universityMatch`: the code in any case, or the exact Chinese name, on the
 * row `u`) and which semester.
 */
function listFilters(args: Readonly<Record<string, unknown>>, param: Param): { school?: string; semester?: string } {
  const university = present(args.university as string | null | undefined);
  const semester = present(args.semester as string | null | undefined);
  return {
    ...(university === undefined
      ? {}
      : { school: `(u.code_key = ${param(university.toLowerCase(), "text")} OR u.name_zh = ${param(university, "text")})` }),
    ...(semester === undefined ? {} : { semester: param(semester, "text") }),
  };
}

/**
 * A title search's page as the SQL form's list, on the course row `row`: the
 * search's statement (./title-search.ts) read once, its page's ids joined to
 * their courses, its total the search's; a cursor the search does not hold
 * leaves the request to the resolver (`holds`), as titleSearch does.
 */
function searchList(
  args: Readonly<Record<string, unknown>>,
  row: string,
  param: Param,
  after: number | undefined,
  take: number,
  skip: number,
): SqlList {
  const search = `s_${row}`;
  const filter: CourseFilterArgs = {
    q: args.q as string,
    university: args.university as string | null | undefined,
    semester: args.semester as string | null | undefined,
  };
  // As Pothos asks Prisma for a page after a cursor: from the cursor's row, skipping it.
  const statement = titleSearchStatement(filter, { cursor: after, skip: after === undefined ? skip : 1, take });
  return {
    source: `(${embedded(statement, param)}) ${search}`,
    from: `unnest(${search}.page) AS u_${row}(id) JOIN course ${row} ON ${row}.id = u_${row}.id`,
    where: [],
    total: `${search}.total`,
    ...(after === undefined ? {} : { holds: `${search}.at IS NOT NULL` }),
  };
}

/**
 * The SQL form of `courses` (and of the list `coursePage` pages). Without
 * `q`, as coursesByPlace and courseTotal read it: a range of places of the
 * list, the total from the import's counts; a school's list only when one
 * school has that code or name. With `q`, the title search's own statement.
 */
const COURSES_FORM: SqlPage = {
  ...COURSE_PAGES,
  list: (a, { row, param }, limit, after, take, skip) => {
    if (after !== undefined && !Number.isInteger(after)) return undefined;
    if (present(a.q as string | null | undefined) !== undefined) return searchList(a, row, param, after as number | undefined, take, skip);
    const { school, semester } = listFilters(a, param);
    const column = placeColumnName(school !== undefined, semester !== undefined);
    // The list's places, on the place row `p`: its school (one, or none) and its semester.
    const scope = (p: string) => [
      ...(school === undefined ? [] : [`${p}.university_id = (SELECT min(u.id) FROM university u WHERE ${school})`]),
      ...(semester === undefined ? [] : [`${p}.semester = ${semester}`]),
    ];
    const place = `p_${row}`;
    // After a cursor, the page starts at its course's place in the list (none when the list does not hold it); a
    // page by number, after its first `skip`.
    const at =
      after === undefined
        ? skip === 0
          ? "0"
          : param(skip, "int")
        : `(SELECT c.${column} FROM course_place c WHERE ${[`c.id = ${param(after, "int")}`, ...scope("c")].join(" AND ")})`;
    const holds = [
      ...(school === undefined ? [] : [`(SELECT count(*) FROM university u WHERE ${school}) <= 1`]),
      ...(after === undefined ? [] : [`${at} IS NOT NULL`]),
    ];
    return {
      from: `course_place ${place} JOIN course ${row} ON ${row}.id = ${place}.id`,
      where: scope(place),
      page: [`${place}.${column} BETWEEN ${at} + 1 AND ${at} + ${limit}`],
      ...(holds.length ? { holds: holds.join(" AND ") } : {}),
    };
  },
  total: (a, { param }) => {
    const { school, semester } = listFilters(a, param);
    const where = [
      ...(school === undefined ? [] : [`n.university_id IN (SELECT u.id FROM university u WHERE ${school})`]),
      ...(semester === undefined ? [] : [`n.semester = ${semester}`]),
    ];
    return `(SELECT coalesce(sum(n.courses), 0) FROM course_count n${where.length ? ` WHERE ${where.join(" AND ")}` : ""})`;
  },
};

builder.queryFields((t) => {
  const args = {
    university: t.arg.string({ description: "School code (case-insensitive) or exact Chinese name." }),
    semester: t.arg.string({ description: "Exact semester, like `113-1`." }),
    q: t.arg.string({ description: "Case-insensitive substring of the Chinese or English title." }),
  };
  return {
    courses: t.prismaConnection({
      type: "Course",
      cursor: "id",
      description: "Public courses, newest semester first, then by id.",
      args,
      complexity: pageCost(),
      extensions: sqlForm(COURSES_FORM),
      resolve: async (query, _root, a, ctx) => {
        // A title search pages its list of courses (./title-search.ts), the rest by place (./course-places.ts); Prisma
        // pages what neither can: a cursor outside the list, a school name two schools share.
        const { cursor, skip, take, ...selection } = query;
        const window = { cursor: cursor?.id, skip: skip ?? 0, take };
        if (present(a.q) === undefined) {
          const placed = await coursesByPlace(ctx.prisma, selection, a, window);
          if (placed) return placed;
          return ctx.prisma.course.findMany({ ...query, where: courseFilter(a), orderBy: COURSE_ORDER });
        }
        return searchedCourses(ctx.prisma, query, a, a);
      },
      totalCount: (_conn, a, ctx) => connectionTotal(ctx.prisma, a, a),
    }),
    coursePage: t.field({
      type: CoursePage,
      description: "Public courses by page number, in the order of `courses`.",
      args: {
        ...args,
        page: t.arg.int({ defaultValue: 1, required: true, description: "Page number, from 1." }),
        pageSize: t.arg.int({ defaultValue: 20, required: true, description: `Courses per page, 1 to ${PAGE_SIZE_MAX}.` }),
      },
      complexity: (a) => ({ field: COST.list + (a.q ? COST.search : 0), multiplier: Math.min(PAGE.max, Math.max(0, a.pageSize)) }),
      // The same list as `courses`, a window of it by number: one statement with the document's other fields.
      extensions: sqlForm({
        kind: "numbered",
        list: COURSES_FORM,
        window: (a) => {
          // Out of range: the resolver's error. Past about two thousand million rows (every list is shorter), the resolver's too.
          if (!inRange(a.page, 1, INT32_MAX) || !inRange(a.pageSize, 1, PAGE_SIZE_MAX)) return undefined;
          const skip = (a.page - 1) * a.pageSize;
          return skip <= 2_000_000_000 ? { skip, take: a.pageSize } : undefined;
        },
        fields: { page: { argument: "page" }, pageSize: { argument: "pageSize" }, total: "total", items: "rows" },
      }),
      resolve: (_root, a) => ({
        filter: a,
        page: checkRange("page", a.page, 1, INT32_MAX),
        pageSize: checkRange("pageSize", a.pageSize, 1, PAGE_SIZE_MAX),
      }),
    }),
    course: t.prismaField({
      type: "Course",
      nullable: true,
      description: "One public course by numeric id; null when it does not exist or is not public.",
      args: { id: t.arg.int({ required: true, description: "Numeric course id." }) },
      extensions: sqlForm({ kind: "one", model: "Course", where: (a, { row, param }) => `${row}.id = ${param(a.id, "int")}` }),
      resolve: (query, _root, a, ctx) => ctx.prisma.course.findUnique({ ...query, where: { id: a.id } }),
    }),
  };
});
