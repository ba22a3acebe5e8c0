/**
 * Title search (`q`: CONTRACT §3's case-insensitive substring of the Chinese
 * or English title) over what the import keeps (src/import/courses.ts,
 * src/import/title-grams.ts), never over the wide course rows or every title:
 * a search reads the lists of one piece of its term (its courses in the
 * default order, or the titles that hold it), and at most checks the titles
 * of that list. Its total is the length of the list of courses it ends with,
 * a page a slice of that list.
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
 * The longest title list of a piece that is followed title by title (each
 * title looked up, checked, and its courses found: about 5 µs), as a share of
 * the number of titles (which the import's ANALYZE counts); a longer one
 * costs more than checking every title once (about 1.5 µs each) and joining
 * the courses in one pass.
 */
const DIRECT_SHARE = 0.25;

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
 * A term of one or two characters (lower-cased) is one piece: its list of
 * courses is the answer as it is, or, with the school or semester filter, its
 * list of titles gives the courses, which the filters then keep. A longer term
 * reads the shortest title list of its two-character pieces, which holds every
 * title that holds the term, keeps the titles that pass the contract's ILIKE,
 * then their courses. When that list is long (`e` with a filter, `the`), every
 * title is checked once instead. A piece no title holds: no match.
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
  // Conditions on the parameters alone, which PostgreSQL decides once per statement.
  const short = Prisma.sql`(char_length(lower(${q}::text)) <= ${GRAM_CHARS}::int)`;
  const theirs = Prisma.sql`(${university}::text IS NULL OR s.university_id IN (
                               SELECT id FROM university WHERE code_key = lower(${university}::text) OR name_zh = ${university}::text))
                       AND (${semester}::text IS NULL OR s.semester = ${semester}::text)`;
  const [row] = await prisma.$queryRaw<{ total: number; at: number | null; page: number[] | null }[]>`
    WITH pieces AS (
      SELECT DISTINCT CASE WHEN ${short} THEN lower(${q}::text) ELSE substr(lower(${q}::text), i, ${GRAM_CHARS}::int) END AS gram
        FROM generate_series(1, GREATEST(char_length(lower(${q}::text)) - 1, 1)) AS i
    ),
    found AS (SELECT g.gram, g.titles FROM pieces p JOIN course_gram g ON g.gram = p.gram),
    rarest AS (
      SELECT CASE WHEN (SELECT count(*) FROM found) < (SELECT count(*) FROM pieces) THEN NULL
                  ELSE (SELECT gram FROM found ORDER BY cardinality(titles), gram LIMIT 1) END AS gram
    ),
    rare AS (SELECT found.titles FROM found JOIN rarest ON rarest.gram = found.gram),
    titles AS (
      SELECT u.id FROM unnest((SELECT titles FROM rare)) AS u(id) WHERE ${short}
      UNION ALL
      SELECT ti.id FROM unnest((SELECT titles FROM rare)) AS u(id) JOIN course_title ti ON ti.id = u.id
       WHERE NOT ${short} AND (ti.name_zh ILIKE ${pattern} OR ti.name_en ILIKE ${pattern})
    ),
    -- Materialized: its list is computed once, though the statement reads it four times.
    list AS MATERIALIZED (
      SELECT CASE WHEN rarest.gram IS NULL THEN '{}'::int[]
                  WHEN ${short} AND NOT ${filtered}::boolean THEN (SELECT courses FROM course_gram WHERE course_gram.gram = rarest.gram)
                  WHEN (SELECT cardinality(titles) FROM rare) <= ${DIRECT_SHARE}::float8 * (SELECT reltuples FROM pg_class WHERE oid = 'course_title'::regclass)
                  THEN ARRAY(SELECT s.id FROM course_search s WHERE s.title_id IN (SELECT id FROM titles) AND ${theirs} ORDER BY s.semester DESC, s.id)
                  ELSE ARRAY(
                    SELECT s.id FROM course_search s
                     WHERE s.title_id IN (SELECT ti.id FROM course_title ti WHERE ti.name_zh ILIKE ${pattern} OR ti.name_en ILIKE ${pattern})
                       AND ${theirs}
                     ORDER BY s.semester DESC, s.id)
             END AS ids
        FROM rarest
    ),
    placed AS MATERIALIZED (
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
