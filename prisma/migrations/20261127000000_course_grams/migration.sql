-- Title search for any term, and for terms of one or two characters (`熱`,
-- `資料`, `AI`), which no trigram serves: each piece of one or two characters
-- of the public courses' lower-cased titles, with the ids of its courses in the
-- default order (semester descending, then id) and of its titles. A term of
-- one or two characters reads its row: its total is the list's length, its
-- page a slice. A longer one checks the titles of its rarest piece
-- (src/import/title-grams.ts, src/schema/title-search.ts).
-- The lists are stored uncompressed: a page slices them, and compressing
-- them at import gains little.
CREATE TABLE "course_gram" (
    "gram" TEXT NOT NULL,
    "courses" INTEGER[],
    "titles" INTEGER[],
    CONSTRAINT "course_gram_pkey" PRIMARY KEY ("gram")
);
ALTER TABLE "course_gram" ALTER COLUMN "courses" SET STORAGE EXTERNAL;
ALTER TABLE "course_gram" ALTER COLUMN "titles" SET STORAGE EXTERNAL;

-- The trigram indexes of course_title serve nothing now, and only cost each import.
DROP INDEX "course_title_name_zh_trgm_idx";
DROP INDEX "course_title_name_en_trgm_idx";

-- Courses imported before this migration: the same pieces, cut in SQL (the
-- importer cuts them in Node, faster; a test compares the two).
WITH pieces AS (
  SELECT DISTINCT t.id, substr(x.text, i, n) AS gram
    FROM "course_title" t
   CROSS JOIN LATERAL (VALUES (lower(t.name_zh)), (lower(t.name_en))) AS x(text)
   CROSS JOIN LATERAL generate_series(1, char_length(x.text)) AS i
   CROSS JOIN (VALUES (1), (2)) AS w(n)
   WHERE i + n - 1 <= char_length(x.text)
),
titles AS (SELECT gram, array_agg(id ORDER BY id) AS titles FROM pieces GROUP BY gram),
courses AS (
  SELECT p.gram, array_agg(s.id ORDER BY s.semester DESC, s.id) AS courses
    FROM pieces p JOIN "course_search" s ON s.title_id = p.id
   GROUP BY p.gram
)
INSERT INTO "course_gram" ("gram", "courses", "titles")
SELECT t.gram, c.courses, t.titles FROM titles t JOIN courses c ON c.gram = t.gram;
