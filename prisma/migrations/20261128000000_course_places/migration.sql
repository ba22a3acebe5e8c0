-- Deep pages of operation 2 and of the `courses` connection as cheap as the
-- first (issue 54): each public course's place, from 1, in each list a page
-- of courses can be cut from, in the default order (semester descending, then
-- id): among all public courses, its school's, its semester's, and its
-- school's in that semester. A page at any depth, or the page after a cursor,
-- reads its rows by place from an index, instead of reading every earlier row
-- again to skip them (OFFSET). Rebuilt by every import (src/import/courses.ts),
-- the only writer of courses.
CREATE TABLE "course_place" (
    "id" INTEGER NOT NULL,
    "university_id" INTEGER NOT NULL,
    "semester" TEXT NOT NULL,
    "in_all" INTEGER NOT NULL,
    "in_school" INTEGER NOT NULL,
    "in_semester" INTEGER NOT NULL,
    "in_school_semester" INTEGER NOT NULL,
    CONSTRAINT "course_place_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "course_place_id_fkey" FOREIGN KEY ("id") REFERENCES "course"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "course_place_in_all_idx" ON "course_place"("in_all");
CREATE INDEX "course_place_university_id_in_school_idx" ON "course_place"("university_id", "in_school");
CREATE INDEX "course_place_semester_in_semester_idx" ON "course_place"("semester", "in_semester");
CREATE INDEX "course_place_university_id_semester_in_school_semester_idx" ON "course_place"("university_id", "semester", "in_school_semester");

-- Courses imported before this migration (the same statement as src/import/courses.ts).
INSERT INTO "course_place" ("id", "university_id", "semester", "in_all", "in_school", "in_semester", "in_school_semester")
SELECT id, university_id, semester,
       row_number() OVER (ORDER BY semester DESC, id),
       row_number() OVER (PARTITION BY university_id ORDER BY semester DESC, id),
       row_number() OVER (PARTITION BY semester ORDER BY id),
       row_number() OVER (PARTITION BY university_id, semester ORDER BY id)
  FROM "course" WHERE "is_public";
