-- Title search for terms of one or two characters (`熱`, `資料`, `AI`), which
-- no trigram serves: each piece of one or two characters of the public
-- courses' lower-cased titles, with the ids of its courses in the default
-- order (semester descending, then id). A search reads one row: its total is
-- the list's length, its page a slice (src/import/title-grams.ts).
-- The lists are stored uncompressed: a page slices them, and compressing
-- them at import gains little.
CREATE TABLE "course_gram" (
    "gram" TEXT NOT NULL,
    "courses" INTEGER[],
    CONSTRAINT "course_gram_pkey" PRIMARY KEY ("gram")
);
ALTER TABLE "course_gram" ALTER COLUMN "courses" SET STORAGE EXTERNAL;

-- A longer term now starts from the list of its rarest piece too; its titles
-- are checked one by one, or all of them once when that list is long, so the
-- trigram indexes of course_title serve nothing and only cost each import.
DROP INDEX "course_title_name_zh_trgm_idx";
DROP INDEX "course_title_name_en_trgm_idx";

-- Courses imported before this migration: the same pieces, cut in SQL (the
-- importer cuts them in Node, faster; a test compares the two).
INSERT INTO "course_gram" ("gram", "courses")
SELECT g.gram, array_agg(s.id ORDER BY s.semester DESC, s.id)
  FROM (SELECT DISTINCT t.id, substr(x.text, i, n) AS gram
          FROM "course_title" t
         CROSS JOIN LATERAL (VALUES (lower(t.name_zh)), (lower(t.name_en))) AS x(text)
         CROSS JOIN LATERAL generate_series(1, char_length(x.text)) AS i
         CROSS JOIN (VALUES (1), (2)) AS w(n)
         WHERE i + n - 1 <= char_length(x.text)) g
  JOIN "course_search" s ON s.title_id = g.id
 GROUP BY g.gram;
