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
import { BREAK_RUN, GRAM_CHARS, WORD_BREAK } from "../import/title-grams.js";
import { literal, present } from "./arguments.js";

export interface CourseFilterArgs {
  /** A school's code (any case) or exact Chinese name. */
  university?: string | null | undefined;
  /** A school's id: its own courses (`University.courses`). */
  universityId?: number | undefined;
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

/**
 * How many rows a walk of the list of all courses may read for each matching
 * course it would otherwise gather: a row walked (read in order, its title
 * tested in a hash) costs about a fifth of a match gathered (looked up by
 * title, then sorted). On the million courses, `machine learning`'s front
 * page walked 4,510 rows in 1.8 ms, where gathering its 4,434 matches took
 * 9.8 ms.
 */
const WALK_FACTOR = 4;

/**
 * How many courses of each piece's list `course_gram.head` keeps (its
 * migration, 20261205020000_course_gram_heads): a short term's page of every
 * school that ends within them reads them and the list's kept length, not the
 * whole list (which PostgreSQL reads whole to count or slice: 381 KB for
 * `ai` over a million courses).
 */
export const HEAD = 1_000;

/** The matching courses' number, and the ids of the window asked for, in order. */
export interface SearchPage {
  total: number;
  ids: number[];
}

/**
 * A term with three word characters in a row: the titles' trigram indexes
 * (pg_trgm) find the titles that hold it. PostgreSQL's word characters are
 * letters and digits (Chinese ones included, under the C.UTF-8 locale the
 * embedded cluster is made with); a term without such a run (`c++`, `a b`)
 * reads the list of its rarest two-character piece instead.
 */
const TRIGRAM_TERM = /[\p{L}\p{N}]{3}/u;

/** How a term longer than two characters finds its titles (see titleSearch). */
type LongTermPath = "words" | "pairs" | "trigram" | "pieces";

function longTermPath(q: string): LongTermPath {
  if (!WORD_BREAK.test(q)) return "words";
  if (!TRIGRAM_TERM.test(q)) return "pieces";
  // One run of spaces or punctuation, with something on either side.
  const [before, , after, ...more] = q.split(BREAK_RUN);
  return before && after && more.length === 0 ? "pairs" : "trigram";
}

/**
 * The courses matching `args` (which has a `q`) from the title indexes
 * (src/import/title-grams.ts), counted, with the ids of `window`; undefined
 * when the window's cursor is not one of them (the caller then pages as Prisma
 * does, by the cursor's place in the order).
 *
 * A term of one or two characters (lower-cased) is one piece: its list of
 * courses is the answer as it is (a page within its first {@link HEAD} from
 * the head kept beside it, with the list's kept length), or, with the school
 * or semester filter, its list of titles gives the courses, which the filters
 * then keep.
 *
 * A longer term finds its titles:
 * - without a space or ASCII punctuation (`learning`, `資料結構`), from the
 *   words that hold it (`course_word`), with no title read; when one word
 *   does, that word's list of courses is the answer as it is, as a piece's is;
 * - with one run of them between two other characters (`machine learning`,
 *   `c++ primer`), and three letters or digits in a row, from the pairs of
 *   adjacent words that hold it (`course_pair`), in the same way;
 * - otherwise, by trigram (`deep machine learning`), or else from the shortest
 *   title list of its two-character pieces (which holds every title that holds
 *   the term), keeping the titles that pass the contract's ILIKE; when that
 *   list is long, every title is checked once instead. A piece no title holds:
 *   no match.
 *
 * Within one school (`universityId`, or a `university` only one school
 * matches), the school's part of a piece's list (`course_gram_school`) is the
 * answer for a term of one or two characters, and a longer term keeps the
 * courses of its rarest piece's part whose title passes the ILIKE, at most
 * the school's courses; a semester keeps those of its semester.
 *
 * Otherwise, without a filter, the total is the sum of those titles' numbers of
 * courses, and a page near the front walks the list of all courses in order
 * (`course_place`), keeping the courses of those titles, until it has the page:
 * about (skip + take) × N ÷ total courses read, where N is the number of
 * public courses. When that would read more than WALK_FACTOR times the
 * total (a deep page, a rare term), with a filter, or after a cursor, the
 * courses of those titles are read, filtered and ordered, and the page is a
 * slice of them.
 */
export async function titleSearch(prisma: ReadClient, args: CourseFilterArgs, window: SearchWindow): Promise<SearchPage | undefined> {
  const [row] = await prisma.$queryRaw<{ total: number; at: number | null; page: number[] | null }[]>(titleSearchStatement(args, window));
  if (!row || (window.cursor !== undefined && row.at === null)) return undefined;
  return { total: row.total, ids: row.page ?? [] };
}

/**
 * The statement of {@link titleSearch}: one row of the matching courses'
 * number (`total`), the place of the window's cursor among them (`at`, null
 * when they do not hold it) and the window's ids in order (`page`).
 */
export function titleSearchStatement(args: CourseFilterArgs, window: SearchWindow): Prisma.Sql {
  const q = present(args.q) ?? "";
  const needle = literal(q);
  const university = present(args.university) ?? null;
  const universityId = args.universityId ?? null;
  const semester = present(args.semester) ?? null;
  const cursor = window.cursor ?? null;
  // Past every list, and far from int4's end where the slice's bounds are added up.
  const skip = Math.min(window.skip, 2_000_000_000);
  const filtered = university !== null || universityId !== null || semester !== null;
  const path = longTermPath(q);
  const pattern = Prisma.sql`('%' || ${needle}::text || '%')`;
  // How the term finds its titles, written into the statement as constants: PostgreSQL then plans only the
  // branches the term takes, and each way has a statement of its own, whose generic plan it keeps (with these
  // as parameters, it planned every branch on every search, since a plan for the parameters it was given
  // looked far cheaper: three times the database's CPU of the search itself).
  // A term's characters are its code points, as `char_length` counts them (`lower` maps each to one).
  const isShort = [...q].length <= GRAM_CHARS;
  const short = constant(isShort);
  const byPieces = constant(isShort || path === "pieces");
  const byWords = constant(!isShort && path === "words");
  const byPairs = constant(!isShort && path === "pairs");
  const byKeys = constant(!isShort && (path === "words" || path === "pairs"));
  const byTrigram = constant(!isShort && path === "trigram");
  // A short term's page of every school within the first HEAD courses of its piece's list: read from the head.
  const fromHead = constant(isShort && !filtered && cursor === null && window.take >= 0 && skip + window.take <= HEAD);
  // The term's pieces: itself when short, else each two characters in a row.
  const termPieces = Prisma.sql`SELECT DISTINCT
             CASE WHEN ${short} THEN lower(${q}::text) ELSE substr(lower(${q}::text), i, ${GRAM_CHARS}::int) END AS gram
        FROM generate_series(1, GREATEST(char_length(lower(${q}::text)) - 1, 1)) AS i`;
  // Whether the title of course_place `p` holds the term.
  const titleHolds = Prisma.sql`EXISTS (SELECT FROM course_title ti WHERE ti.id = p.title_id AND (ti.name_zh ILIKE ${pattern} OR ti.name_en ILIKE ${pattern}))`;
  // The filter's one school, found by the statement; none without a school in the filter.
  const schoolId = university === null && universityId === null ? Prisma.sql`NULL::int` : Prisma.sql`(SELECT id FROM school)`;
  const theirs = Prisma.sql`(${constant(university === null)} OR s.university_id IN (
                               SELECT id FROM university WHERE code_key = lower(${university}::text) OR name_zh = ${university}::text))
                       AND (${constant(universityId === null)} OR s.university_id = ${universityId}::int)
                       AND (${constant(semester === null)} OR s.semester = ${semester}::text)`;
  return Prisma.sql`
    WITH pieces AS (
      ${termPieces}
       WHERE ${byPieces}
    ),
    -- The lists' lengths, kept beside them: the lists themselves are read only where they are used.
    found AS (SELECT g.gram, g.titles_count FROM pieces p JOIN course_gram g ON g.gram = p.gram),
    rarest AS (
      SELECT CASE WHEN (SELECT count(*) FROM found) < (SELECT count(*) FROM pieces) THEN NULL
                  ELSE (SELECT gram FROM found ORDER BY titles_count, gram LIMIT 1) END AS gram
    ),
    rare AS (SELECT g.titles FROM course_gram g JOIN rarest ON rarest.gram = g.gram),
    -- The one school of the filter (none when it names no school, or two).
    school AS (
      SELECT CASE WHEN count(*) = 1 THEN min(id) END AS id
        FROM (SELECT id FROM university
               WHERE id = ${universityId}::int
                  OR (${constant(university !== null)} AND (code_key = lower(${university}::text) OR name_zh = ${university}::text))
               LIMIT 2) AS matched
    ),
    -- The term's pieces in that school: the shortest part holds every course of the school that holds the term.
    school_pieces AS (
      ${termPieces}
       WHERE ${schoolId} IS NOT NULL
    ),
    school_found AS (
      SELECT g.courses FROM school_pieces p JOIN course_gram_school g ON g.gram = p.gram AND g.university_id = ${schoolId}
    ),
    school_part AS (
      SELECT CASE WHEN (SELECT count(*) FROM school_found) < (SELECT count(*) FROM school_pieces) THEN '{}'::int[]
                  ELSE (SELECT courses FROM school_found ORDER BY cardinality(courses) LIMIT 1) END AS courses
    ),
    -- The words that hold the term (a term without a break lies within a word of every title that holds it), or the
    -- pairs of words (a term with one run of breaks between two other characters lies within a pair of each).
    words AS MATERIALIZED (
      SELECT w.courses, w.titles FROM course_word w WHERE ${byWords} AND w.word LIKE ('%' || lower(${needle}::text) || '%')
      UNION ALL
      SELECT p.courses, p.titles FROM course_pair p WHERE ${byPairs} AND p.pair LIKE ('%' || lower(${needle}::text) || '%')
    ),
    one AS (SELECT ${byKeys} AND (SELECT count(*) FROM words) = 1 AS word),
    -- The matching titles (with their numbers of courses, but for a short term), when they are few enough to list.
    titles AS MATERIALIZED (
      SELECT u.id, 0 AS courses FROM unnest((SELECT titles FROM rare)) AS u(id) WHERE ${short}
      UNION ALL
      SELECT ti.id, ti.courses FROM unnest((SELECT titles FROM rare)) AS u(id) JOIN course_title ti ON ti.id = u.id
       WHERE ${byPieces} AND NOT ${short} AND (ti.name_zh ILIKE ${pattern} OR ti.name_en ILIKE ${pattern})
      UNION ALL
      SELECT ti.id, ti.courses FROM course_title ti WHERE ${byTrigram} AND (ti.name_zh ILIKE ${pattern} OR ti.name_en ILIKE ${pattern})
      UNION ALL
      SELECT ti.id, ti.courses FROM course_title ti WHERE ${byKeys} AND ti.id IN (SELECT unnest(titles) FROM words)
    ),
    -- Whether to walk, and the total the walk gives; the titles are summed only when a walk could serve.
    walk AS (
      SELECT sum AS sum,
             sum > 0 AND (${skip}::float8 + ${window.take}::int) * COALESCE((SELECT max(in_all) FROM course_place), 0)
                         < ${WALK_FACTOR}::float8 * sum * sum AS yes
        FROM (SELECT COALESCE(sum(courses), 0) AS sum FROM titles
               WHERE NOT ${short} AND NOT (SELECT word FROM one) AND NOT ${constant(filtered)}
                 AND ${constant(cursor === null)} AND ${constant(window.take >= 0)}) AS sums
    ),
    -- Materialized: its list is computed once, though the statement reads it four times.
    list AS MATERIALIZED (
      SELECT CASE WHEN (SELECT yes FROM walk) THEN NULL
                  WHEN ${schoolId} IS NOT NULL AND ${short} AND ${constant(semester === null)} THEN (SELECT courses FROM school_part)
                  -- A semester's courses of the school, in order, that the part holds (and whose title holds the term).
                  WHEN ${schoolId} IS NOT NULL AND ${constant(semester !== null)}
                  THEN ARRAY(SELECT p.id FROM course_place p
                              WHERE p.university_id = ${schoolId} AND p.semester = ${semester}::text
                                AND (p.id IN (SELECT unnest(courses) FROM school_part)) IS TRUE AND (${short} OR ${titleHolds})
                              ORDER BY p.in_school_semester)
                  WHEN ${schoolId} IS NOT NULL
                  THEN ARRAY(SELECT u.id FROM unnest((SELECT courses FROM school_part)) WITH ORDINALITY AS u(id, n)
                               JOIN course_place p ON p.id = u.id
                              WHERE ${titleHolds}
                              ORDER BY u.n)
                  WHEN ${byPieces} AND rarest.gram IS NULL THEN '{}'::int[]
                  WHEN ${short} AND NOT ${constant(filtered)} THEN CASE WHEN ${fromHead} THEN piece.head ELSE piece.courses END
                  WHEN (SELECT word FROM one) AND NOT ${constant(filtered)} THEN (SELECT courses FROM words)
                  WHEN NOT ${byPieces} OR piece.titles_count <= ${DIRECT_SHARE}::float8 * (SELECT reltuples FROM pg_class WHERE oid = 'course_title'::regclass)
                  THEN ARRAY(SELECT s.id FROM course_search s WHERE s.title_id IN (SELECT id FROM titles) AND ${theirs} ORDER BY s.semester DESC, s.id)
                  ELSE ARRAY(
                    SELECT s.id FROM course_search s
                     WHERE s.title_id IN (SELECT ti.id FROM course_title ti WHERE ti.name_zh ILIKE ${pattern} OR ti.name_en ILIKE ${pattern})
                       AND ${theirs}
                     ORDER BY s.semester DESC, s.id)
             END AS ids,
             -- The length of the piece's list, kept beside it, when the page is read from its head.
             CASE WHEN ${fromHead} THEN piece.courses_count END AS total
        -- The rarest piece's row: its lists are read only by the branch that uses one.
        FROM rarest LEFT JOIN course_gram piece ON piece.gram = rarest.gram
    ),
    placed AS MATERIALIZED (
      SELECT ids, COALESCE(total, cardinality(ids), 0) AS total,
             CASE WHEN ${constant(cursor === null)} THEN NULL ELSE array_position(ids, ${cursor}::int) END AS at
        FROM list
    )
    SELECT (CASE WHEN walk.yes THEN walk.sum ELSE placed.total END)::int AS total, at::int AS at,
           CASE WHEN walk.yes
                -- The hashed test of each course's title (a subquery PostgreSQL cannot turn into a join) keeps the walk in order.
                -- The page's size and place are subqueries, which no plan knows in advance: with them as parameters, a
                -- plan made for a page of 20 was estimated to read 20 rows where the generic plan read a tenth of the
                -- courses, so on a million courses every search was planned again (1.2 ms of the database a request).
                THEN ARRAY(SELECT p.id FROM course_place p WHERE (p.title_id IN (SELECT id FROM titles)) IS TRUE
                            ORDER BY p.in_all LIMIT (SELECT GREATEST(${window.take}::int, 0)) OFFSET (SELECT ${skip}::int))
                WHEN ${constant(window.take >= 0)}
                THEN ids[COALESCE(at, 1) + ${skip}::int : COALESCE(at, 1) + ${skip}::int + ${window.take}::int - 1]
                ELSE ids[COALESCE(at, total) - ${skip}::int + ${window.take}::int + 1 : COALESCE(at, total) - ${skip}::int]
           END AS page
      FROM placed, walk`;
}

/**
 * A condition decided before the statement is sent, written into it: each
 * value makes a statement of its own, whose branches PostgreSQL prunes when
 * it plans it, so that it can keep one (generic) plan for the statement.
 */
export const constant = (value: boolean): Prisma.Sql => Prisma.raw(value ? "TRUE" : "FALSE");

/** The number of courses matching `args` (with `q`). */
export async function titleSearchTotal(prisma: ReadClient, args: CourseFilterArgs): Promise<number> {
  return (await titleSearch(prisma, args, { skip: 0, take: 0 }))?.total ?? 0;
}
