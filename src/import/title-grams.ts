/**
 * The indexes of title searches.
 *
 * `course_gram`: for each piece of one or two characters that some public
 * course's title holds, the ids of those courses, in the default order (newest
 * semester first, then by id), and the ids of those titles (`course_title`). A
 * search for a term of one or two characters (`熱`, `資料`, `AI`) reads one row
 * of it, where a trigram index cannot help and every title would be read
 * (issue 43).
 *
 * `course_gram_school`: each piece's list of courses split by school, each
 * part in the same order. A search within one school reads its piece's part
 * there, never the piece's courses in every school.
 *
 * `course_word`: the same lists for each word of three characters or more (a
 * run between ASCII whitespace and punctuation). A longer term without such a
 * character lies within a word of each title that holds it, so the words that
 * hold the term give its titles, and its courses when one word does (issue 54).
 *
 * `course_pair`: the same lists for each pair of adjacent words (of any
 * length) with the run of ASCII whitespace and punctuation between them
 * (`machine learning`, `c++ primer`). A term with one such run
 * between two other characters lies within one pair of each title that holds
 * it, so the pairs that hold the term give its titles, and its courses when
 * one pair does.
 *
 * Exactly CONTRACT §3's rule, a case-insensitive substring of either title:
 * PostgreSQL's ILIKE on UTF-8 compares `lower(title)` with `lower(term)`, so the
 * pieces and words are cut from titles lower-cased by PostgreSQL itself, and a
 * search looks up `lower(term)`. A title holds a term of at most two characters
 * exactly when that term is one of its pieces. Neither spans the Chinese and
 * the English title (src/schema/title-search.ts searches).
 *
 * Rebuilt by every import from `course_title` and `course_search`
 * (src/import/courses.ts); the pieces are cut here rather than in SQL, which
 * took 15 s for 100,000 courses where this takes 2.4 to 2.8.
 */
import type { Database } from "../db/driver.js";

/** The longest term, in characters (after lower-casing), that the pieces answer. */
export const GRAM_CHARS = 2;

/** Text sent per statement while writing the index. */
const BATCH_CHARS = 1_000_000;

/**
 * What ends a word: ASCII whitespace and punctuation. Lower-casing (by
 * PostgreSQL or JavaScript) never turns another character into one of these,
 * nor one of these into another, so a term without them, lower-cased, has
 * none either. The migration that first filled `course_word` cuts at the same
 * characters (20261128110000_course_words).
 */
export const WORD_BREAK = /[\t-\r !-/:-@[-`{-~]/;

/** The shortest word kept: a shorter term is answered by its pieces. */
const WORD_CHARS = GRAM_CHARS + 1;

/** The distinct words of three characters or more of each text. */
function wordsOf(texts: readonly (string | null)[]): Set<string> {
  const words = new Set<string>();
  for (const text of texts) {
    if (text === null) continue;
    for (const word of text.split(WORD_BREAK)) if ([...word].length >= WORD_CHARS) words.add(word);
  }
  return words;
}

/** A run of the characters that end a word, kept by `split`. */
export const BREAK_RUN = new RegExp(`(${WORD_BREAK.source}+)`);

/** The distinct pairs of adjacent words of each text, each with the run between them. */
function pairsOf(texts: readonly (string | null)[]): Set<string> {
  const pairs = new Set<string>();
  for (const text of texts) {
    if (text === null) continue;
    // Words at even places, each run between two at the odd place between them; an empty word at either end.
    const parts = text.split(BREAK_RUN);
    for (let i = 0; i + 2 < parts.length; i += 2) if (parts[i] && parts[i + 2]) pairs.add(parts[i]! + parts[i + 1]! + parts[i + 2]!);
  }
  return pairs;
}

/** The distinct pieces of one or two characters of each text, never across two of them. */
function gramsOf(texts: readonly (string | null)[]): Set<string> {
  const grams = new Set<string>();
  for (const text of texts) {
    if (text === null) continue;
    let previous: string | undefined;
    // By code point, as PostgreSQL counts characters.
    for (const char of text) {
      grams.add(char);
      if (previous !== undefined) grams.add(previous + char);
      previous = char;
    }
  }
  return grams;
}

/**
 * The lists' entries built at once, at most (4 bytes each): a million courses
 * hold about 74 million, so their lists are built and written a range of
 * pieces at a time, which keeps the importer's memory bounded (issue 54).
 */
const LIST_BUDGET = 8_000_000;

/** Each title's pieces, by number, in one array: those of title `id` are `pieces[start[id]]` to `pieces[start[id + 1] - 1]`. */
interface TitlePieces {
  start: Int32Array;
  pieces: Int32Array;
}

/** The courses an index is built from: the public courses' ids in the default order, and each one's title and school. */
interface Courses {
  courseIds: Int32Array;
  courseTitles: Int32Array;
  courseSchools: Int32Array;
}

/** The keys (pieces, words or pairs) cut from the titles: each key once, and each title's keys by number. */
interface Keys {
  keys: string[];
  titleIds: Int32Array;
  byTitle: TitlePieces;
}

/**
 * Rebuilds `course_gram`, `course_gram_school`, `course_word` and
 * `course_pair` from `course_title` and `course_search`, inside the import's
 * transaction, building at most about `budget` list entries at once. The titles' text is let go once all three sets
 * of keys are cut from it, before any list is built.
 */
export async function rebuildTitleIndexes(tx: Pick<Database, "exec" | "query">, budget = LIST_BUDGET): Promise<void> {
  await tx.exec("DELETE FROM course_gram; DELETE FROM course_gram_school; DELETE FROM course_word; DELETE FROM course_pair");
  const [grams, words, pairs] = await cutKeys(tx);
  const courses = await readCourses(tx);
  await writeIndex(tx, "course_gram", "gram", grams, courses, budget, true);
  await writeIndex(tx, "course_word", "word", words, courses, budget, false);
  await writeIndex(tx, "course_pair", "pair", pairs, courses, budget, false);
}

/** The pieces, the words and the pairs of words of every title. */
async function cutKeys(tx: Pick<Database, "query">): Promise<[Keys, Keys, Keys]> {
  const titles = await tx.query<{ id: number; zh: string | null; en: string | null }>(
    "SELECT id, lower(name_zh) AS zh, lower(name_en) AS en FROM course_title ORDER BY id",
  );
  const titleIds = Int32Array.from(titles, (t) => t.id);
  const maxId = titles.reduce((max, t) => Math.max(max, t.id), 0);
  const cut = (keysOf: (texts: readonly (string | null)[]) => Set<string>): Keys => {
    const numbers = new Map<string, number>();
    const keys: string[] = [];
    const start = new Int32Array(maxId + 2);
    let pieces = new Int32Array(1024);
    let used = 0;
    for (const title of titles) {
      start[title.id] = used;
      for (const key of keysOf([title.zh, title.en])) {
        let n = numbers.get(key);
        if (n === undefined) {
          n = keys.push(key) - 1;
          numbers.set(key, n);
        }
        if (used === pieces.length) {
          const grown = new Int32Array(pieces.length * 2);
          grown.set(pieces);
          pieces = grown;
        }
        pieces[used++] = n;
      }
      start[title.id + 1] = used;
    }
    return { keys, titleIds, byTitle: { start, pieces: pieces.slice(0, used) } };
  };
  return [cut(gramsOf), cut(wordsOf), cut(pairsOf)];
}

/** The public courses in the default order, with their titles and schools. */
async function readCourses(tx: Pick<Database, "query">): Promise<Courses> {
  const [ordered] = await tx.query<{ ids: number[] | null; titles: number[] | null; schools: number[] | null }>(
    `SELECT array_agg(id ORDER BY semester DESC, id) AS ids, array_agg(title_id ORDER BY semester DESC, id) AS titles,
            array_agg(university_id ORDER BY semester DESC, id) AS schools
       FROM course_search`,
  );
  return {
    courseIds: Int32Array.from(ordered?.ids ?? []),
    courseTitles: Int32Array.from(ordered?.titles ?? []),
    courseSchools: Int32Array.from(ordered?.schools ?? []),
  };
}

/**
 * Writes the lists of `table`: for each key, its courses (in the default
 * order) and titles (by id); `bySchool`, also each key's courses split by
 * school (`course_gram_school`).
 */
async function writeIndex(
  tx: Pick<Database, "query">,
  table: "course_gram" | "course_word" | "course_pair",
  key: "gram" | "word" | "pair",
  { keys: grams, titleIds, byTitle }: Keys,
  { courseIds, courseTitles, courseSchools }: Courses,
  budget: number,
  bySchool: boolean,
): Promise<void> {
  // Each piece's courses (in the default order) and titles (by id), a range of pieces at a time.
  const courseSizes = sizes(grams.length, byTitle, courseTitles);
  const titleSizes = sizes(grams.length, byTitle, titleIds);
  let batch = { grams: [] as string[], courses: [] as string[], titles: [] as string[], chars: 0 };
  const flush = async () => {
    if (batch.grams.length === 0) return;
    await tx.query(
      `INSERT INTO ${table} (${key}, courses, titles)
       SELECT g, c::int[], t::int[] FROM unnest($1::text[], $2::text[], $3::text[]) AS u(g, c, t)`,
      [batch.grams, batch.courses, batch.titles],
    );
    batch = { grams: [], courses: [], titles: [], chars: 0 };
  };
  let parts = { grams: [] as string[], schools: [] as number[], courses: [] as string[], chars: 0 };
  const flushParts = async () => {
    if (parts.grams.length === 0) return;
    await tx.query(
      `INSERT INTO course_gram_school (gram, university_id, courses)
       SELECT g, s, c::int[] FROM unnest($1::text[], $2::int[], $3::text[]) AS u(g, s, c)`,
      [parts.grams, parts.schools, parts.courses],
    );
    parts = { grams: [], schools: [], courses: [], chars: 0 };
  };
  for (let from = 0; from < grams.length; ) {
    let to = from;
    let entries = 0;
    do entries += courseSizes[to]! + titleSizes[to++]!;
    while (to < grams.length && entries + courseSizes[to]! + titleSizes[to]! <= budget);
    // Positions in the default order, which give each course's id and school.
    const courses = lists(from, to, courseSizes, byTitle, courseTitles, null);
    const titleLists = lists(from, to, titleSizes, byTitle, titleIds, titleIds);
    for (let n = from; n < to; n++) {
      const positions = courses[n - from]!;
      const [courseList, titleList] = [`{${positions.map((at) => courseIds[at]!).join(",")}}`, `{${titleLists[n - from]!.join(",")}}`];
      batch.grams.push(grams[n]!);
      batch.courses.push(courseList);
      batch.titles.push(titleList);
      batch.chars += courseList.length + titleList.length;
      if (batch.chars >= BATCH_CHARS) await flush();
      if (!bySchool) continue;
      for (const [school, list] of splitBySchool(positions, courseIds, courseSchools)) {
        const text = `{${list.join(",")}}`;
        parts.grams.push(grams[n]!);
        parts.schools.push(school);
        parts.courses.push(text);
        parts.chars += text.length;
        if (parts.chars >= BATCH_CHARS) await flushParts();
      }
    }
    from = to;
  }
  await flush();
  await flushParts();
}

/** The ids of the courses at `positions` (in the default order), by school, each school's in the same order. */
function splitBySchool(positions: Int32Array, courseIds: Int32Array, courseSchools: Int32Array): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const at of positions) {
    const school = courseSchools[at]!;
    const list = out.get(school);
    if (list) list.push(courseIds[at]!);
    else out.set(school, [courseIds[at]!]);
  }
  return out;
}

/** How many of the items (each a title id, in `titleOf`) hold each of `count` pieces. */
function sizes(count: number, byTitle: TitlePieces, titleOf: Int32Array): Int32Array {
  const out = new Int32Array(count);
  for (const title of titleOf) {
    for (let i = byTitle.start[title]!; i < byTitle.start[title + 1]!; i++) out[byTitle.pieces[i]!]!++;
  }
  return out;
}

/**
 * For pieces `from` to `to - 1`, the ids (`idOf`, or with null the positions
 * in `titleOf`) of the items whose title (`titleOf`) holds each, in the
 * items' order; each list allocated once, at its size.
 */
function lists(
  from: number,
  to: number,
  size: Int32Array,
  byTitle: TitlePieces,
  titleOf: Int32Array,
  idOf: Int32Array | null,
): Int32Array[] {
  const out = Array.from({ length: to - from }, (_, k) => new Int32Array(size[from + k]!));
  const filled = new Int32Array(to - from);
  for (let i = 0; i < titleOf.length; i++) {
    const title = titleOf[i]!;
    for (let j = byTitle.start[title]!; j < byTitle.start[title + 1]!; j++) {
      const k = byTitle.pieces[j]! - from;
      if (k >= 0 && k < to - from) out[k]![filled[k]!++] = idOf === null ? i : idOf[i]!;
    }
  }
  return out;
}
