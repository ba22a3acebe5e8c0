/**
 * Title search (`q`) answers exactly CONTRACT §3's rule, a case-insensitive
 * substring of the Chinese or English title, for every term: generated terms
 * of 1 to 8 characters (Chinese, English, mixed; `%`, `_` and `\`; upper and
 * lower case; full-width forms), with and without the school and semester
 * filters, on several pages, against a plain ILIKE scan of the same courses
 * (items, their order and `total`), over the titles of the demo generator and
 * of the million-course `taiwan` dataset's. The search reads the import's index of
 * title pieces (src/import/title-grams.ts, src/schema/title-search.ts); the
 * scan reads every course.
 *
 * The same comparison run on searches that differ from the rule (case
 * sensitive, LIKE wildcards left active, lower-cased by JavaScript, only the
 * Chinese title) fails, so the terms reach every way of getting it wrong.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCourses } from "../../src/demo/courses.js";
import { DEMO_UNIVERSITIES } from "../../src/demo/index.js";
import { taiwanExportChunks } from "../../src/demo/taiwan.js";
import type { Database } from "../../src/db/driver.js";
import type { ExportCourse } from "../../src/demo/types.js";
import { exportDocument } from "../../src/import/records.js";
import { createReadClient, type QueryEvent } from "../../src/db/client.js";
import { type CourseFilterArgs, HEAD, titleSearch, titleSearchStatement } from "../../src/schema/title-search.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { plansOf } from "../support/plans.js";

/** Titles that hold what a search can get wrong, beside the generated ones. */
const CRAFTED: [string | null, string | null, boolean?][] = [
  ["100% 英文", "English_Only"],
  ["C\\語言", "Back\\slash C"],
  ["ＡＩ導論", "ＡＩ Ｉntro"],
  ["AI人工智慧", "Artificial Intelligence (AI)"],
  ["資料_結構", "Data%Structures"],
  ["𠀋字研究", null],
  [null, "Ünïcode Straße ΣΑΣ"],
  ["İstanbul 研究", "İSTANBUL studies"],
  ["資料科學", "Private Data Science", false],
  [null, null],
];

function catalogue(): unknown {
  const universities = DEMO_UNIVERSITIES.map((u) => ({ ...u }));
  // The demo's varied titles, and those of the taiwan dataset (src/demo/taiwan.ts: every school's own departments), ids apart.
  const taiwan = JSON.parse([...taiwanExportChunks({ courses: 1_500, schools: 15, packs: 0, days: 0 })].join("")) as {
    courses: ExportCourse[];
  };
  const courses: ExportCourse[] = [
    ...buildCourses(43, universities.slice(0, 4), 400, { titles: "varied" }),
    ...taiwan.courses.map((c) => ({ ...c, id: c.id + 100_000 })),
  ];
  let id = Math.max(...courses.map((c) => c.id));
  const template = courses[0]!;
  CRAFTED.forEach(([zh, en, isPublic], i) => {
    for (const semester of ["113-1", "112-2"]) {
      courses.push({
        ...template,
        id: ++id,
        university_id: universities[i % 4]!.id,
        course_number: `X${id}`,
        semester,
        course_name_chinese: zh ?? undefined,
        course_name_english: en ?? undefined,
        is_public: isPublic === false ? 0 : 1,
      });
    }
  });
  return exportDocument(new Date("2026-11-27T00:00:00Z"), { universities, courses });
}

interface Search {
  q: string;
  university?: string;
  semester?: string;
  page: number;
  pageSize: number;
}

interface Found {
  ids: number[];
  total: number;
}

let t: TestGateway;
let titles: string[];
beforeAll(async () => {
  t = await testGateway(catalogue());
  const rows = await t.db.query<{ zh: string | null; en: string | null }>(
    "SELECT course_name_chinese AS zh, course_name_english AS en FROM course",
  );
  titles = rows.flatMap((r) => [r.zh, r.en]).filter((v): v is string => v !== null);
}, 60_000);
afterAll(() => t?.close());

const FULL_WIDTH = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
const flip = (s: string) => [...s].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join("");

/** Terms: pieces of real titles (which match), and strings of their characters and LIKE's own (which mostly do not), in every case and width. */
const terms = () => {
  const characters = [...new Set([...titles.join(""), "%", "_", "\\", "a", "Z", "ｉ", "Ａ"])].filter((c) => c.trim() !== "");
  const pieceOf = (from: string[]) =>
    fc
      .record({ title: fc.constantFrom(...from), start: fc.nat(), length: fc.integer({ min: 1, max: 8 }) })
      .map(({ title, start, length }) => {
        const chars = [...title];
        const at = start % chars.length;
        return chars.slice(at, at + length).join("");
      });
  const piece = fc.oneof(
    { arbitrary: pieceOf(titles), weight: 2 },
    { arbitrary: pieceOf(CRAFTED.flatMap(([zh, en]) => [zh ?? "", en ?? ""]).filter(Boolean)), weight: 1 },
  );
  const made = fc.array(fc.constantFrom(...characters), { minLength: 1, maxLength: 8 }).map((cs) => cs.join(""));
  // A piece with one character made `%`, `_` or `\`: taken literally it matches little, as a wildcard much.
  const wild = fc.record({ piece, at: fc.nat(), by: fc.constantFrom("%", "_", "\\") }).map(({ piece, at, by }) => {
    const chars = [...piece];
    chars[at % chars.length] = by;
    return chars.join("");
  });
  return fc
    .oneof({ arbitrary: piece, weight: 3 }, { arbitrary: wild, weight: 1 }, { arbitrary: made, weight: 1 })
    .chain((q) => fc.constantFrom(q, q.toUpperCase(), q.toLowerCase(), flip(q), FULL_WIDTH(q)))
    .filter((q) => q.trim() !== "");
};

const searches = () =>
  fc.record(
    {
      q: terms(),
      university: fc.constantFrom(undefined, "NTU", "nthu", "國立成功大學"),
      semester: fc.constantFrom(undefined, "113-1", "112-2"),
      page: fc.integer({ min: 1, max: 3 }),
      pageSize: fc.constantFrom(1, 7, 20, 100),
    },
    { requiredKeys: ["q", "page", "pageSize"] },
  );

/** The rule as a plain scan of every course: an ILIKE of the term, its LIKE characters taken literally. */
function scan(
  s: Search,
  compare: (column: string) => string = (column) => `${column} ILIKE ('%' || $1 || '%')`,
  db: Database = t.db,
): Promise<Found> {
  const escaped = s.q.replace(/[\\%_]/g, (c) => `\\${c}`);
  return scanWith(s, escaped, compare, db);
}

async function scanWith(s: Search, needle: string, compare: (column: string) => string, db: Database = t.db): Promise<Found> {
  const rows = await db.query<{ id: number }>(
    `SELECT c.id FROM course c JOIN university u ON u.id = c.university_id
      WHERE c.is_public AND (${compare("c.course_name_chinese")} OR ${compare("c.course_name_english")})
        AND ($2::text IS NULL OR u.code_key = lower($2) OR u.name_zh = $2)
        AND ($3::text IS NULL OR c.semester = $3)
      ORDER BY c.semester DESC, c.id`,
    [needle, s.university ?? null, s.semester ?? null],
  );
  const all = rows.map((r) => r.id);
  return { ids: all.slice((s.page - 1) * s.pageSize, s.page * s.pageSize), total: all.length };
}

/** The gateway's REST answer. */
async function rest(s: Search): Promise<Found> {
  const params = new URLSearchParams({ q: s.q, page: String(s.page), page_size: String(s.pageSize) });
  if (s.university) params.set("university", s.university);
  if (s.semester) params.set("semester", s.semester);
  const response = await t.gateway.fetch(`http://gateway.test/api/v1/courses?${params}`);
  const body = (await response.json()) as { items: { id: number }[]; total: number };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return { ids: body.items.map((c) => c.id), total: body.total };
}

const agree = (search: (s: Search) => Promise<Found>, reference: (s: Search) => Promise<Found> = scan) =>
  fc.asyncProperty(searches(), async (s) => {
    expect(await search(s)).toEqual(await reference(s));
  });

describe("title search", () => {
  it("answers what an ILIKE scan answers, for generated terms of 1 to 8 characters, filters and pages", async () => {
    await fc.assert(agree(rest), { numRuns: 300, seed: 43 });
  }, 120_000);

  it("a common long term's front pages, which walk the list of all courses, are the scan's", async () => {
    // The most common words of three letters or more, and pieces of them: terms that many courses hold, whose first
    // pages are found by walking the list of all courses in order (src/schema/title-search.ts) rather than from every match.
    const counts = new Map<string, number>();
    for (const title of titles)
      for (const word of new Set(title.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu))) counts.set(word, (counts.get(word) ?? 0) + 1);
    const common = [...counts]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 6)
      .map(([word]) => word);
    const terms = common.flatMap((word) => [word, word.toUpperCase(), [...word].slice(1, 4).join("")]);
    const [{ n } = { n: 0 }] = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM course WHERE is_public");
    let walked = 0;
    for (const q of terms) {
      for (const pageSize of [1, 7, 20, 100]) {
        for (const page of [1, 2, 4]) {
          const expected = await scan({ q, page, pageSize });
          expect(await rest({ q, page, pageSize }), `${q} page ${page} of ${pageSize}`).toEqual(expected);
          if (expected.total ** 2 > page * pageSize * n) walked++;
        }
      }
      const first = await t.graphql(`query ($q: String) { courses(q: $q, first: 7) { totalCount nodes { databaseId } } }`, { q });
      const expected = await scan({ q, page: 1, pageSize: 7 });
      expect(first.data).toEqual({ courses: { totalCount: expected.total, nodes: expected.ids.map((databaseId) => ({ databaseId })) } });
    }
    expect(walked).toBeGreaterThan(20);
  }, 60_000);

  it("over GraphQL too: the courses connections' nodes, cursors and totalCount are the scan's, a school's included", async () => {
    const run = fc.asyncProperty(searches(), fc.integer({ min: 1, max: 5 }), fc.nat(), fc.boolean(), async (s, size, at, backwards) => {
      const expected = await scan({ ...s, page: 1, pageSize: 100_000 });
      // `University.courses` answers for a school named by its code (`ref` takes no Chinese name).
      const school = s.university !== undefined && /^[a-z]+$/i.test(s.university);
      const page = async (args: string, ofSchool: boolean) => {
        const variables = { q: s.q, u: s.university ?? null, s: s.semester ?? null };
        const fields = `totalCount edges { cursor node { databaseId } }`;
        const body = ofSchool
          ? await t.graphql(
              `query ($q: String, $u: String!, $s: String) { university(ref: $u) { courses(q: $q, semester: $s, ${args}) { ${fields} } } }`,
              variables,
            )
          : await t.graphql(
              `query ($q: String, $u: String, $s: String) { courses(q: $q, university: $u, semester: $s, ${args}) { ${fields} } }`,
              variables,
            );
        expect(body.errors).toBeUndefined();
        type Connection = { totalCount: number; edges: { cursor: string; node: { databaseId: number } }[] };
        const connection = (ofSchool ? body.data!.university.courses : body.data!.courses) as Connection;
        return {
          total: connection.totalCount,
          ids: connection.edges.map((e) => e.node.databaseId),
          cursors: connection.edges.map((e) => e.cursor),
        };
      };
      for (const ofSchool of school ? [false, true] : [false]) {
        const first = await page(backwards ? `last: ${size}` : `first: ${size}`, ofSchool);
        const want = backwards ? expected.ids.slice(Math.max(0, expected.ids.length - size)) : expected.ids.slice(0, size);
        expect({ ids: first.ids, total: first.total }).toEqual({ ids: want, total: expected.total });
        if (first.cursors.length === 0) continue;
        // From a cursor of that page, on through the list (or back).
        const from = at % first.cursors.length;
        const place = expected.ids.indexOf(first.ids[from]!);
        const next = await page(
          backwards ? `last: ${size}, before: "${first.cursors[from]}"` : `first: ${size}, after: "${first.cursors[from]}"`,
          ofSchool,
        );
        const wantNext = backwards ? expected.ids.slice(Math.max(0, place - size), place) : expected.ids.slice(place + 1, place + 1 + size);
        expect(next.ids).toEqual(wantNext);
      }
    });
    await fc.assert(run, { numRuns: 150, seed: 43 });
  }, 120_000);

  it("a search that differs from the rule fails the same comparison", async () => {
    const differs = async (search: (s: Search) => Promise<Found>) => (await fc.check(agree(search), { numRuns: 2000, seed: 43 })).failed;
    const caseSensitive = (s: Search) => scan(s, (column) => `${column} LIKE ('%' || $1 || '%')`);
    const wildcardsActive = (s: Search) => scanWith(s, s.q, (column) => `${column} ILIKE ('%' || $1 || '%')`);
    const lowerCasedByJavaScript = (s: Search) =>
      scanWith(
        s,
        s.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`),
        (column) => `lower(${column}) LIKE ('%' || $1 || '%')`,
      );
    const chineseOnly = (s: Search) => scan(s, (column) => (column.endsWith("english") ? "false" : `${column} ILIKE ('%' || $1 || '%')`));
    expect(await differs(caseSensitive), "case sensitive").toBe(true);
    expect(await differs(wildcardsActive), "wildcards active").toBe(true);
    expect(await differs(lowerCasedByJavaScript), "lower-cased by JavaScript").toBe(true);
    expect(await differs(chineseOnly), "Chinese title only").toBe(true);
  }, 120_000);
});

describe("the title search's statement", () => {
  it.each<[string, CourseFilterArgs]>([
    ["a word's piece", { q: "learn" }],
    ["two words", { q: "machine learning" }],
    ["two characters", { q: "資料" }],
    ["three words", { q: "intro to data" }],
    ["two characters in a school", { q: "資料", universityId: 1 }],
  ])("%s: PostgreSQL plans it once, and keeps that plan (its generic one) for every later search of the kind", async (_name, args) => {
    const events: QueryEvent[] = [];
    const prisma = createReadClient(t.db, { onQuery: (e) => events.push(e) });
    try {
      await titleSearch(prisma, args, { skip: 0, take: 20 });
    } finally {
      await prisma.$disconnect();
    }
    expect(events).toHaveLength(1);
    // Five runs planned for their parameters, then the generic plan, chosen because it costs no more.
    expect(await plansOf(t.db, events[0]!)).toEqual({ generic: 3, custom: 5 });
  });
});

describe("the title search's statement over 20,000 courses", () => {
  let large: TestGateway;
  beforeAll(async () => {
    large = await testGateway(JSON.parse([...taiwanExportChunks({ courses: 20_000, schools: 15, packs: 0, days: 0 })].join("")));
  }, 120_000);
  afterAll(() => large?.close());

  it.each<[string, CourseFilterArgs]>([["two letters", { q: "ai" }]])(
    "%s: its generic plan, once the page's size and place are no longer estimated from the parameters",
    async (_name, args) => {
      const events: QueryEvent[] = [];
      const prisma = createReadClient(large.db, { onQuery: (e) => events.push(e) });
      try {
        await titleSearch(prisma, args, { skip: 0, take: 20 });
      } finally {
        await prisma.$disconnect();
      }
      expect(events).toHaveLength(1);
      // With LIMIT and OFFSET as parameters, a plan for a page of 20 always looked cheaper: { generic: 0, custom: 8 }.
      expect(await plansOf(large.db, events[0]!)).toEqual({ generic: 3, custom: 5 });
    },
  );

  it("two letters held by more courses than the head kept of their list: the total and each page around the head's end are the scan's", async () => {
    const { ids: all } = await scan({ q: "ai", page: 1, pageSize: Number.MAX_SAFE_INTEGER }, undefined, large.db);
    expect(all.length).toBeGreaterThan(HEAD + 100);
    const prisma = createReadClient(large.db);
    try {
      const windows: [number, number][] = [
        [0, 0],
        [0, 20],
        [HEAD - 20, 20],
        [HEAD - 19, 20],
        [HEAD, 20],
        [HEAD - 1, 100],
        [all.length - 5, 20],
      ];
      for (const [skip, take] of windows) {
        expect(await titleSearch(prisma, { q: "AI" }, { skip, take }), `skip ${skip}, take ${take}`).toEqual({
          total: all.length,
          ids: all.slice(skip, skip + take),
        });
      }
      // Backwards from a cursor past the head, as a GraphQL `last:` page asks.
      const cursor = all[HEAD + 10]!;
      expect(await titleSearch(prisma, { q: "ai" }, { cursor, skip: 1, take: -20 })).toEqual({
        total: all.length,
        ids: all.slice(HEAD + 10 - 20, HEAD + 10),
      });
    } finally {
      await prisma.$disconnect();
    }
  });

  it("a front page reads the head kept beside the piece's list, not the list out of line; a page past the head reads the list", async () => {
    /** The blocks of course_gram's out-of-line values (the lists) that five runs of a search's statement read, as its backend counts them. */
    const listBlocksRead = (window: { skip: number; take: number }): Promise<number> => {
      const statement = titleSearchStatement({ q: "ai" }, window);
      const fetched = "SELECT pg_stat_get_xact_blocks_fetched(reltoastrelid)::int AS n FROM pg_class WHERE relname = 'course_gram'";
      return large.db.transaction(async (tx) => {
        const [before] = await tx.query<{ n: number }>(fetched);
        for (let n = 0; n < 5; n++) await tx.query(statement.text, statement.values);
        const [after] = await tx.query<{ n: number }>(fetched);
        return after!.n - before!.n;
      });
    };
    expect(await listBlocksRead({ skip: 0, take: 20 })).toBe(0);
    expect(await listBlocksRead({ skip: HEAD - 20, take: 20 })).toBe(0);
    expect(await listBlocksRead({ skip: HEAD, take: 20 })).toBeGreaterThan(0);
  });
});
