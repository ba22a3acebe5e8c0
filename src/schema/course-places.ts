/**
 * Pages of public courses without `q` by place (issue 54): the import numbers
 * each public course in the four lists a page is cut from, in the default
 * order (`course_place`: all courses, its school's, its semester's, and its
 * school's in that semester; src/import/courses.ts). A page is then a range of
 * places, read from an index, at any depth: an OFFSET would read every earlier
 * row again, so walking all of a million courses page by page would cost the
 * square of its length. After a cursor, the range starts at the cursor's place.
 *
 * The same rows, order and edges as Prisma's paging of the same filter (a test
 * compares the two page by page: test/rest/deep-pages.test.ts). The few cases
 * a place cannot answer go back to Prisma: a cursor outside the filtered list,
 * and a school name that two schools share (their lists are numbered apart).
 */
import type { ReadClient } from "../db/client.js";
import { Prisma } from "../generated/prisma/client.js";
import { present } from "./arguments.js";
import { type CourseFilterArgs, constant, type SearchWindow } from "./title-search.js";

/** Far past any list, and far from int8's end where a range's bounds are added up. */
const MAX_SKIP = 2_000_000_000;

/** The column of `course_place` that numbers the list of a filter. */
function placeColumn(university: string | undefined, semester: string | undefined): Prisma.Sql {
  if (university === undefined) return Prisma.raw(semester === undefined ? "in_all" : "in_semester");
  return Prisma.raw(semester === undefined ? "in_school" : "in_school_semester");
}

/**
 * The ids of the public courses in `window` of the list that `args` (without
 * `q`) filters, in the default order; undefined when a place cannot answer
 * (the caller then pages as Prisma does).
 */
export async function placeWindow(prisma: ReadClient, args: CourseFilterArgs, window: SearchWindow): Promise<number[] | undefined> {
  const university = present(args.university);
  const semester = present(args.semester);
  const column = placeColumn(university, semester);
  // A school matches by its code (as `universityMatch` lower-cases it) or its exact Chinese name.
  const code = university?.toLowerCase() ?? null;
  const name = university ?? null;
  const scope = Prisma.sql`(${constant(name === null)} OR p.university_id = (SELECT min(id) FROM school))
                       AND (${constant(semester === undefined)} OR p.semester = ${semester ?? null}::text)`;
  const cursor = window.cursor ?? null;
  const skip = Math.min(window.skip, MAX_SKIP);
  // Which list, and which way, are written into the statement as constants (see constant in ./title-search.ts):
  // PostgreSQL then keeps one generic plan for each, where with them as parameters it planned every page anew.
  const [row] = await prisma.$queryRaw<{ schools: number; at: number | null; ids: number[] }[]>`
    WITH school AS (
      SELECT id FROM university WHERE ${constant(name !== null)} AND (code_key = ${code}::text OR name_zh = ${name}::text) LIMIT 2
    ),
    placed AS (
      SELECT (SELECT count(*) FROM school)::int AS schools,
             (SELECT p.${column} FROM course_place p WHERE p.id = ${cursor}::int AND ${scope}) AS at
    ),
    base AS (
      SELECT schools, at,
             CASE WHEN ${constant(cursor !== null)} THEN at::bigint
                  WHEN ${constant(window.take >= 0)} THEN 1
                  ELSE (SELECT max(p.${column}) FROM course_place p WHERE ${scope})
             END AS from_place
        FROM placed
    ),
    bounds AS (
      SELECT schools, at,
             CASE WHEN ${constant(window.take >= 0)} THEN from_place + ${skip}::bigint
                  ELSE from_place - ${skip}::bigint + ${window.take}::int + 1 END AS lo,
             CASE WHEN ${constant(window.take >= 0)} THEN from_place + ${skip}::bigint + ${window.take}::int - 1
                  ELSE from_place - ${skip}::bigint END AS hi
        FROM base
    )
    SELECT schools, at,
           ARRAY(SELECT p.id FROM course_place p WHERE ${scope} AND p.${column} BETWEEN bounds.lo AND bounds.hi ORDER BY p.${column}) AS ids
      FROM bounds`;
  if (!row || row.schools > 1 || (cursor !== null && row.at === null)) return undefined;
  return row.ids;
}

/**
 * Without a school filter, the page of places `skip + 1` to `skip + take` as
 * a filter of the courses themselves, so that the page is one statement: the
 * places of the list are exactly its courses (public, of the semester asked).
 * With a school, undefined: a name two schools share makes the school's own
 * places the wrong list, which only a lookup can tell (see placeWindow).
 */
export function placeRange(args: CourseFilterArgs, skip: number, take: number): Prisma.CourseWhereInput | undefined {
  if (present(args.university) !== undefined) return undefined;
  const semester = present(args.semester);
  const range = places(skip, take);
  return { place: semester === undefined ? { inAll: range } : { semester, inSemester: range } };
}

/** Places `skip + 1` to `skip + take` of a list, as a filter of its place column. */
function places(skip: number, take: number): { gte: number; lte: number } {
  const first = Math.min(skip, MAX_SKIP) + 1;
  return { gte: first, lte: first + take - 1 };
}

/**
 * The same page of several schools' lists at once (`University.courses`
 * without a cursor): places `skip + 1` to `skip + take` of each school's list
 * (of its `semester`, when given) as a filter of the courses, so that the
 * pages of every school a request lists are one statement that reads those
 * courses alone, from the places' index. A school is known by its id here,
 * so its own places are its list.
 */
export function schoolsPlaceRange(
  schools: readonly number[],
  semester: string | undefined,
  skip: number,
  take: number,
): Prisma.CourseWhereInput {
  const range = places(skip, take);
  const universityId = { in: [...schools] };
  return { place: semester === undefined ? { universityId, inSchool: range } : { universityId, semester, inSchoolSemester: range } };
}
