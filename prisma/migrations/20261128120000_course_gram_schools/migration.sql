-- A school's title search (`University.courses(q:)`, `/courses?university=…&q=…`,
-- issue 54): each piece of `course_gram` split by school, with the ids of that
-- school's courses that hold it, in the default order (semester descending,
-- then id). A term of one or two characters in one school reads its row, as
-- a search of every school reads the piece's row of `course_gram`: its total
-- is the list's length, its page a slice. A longer term checks the courses of
-- its rarest piece in the school, at most the school's courses
-- (src/import/title-grams.ts, src/schema/title-search.ts).
CREATE TABLE "course_gram_school" (
    "gram" TEXT NOT NULL,
    "university_id" INTEGER NOT NULL,
    "courses" INTEGER[]
);
ALTER TABLE "course_gram_school" ALTER COLUMN "courses" SET STORAGE EXTERNAL;

-- Courses imported before this migration: each piece's list of courses, split
-- by the school of each course, keeping its order (a test compares this with
-- what the importer builds).
INSERT INTO "course_gram_school" ("gram", "university_id", "courses")
SELECT g.gram, p.university_id, array_agg(u.id ORDER BY u.n)
  FROM "course_gram" g
 CROSS JOIN LATERAL unnest(g.courses) WITH ORDINALITY AS u(id, n)
  JOIN "course_place" p ON p.id = u.id
 GROUP BY g.gram, p.university_id;

-- Made after the rows, which is faster than keeping it while they are written.
ALTER TABLE "course_gram_school" ADD CONSTRAINT "course_gram_school_pkey" PRIMARY KEY ("gram", "university_id");
