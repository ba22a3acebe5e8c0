/**
 * Title search (`q`: CONTRACT §3's case-insensitive substring of the Chinese
 * or English title) over what the import keeps (src/import/courses.ts,
 * src/import/title-grams.ts), never over the wide course rows or every title:
 * a search reads the list of courses of one piece of its term, in the default
 * order, and at most checks the titles of that list's courses. Its total is
 * the list's length, a page a slice of it.
 *
 * It answers exactly what `ILIKE '%term%'` over the courses answers: a test
 * compares the two on generated terms (test/rest/title-search.test.ts).
 */
import type { ReadClient } from "../db/client.js";
import { Prisma } from "../generated/prisma/client.js";
import { GRAM_CHARS } from "../import/title-grams.js";
import { literal, present } from "./arguments.js";

export interface CourseFilterArgs {
  university?: string | null | undefined;
  semester?: string | null | undefined;
  q?: string | null | undefined;
}

/** Which matching courses to return, as Prisma pages them: from a cursor's course (or the first), skipping, then taking (backwards when negative). */
export interface SearchWindow {
  cursor?: number | undefined;
  skip: number;
  take: number;
}

/**
 * The longest list of a longer term's piece whose courses' titles are checked
 * one course at a time, as a share of the number of titles (which the import's
 * ANALYZE counts): a course costs about 4 µs, a title checked once about 1.5.
 */
const RECHECK_SHARE = 0.4;

/** The matching courses' number, and the ids of the window asked for, in order. */
export interface SearchPage {
  total: number;
  ids: number[];
}

/**
 * The courses matching `args` (which has a `q`) from `course_gram`, counted,
 * with the ids of `window`; undefined when the window's cursor is not one of
 * them (the caller then pages as Prisma does, by the cursor's place in the
 * order).
 *
 * A term of one or two characters (lower-cased) reads its own list, exact as
 * it is. A longer one reads the shortest list of its two-character pieces,
 * which holds every course whose title holds the term, and keeps the courses
 * whose title passes the contract's ILIKE; when even that list is long (a
 * term of common pieces, like `the`), checking each title once costs less. A
 * piece no title holds: no match.
 * The school and semester filters keep the listed courses that are theirs.
 */
export async function titleSearch(prisma: ReadClient, args: CourseFilterArgs, window: SearchWindow): Promise<SearchPage | undefined> {
  const q = present(args.q) ?? "";
  const needle = literal(q);
  const university = present(args.university) ?? null;
  const semester = present(args.semester) ?? null;
  const cursor = window.cursor ?? null;
  // Past every list, and far from int4's end where the slice's bounds are added up.
  const skip = Math.min(window.skip, 2_000_000_000);
  const filtered = university !== null || semester !== null;
  const pattern = Prisma.sql`('%' || ${needle}::text || '%')`;
  const theirs = Prisma.sql`(${university}::text IS NULL
        OR s.university_id IN (SELECT id FROM university WHERE code_key = lower(${university}::text) OR name_zh = ${university}::text))
    AND (${semester}::text IS NULL OR s.semester = ${semester}::text)`;
  const [row] = await prisma.$queryRaw<{ total: number; at: number | null; page: number[] | null }[]>`
    WITH term AS (SELECT lower(${q}::text) AS t, char_length(lower(${q}::text)) <= ${GRAM_CHARS}::int AS short),
    pieces AS (
      SELECT DISTINCT CASE WHEN short THEN t ELSE substr(t, i, ${GRAM_CHARS}::int) END AS gram
        FROM term, generate_series(1, GREATEST(char_length(t) - 1, 1)) AS i
    ),
    found AS (SELECT g.courses FROM pieces p JOIN course_gram g ON g.gram = p.gram),
    base AS (
      SELECT CASE WHEN (SELECT count(*) FROM found) < (SELECT count(*) FROM pieces) THEN '{}'::int[]
                  ELSE (SELECT courses FROM found ORDER BY cardinality(courses) LIMIT 1) END AS courses
    ),
    list AS (
      SELECT CASE WHEN short AND NOT ${filtered}::boolean THEN base.courses
                  WHEN short THEN ARRAY(
                    SELECT s.id FROM unnest(base.courses) WITH ORDINALITY AS u(id, n)
                      JOIN course_search s ON s.id = u.id
                     WHERE ${theirs}
                     ORDER BY u.n)
                  WHEN cardinality(base.courses) <= ${RECHECK_SHARE}::float8 * (SELECT reltuples FROM pg_class WHERE oid = 'course_title'::regclass) THEN ARRAY(
                    SELECT s.id FROM unnest(base.courses) WITH ORDINALITY AS u(id, n)
                      JOIN course_search s ON s.id = u.id
                      JOIN course_title ti ON ti.id = s.title_id
                     WHERE (ti.name_zh ILIKE ${pattern} OR ti.name_en ILIKE ${pattern}) AND ${theirs}
                     ORDER BY u.n)
                  ELSE ARRAY(
                    SELECT s.id FROM course_search s
                     WHERE s.title_id IN (SELECT id FROM course_title ti WHERE ti.name_zh ILIKE ${pattern} OR ti.name_en ILIKE ${pattern})
                       AND ${theirs}
                     ORDER BY s.semester DESC, s.id)
             END AS ids
        FROM term, base
    ),
    placed AS (
      SELECT ids, COALESCE(cardinality(ids), 0) AS total,
             CASE WHEN ${cursor}::int IS NULL THEN NULL ELSE array_position(ids, ${cursor}::int) END AS at
        FROM list
    )
    SELECT total::int AS total, at::int AS at,
           CASE WHEN ${window.take}::int >= 0
                THEN ids[COALESCE(at, 1) + ${skip}::int : COALESCE(at, 1) + ${skip}::int + ${window.take}::int - 1]
                ELSE ids[COALESCE(at, total) - ${skip}::int + ${window.take}::int + 1 : COALESCE(at, total) - ${skip}::int]
           END AS page
      FROM placed`;
  if (!row || (cursor !== null && row.at === null)) return undefined;
  return { total: row.total, ids: row.page ?? [] };
}

/** The number of courses matching `args` (with `q`). */
export async function titleSearchTotal(prisma: ReadClient, args: CourseFilterArgs): Promise<number> {
  return (await titleSearch(prisma, args, { skip: 0, take: 0 }))?.total ?? 0;
}
