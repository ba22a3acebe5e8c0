-- Title search for a phrase (`machine learning`, issue 54): each pair of
-- adjacent words (of any length) of the public courses' lower-cased titles,
-- with the run of ASCII whitespace and punctuation between them, with the ids
-- of its courses in the default order (semester descending, then id) and of
-- its titles. A term with one such run between two other characters lies
-- within one pair of each title that holds it, so the pairs that hold it give
-- its titles with no title read; when one pair holds it, that pair's list is
-- the answer as it is (src/import/title-grams.ts, src/schema/title-search.ts).
CREATE TABLE "course_pair" (
    "pair" TEXT NOT NULL,
    "courses" INTEGER[],
    "titles" INTEGER[],
    CONSTRAINT "course_pair_pkey" PRIMARY KEY ("pair")
);
ALTER TABLE "course_pair" ALTER COLUMN "courses" SET STORAGE EXTERNAL;
ALTER TABLE "course_pair" ALTER COLUMN "titles" SET STORAGE EXTERNAL;

-- Courses imported before this migration: the same pairs, cut in SQL (the
-- importer cuts them in Node; a test compares the two). Each title is cut into
-- words and runs on a copy with every such character made a space (the same
-- characters as 20261128110000_course_words), which keeps each one's place, so
-- that the runs are read from the title itself.
WITH tokens AS (
  SELECT t.id, x.k, r.n, r.m[1] AS shadow, x.text
    FROM "course_title" t
   CROSS JOIN LATERAL (VALUES (1, lower(t.name_zh)), (2, lower(t.name_en))) AS x(k, text)
   CROSS JOIN LATERAL regexp_matches(translate(x.text, E'\t\n\013\f\r!"#$%&''()*+,-./:;<=>?@[\\]^_`{|}~', repeat(' ', 37)), '[^ ]+| +', 'g')
        WITH ORDINALITY AS r(m, n)
   WHERE x.text IS NOT NULL
),
placed AS (
  SELECT id, k, n, shadow LIKE ' %' AS run,
         substr(text, (sum(char_length(shadow)) OVER (PARTITION BY id, k ORDER BY n))::int - char_length(shadow) + 1, char_length(shadow)) AS token
    FROM tokens
),
pairs AS (
  SELECT DISTINCT a.id, a.token || b.token || c.token AS pair
    FROM placed a
    JOIN placed b ON b.id = a.id AND b.k = a.k AND b.n = a.n + 1
    JOIN placed c ON c.id = a.id AND c.k = a.k AND c.n = a.n + 2
   WHERE NOT a.run AND b.run
),
titles AS (SELECT pair, array_agg(id ORDER BY id) AS titles FROM pairs GROUP BY pair),
courses AS (
  SELECT p.pair, array_agg(s.id ORDER BY s.semester DESC, s.id) AS courses
    FROM pairs p JOIN "course_search" s ON s.title_id = p.id
   GROUP BY p.pair
)
INSERT INTO "course_pair" ("pair", "courses", "titles")
SELECT t.pair, c.courses, t.titles FROM titles t JOIN courses c ON c.pair = t.pair;

-- Made after the rows, so that it holds them with no pending list to read.
CREATE INDEX "course_pair_pair_trgm_idx" ON "course_pair" USING gin ("pair" gin_trgm_ops);
