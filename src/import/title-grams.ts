/**
 * The index of title searches: for each piece of one or two characters that
 * some public course's title holds, the ids of those courses, in the default
 * order (newest semester first, then by id), and the ids of those titles
 * (`course_title`). A search for a term of one or two characters (`熱`, `資料`,
 * `AI`) reads one row of it, where a trigram index cannot help and every title
 * would be read (issue 43); a longer term checks the titles of its rarest
 * piece only.
 *
 * Exactly CONTRACT §3's rule, a case-insensitive substring of either title:
 * PostgreSQL's ILIKE on UTF-8 compares `lower(title)` with `lower(term)`, so the
 * pieces are cut from titles lower-cased by PostgreSQL itself, and a search
 * looks up `lower(term)`. A title holds a term of at most two characters
 * exactly when that term is one of its pieces. A piece never spans the
 * Chinese and the English title (src/schema/title-search.ts searches).
 *
 * Rebuilt by every import from `course_title` and `course_search`
 * (src/import/courses.ts); the pieces are cut here rather than in SQL, which
 * took 15 s for 100,000 courses where this takes 2.4 to 2.8.
 */
import type { Database } from "../db/driver.js";

/** The longest term, in characters (after lower-casing), that the pieces answer. */
export const GRAM_CHARS = 2;

/** Text sent per statement while writing the index. */
const BATCH_CHARS = 4_000_000;

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

/** Rebuilds `course_gram` from `course_title` and `course_search`, inside the import's transaction. */
export async function rebuildTitleGrams(tx: Pick<Database, "exec" | "query">): Promise<void> {
  await tx.exec("DELETE FROM course_gram");
  const titles = await tx.query<{ id: number; zh: string | null; en: string | null }>(
    "SELECT id, lower(name_zh) AS zh, lower(name_en) AS en FROM course_title ORDER BY id",
  );
  const [ordered] = await tx.query<{ ids: number[] | null; titles: number[] | null }>(
    `SELECT array_agg(id ORDER BY semester DESC, id) AS ids, array_agg(title_id ORDER BY semester DESC, id) AS titles
       FROM course_search`,
  );
  const courseIds = ordered?.ids ?? [];
  const courseTitles = ordered?.titles ?? [];

  // Each title's pieces, as numbers; then each piece's courses (in the default order) and titles (by id).
  const gramNumber = new Map<string, number>();
  const grams: string[] = [];
  const titleGrams = new Map<number, Int32Array>();
  for (const title of titles) {
    const numbers = [...gramsOf([title.zh, title.en])].map((gram) => {
      let n = gramNumber.get(gram);
      if (n === undefined) {
        n = grams.push(gram) - 1;
        gramNumber.set(gram, n);
      }
      return n;
    });
    titleGrams.set(title.id, Int32Array.from(numbers));
  }
  const courses = lists(
    grams.length,
    courseIds.length,
    (i) => titleGrams.get(courseTitles[i]!),
    (i) => courseIds[i]!,
  );
  const titleLists = lists(
    grams.length,
    titles.length,
    (i) => titleGrams.get(titles[i]!.id),
    (i) => titles[i]!.id,
  );

  let batch = { grams: [] as string[], courses: [] as string[], titles: [] as string[], chars: 0 };
  const flush = async () => {
    if (batch.grams.length === 0) return;
    await tx.query(
      `INSERT INTO course_gram (gram, courses, titles)
       SELECT g, c::int[], t::int[] FROM unnest($1::text[], $2::text[], $3::text[]) AS u(g, c, t)`,
      [batch.grams, batch.courses, batch.titles],
    );
    batch = { grams: [], courses: [], titles: [], chars: 0 };
  };
  for (let n = 0; n < grams.length; n++) {
    const [courseList, titleList] = [`{${courses[n]!.join(",")}}`, `{${titleLists[n]!.join(",")}}`];
    batch.grams.push(grams[n]!);
    batch.courses.push(courseList);
    batch.titles.push(titleList);
    batch.chars += courseList.length + titleList.length;
    if (batch.chars >= BATCH_CHARS) await flush();
  }
  await flush();
}

/**
 * For each of `count` pieces, the ids of the `items` whose pieces (`piecesOf(i)`,
 * by number) include it, in the items' order: counted first, so that each
 * list is allocated once.
 */
function lists(count: number, items: number, piecesOf: (i: number) => Int32Array | undefined, idOf: (i: number) => number): Int32Array[] {
  const sizes = new Int32Array(count);
  for (let i = 0; i < items; i++) for (const n of piecesOf(i) ?? []) sizes[n]!++;
  const out = Array.from(sizes, (size) => new Int32Array(size));
  const filled = new Int32Array(count);
  for (let i = 0; i < items; i++) for (const n of piecesOf(i) ?? []) out[n]![filled[n]!++] = idOf(i);
  return out;
}
