-- What a front page of a short title search (`q=AI`, `q=熱`: one or two
-- characters, every school) reads (issue 68, item 3). Its total was the
-- length of the piece's whole list of courses, and its page a slice of it:
-- PostgreSQL reads an array whole to count or slice it, so each request
-- read the whole list (95,435 ids, 381 KB, for `ai` over 1,000,000 courses),
-- and the search grew with the courses. And the rarest piece of a longer
-- term was found by counting each piece's list of titles.
--
-- Kept with each row, computed by PostgreSQL as the row is written (by the
-- importer or by this migration): the lists' lengths, and the first 1,000
-- courses of the list (every page of 20 up to the 50th, of 100 up to the
-- 10th). A page within them reads 4 KB at most; a deeper page, or one after
-- a cursor, reads the whole list as before.
ALTER TABLE "course_gram"
    ADD COLUMN "courses_count" INTEGER NOT NULL GENERATED ALWAYS AS (COALESCE(cardinality("courses"), 0)) STORED,
    ADD COLUMN "titles_count" INTEGER NOT NULL GENERATED ALWAYS AS (COALESCE(cardinality("titles"), 0)) STORED,
    ADD COLUMN "head" INTEGER[] GENERATED ALWAYS AS (COALESCE("courses"[1:1000], '{}')) STORED;
-- Inline with the row: the head is what a front page reads, and the lists stay out of line.
ALTER TABLE "course_gram" ALTER COLUMN "head" SET STORAGE MAIN;
