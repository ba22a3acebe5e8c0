-- Title search for a term of three characters or more without a space or
-- ASCII punctuation (`learning`, `資料結構`, issue 54): each word of three
-- characters or more of the public courses' lower-cased titles (a run between
-- ASCII whitespace and punctuation, which lower-casing never makes or
-- unmakes), with the ids of its courses in the default order (semester
-- descending, then id) and of its titles. Such a term lies within a word of
-- every title that holds it, so the words that hold it give its titles with
-- no title read; when one word holds it, that word's list is the answer as it
-- is (src/import/title-grams.ts, src/schema/title-search.ts).
CREATE TABLE "course_word" (
    "word" TEXT NOT NULL,
    "courses" INTEGER[],
    "titles" INTEGER[],
    CONSTRAINT "course_word_pkey" PRIMARY KEY ("word")
);
ALTER TABLE "course_word" ALTER COLUMN "courses" SET STORAGE EXTERNAL;
ALTER TABLE "course_word" ALTER COLUMN "titles" SET STORAGE EXTERNAL;

-- Courses imported before this migration: the same words, cut in SQL (the
-- importer cuts them in Node; a test compares the two).
WITH words AS (
  SELECT DISTINCT t.id, w.word
    FROM "course_title" t
   CROSS JOIN LATERAL (VALUES (lower(t.name_zh)), (lower(t.name_en))) AS x(text)
   CROSS JOIN LATERAL unnest(string_to_array(translate(x.text, E'\t\n\013\f\r!"#$%&''()*+,-./:;<=>?@[\\]^_`{|}~', repeat(' ', 37)), ' ')) AS w(word)
   WHERE char_length(w.word) >= 3
),
titles AS (SELECT word, array_agg(id ORDER BY id) AS titles FROM words GROUP BY word),
courses AS (
  SELECT w.word, array_agg(s.id ORDER BY s.semester DESC, s.id) AS courses
    FROM words w JOIN "course_search" s ON s.title_id = w.id
   GROUP BY w.word
)
INSERT INTO "course_word" ("word", "courses", "titles")
SELECT t.word, c.courses, t.titles FROM titles t JOIN courses c ON c.word = t.word;

-- Made after the rows, so that it holds them with no pending list to read.
CREATE INDEX "course_word_word_trgm_idx" ON "course_word" USING gin ("word" gin_trgm_ops);
