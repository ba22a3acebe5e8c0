/**
 * A database whose courses were imported before the course summaries existed
 * gets them from the migrations that add them (20261126000000_course_summaries,
 * 20261126010000_course_title_search, 20261127000000_course_grams,
 * 20261128000000_course_places, 20261128100000_course_title_walk,
 * 20261128110000_course_words, 20261128120000_course_gram_schools,
 * 20261128130000_course_pairs, 20261205020000_course_gram_heads), row for row what the importer builds
 * (src/import/courses.ts, src/import/title-grams.ts: the pieces and words of
 * titles cut in SQL and in Node alike); otherwise its totals, statistics and
 * searches would answer nothing until the next import.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { migrate, readMigrations } from "../../src/db/migrate.js";
import { rebuildCourseSummaries } from "../../src/import/courses.js";
import { rebuildTitleIndexes } from "../../src/import/title-grams.js";
import { freshDatabase } from "../support/databases.js";

const FIRST_NEW = "20261126000000_course_summaries";

const TABLES = {
  course_count: "SELECT * FROM course_count ORDER BY university_id, semester",
  course_stat: "SELECT * FROM course_stat ORDER BY university_id, grouping, key",
  course_title: "SELECT * FROM course_title ORDER BY id",
  course_search: "SELECT * FROM course_search ORDER BY id",
  course_place: "SELECT * FROM course_place ORDER BY id",
  course_gram: 'SELECT * FROM course_gram ORDER BY gram COLLATE "C"',
  course_gram_school: 'SELECT * FROM course_gram_school ORDER BY gram COLLATE "C", university_id',
  course_word: 'SELECT * FROM course_word ORDER BY word COLLATE "C"',
  course_pair: 'SELECT * FROM course_pair ORDER BY pair COLLATE "C"',
};

async function snapshot(db: Database): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, sql] of Object.entries(TABLES)) out[table] = await db.query(sql);
  return out;
}

let db: Database;
beforeAll(async () => {
  db = await freshDatabase();
  await db.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
}, 60_000);
afterAll(async () => {
  await db?.close();
});

it("fill the summaries of courses already imported exactly as the importer does", async () => {
  const all = readMigrations();
  const cut = all.findIndex((m) => m.name === FIRST_NEW);
  expect(cut).toBeGreaterThan(0);
  await migrate(db, all.slice(0, cut));
  // Courses as an earlier import left them: two schools, ties, a null instructor and title, a private course, LIKE
  // characters, upper case and full width, and a character outside the Basic Multilingual Plane.
  await db.exec(`
    INSERT INTO university (id, code, code_key, name_zh, country, timezone, latitude, longitude) VALUES
      (1, 'NTU', 'ntu', '國立臺灣大學', 'TW', 'Asia/Taipei', 25.0, 121.5),
      (2, 'UW', 'uw', '華盛頓大學', 'US', 'America/Los_Angeles', 47.6, -122.3);
    INSERT INTO course (id, university_id, semester, course_name_chinese, course_name_english, instructor, is_public) VALUES
      (1, 1, '113-1', '機器學習', 'Machine Learning', '甲', true),
      (2, 1, '113-1', '機器學習', 'Machine Learning', '乙', true),
      (3, 1, '112-2', '機器學習', 'Machine Learning', '甲', true),
      (4, 1, '113-1', '100% 英文', 'English_Only', NULL, true),
      (5, 2, '113-1', NULL, 'Machine Learning', '甲', true),
      (6, 2, '111-1', '機器學習', 'Machine Learning', '丙', false),
      (7, 2, '111-1', NULL, NULL, NULL, true),
      (8, 2, '113-2', 'ＡＩ與𠀋語言', 'AI and C\\_%', NULL, true),
      (9, 2, '113-2', '資料結構　與演算法', E'Data\tStructures/ALGORITHMS (I) ii;nbsp~end', NULL, true);
  `);
  expect(await migrate(db, all)).toEqual(all.slice(cut).map((m) => m.name));
  const migrated = await snapshot(db);
  expect(migrated.course_count).toHaveLength(5);
  expect(migrated.course_title).toHaveLength(6);
  expect(migrated.course_search).toHaveLength(8);
  const titleOf = (course: number) => (migrated.course_search as { id: number; title_id: number }[]).find((s) => s.id === course)!.title_id;
  // With each list's length and head, which PostgreSQL computes as the row is written (20261205020000_course_gram_heads).
  const kept = (courses: number[], titles: number[]) => ({
    courses,
    titles,
    courses_count: courses.length,
    titles_count: titles.length,
    head: courses,
  });
  expect(migrated.course_gram).toContainEqual({ gram: "ａｉ", ...kept([8], [titleOf(8)]) });
  expect(migrated.course_gram).toContainEqual({ gram: "與𠀋", ...kept([8], [titleOf(8)]) });
  expect(migrated.course_gram).toContainEqual({
    gram: "ma",
    ...kept(
      [1, 2, 5, 3],
      [titleOf(1), titleOf(5)].sort((a, b) => a - b),
    ),
  });
  // Split by school, each school's part in the same order.
  expect(migrated.course_gram_school).toContainEqual({ gram: "ma", university_id: 1, courses: [1, 2, 3] });
  expect(migrated.course_gram_school).toContainEqual({ gram: "ma", university_id: 2, courses: [5] });
  expect((migrated.course_gram_school ?? []).filter((row) => (row as { gram: string }).gram === "ma")).toHaveLength(2);
  // Words end at ASCII whitespace and punctuation only: an ideographic or no-break space is part of one.
  const words = (migrated.course_word as { word: string }[]).map((w) => w.word);
  expect(words).toEqual(
    expect.arrayContaining([
      "machine",
      "learning",
      "ａｉ與𠀋語言",
      "english",
      "only",
      "資料結構\u3000與演算法",
      "structures",
      "algorithms",
      "end",
    ]),
  );
  expect(words).toEqual(expect.arrayContaining(["and", "\u00a0ii", "nbsp"]));
  // Shorter words are not kept: a term of two characters is answered by its pieces.
  expect(words).not.toContain("ai");
  expect(migrated.course_word).toContainEqual({
    word: "machine",
    courses: [1, 2, 5, 3],
    titles: [titleOf(1), titleOf(5)].sort((a, b) => a - b),
  });
  // Pairs of adjacent words of any length, with the run between them as it is (a no-break space is part of a word).
  const pairs = (migrated.course_pair as { pair: string }[]).map((p) => p.pair);
  expect(pairs.sort()).toEqual(
    [
      "machine learning",
      "english_only",
      "100% 英文",
      "ai and",
      "and c",
      "data\tstructures",
      "structures/algorithms",
      "algorithms (i",
      "i)\u00a0ii",
      "\u00a0ii;nbsp",
      "nbsp~end",
    ].sort(),
  );
  expect(migrated.course_pair).toContainEqual({
    pair: "machine learning",
    courses: [1, 2, 5, 3],
    titles: [titleOf(1), titleOf(5)].sort((a, b) => a - b),
  });
  await db.transaction((tx) => rebuildCourseSummaries(tx));
  expect(await snapshot(db)).toEqual(migrated);
  // Built a piece at a time (the bounded memory a million courses need), the index is the same.
  await db.transaction((tx) => rebuildTitleIndexes(tx, 1));
  expect(await snapshot(db)).toEqual(migrated);
});
