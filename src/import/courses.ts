/**
 * Rebuilds what counting and searching public courses needs, inside the
 * import's transaction (the only writer of courses): `course_count` (public
 * courses per school and semester, which a course total without `q` sums),
 * `course_stat` (the rows of operation 4, for all schools as university 0 and
 * for each school), and `course_title` with `course_search` (each distinct
 * title pair with its number of courses, and each public course's pair, school
 * and semester: a title search matches pairs, then reads their courses), and
 * `course_place` (each public course's title and its place in the lists a page
 * is cut from: all courses, its school's, its semester's, and both; a page at
 * any depth reads by place, src/schema/course-places.ts, and a search for a
 * common term walks the first, src/schema/title-search.ts). The same arithmetic as the
 * live queries: every public course counts once, and an instructor is a
 * distinct non-null name (src/domain/course-stats.ts; a test compares the two
 * on every school).
 */
import type { Database } from "../db/driver.js";
import { rebuildTitleIndexes } from "./title-grams.js";

type Tx = Pick<Database, "exec" | "query">;

/** Rebuilds the five tables, and the title search's indexes of pieces and words, from the courses as they now are. */
export async function rebuildCourseSummaries(tx: Tx): Promise<void> {
  await tx.exec(`
    DELETE FROM course_count;
    INSERT INTO course_count (university_id, semester, courses)
    SELECT university_id, semester, count(*) FROM course WHERE is_public GROUP BY 1, 2;
    DELETE FROM course_stat;
    INSERT INTO course_stat (university_id, grouping, key, course_count, instructor_count)
    SELECT COALESCE(g.university_id, 0), g.grouping, g.key, count(*), count(DISTINCT g.instructor)
      FROM (
        SELECT c.university_id, x.grouping, x.key, c.instructor
          FROM course c
          JOIN university u ON u.id = c.university_id
         CROSS JOIN LATERAL (VALUES ('semester', c.semester), ('year', split_part(c.semester, '-', 1)), ('school', u.code)) AS x(grouping, key)
         WHERE c.is_public
      ) g
     GROUP BY GROUPING SETS ((g.university_id, g.grouping, g.key), (g.grouping, g.key));
    DELETE FROM course_search;
    DELETE FROM course_title;
    INSERT INTO course_title (id, name_zh, name_en, courses)
    SELECT t.title_id, min(t.course_name_chinese), min(t.course_name_english), count(*)
      FROM (SELECT dense_rank() OVER (ORDER BY course_name_chinese, course_name_english) AS title_id, course_name_chinese, course_name_english
              FROM course WHERE is_public) t
     GROUP BY t.title_id
     ORDER BY t.title_id;
    INSERT INTO course_search (id, title_id, university_id, semester)
    SELECT id, dense_rank() OVER (ORDER BY course_name_chinese, course_name_english), university_id, semester
      FROM course WHERE is_public;
    DELETE FROM course_place;
    INSERT INTO course_place (id, university_id, semester, title_id, in_all, in_school, in_semester, in_school_semester)
    SELECT id, university_id, semester, title_id,
           row_number() OVER (ORDER BY semester DESC, id),
           row_number() OVER (PARTITION BY university_id ORDER BY semester DESC, id),
           row_number() OVER (PARTITION BY semester ORDER BY id),
           row_number() OVER (PARTITION BY university_id, semester ORDER BY id)
      FROM course_search`);
  await rebuildTitleIndexes(tx);
}
