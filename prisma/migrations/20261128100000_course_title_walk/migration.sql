-- A long search term over a million courses (issue 54): its titles are found
-- by trigram (an index on each title, as before 20261127000000_course_grams),
-- its total is the sum of those titles' numbers of courses, and its first
-- pages walk the list of all courses in order, keeping the courses of those
-- titles, instead of reading and sorting every match. Rebuilt by every import
-- (src/import/courses.ts), the only writer of courses.
ALTER TABLE "course_title" ADD COLUMN "courses" INTEGER NOT NULL DEFAULT 0;
UPDATE "course_title" t SET "courses" = c.n
  FROM (SELECT "title_id", count(*)::int AS n FROM "course_search" GROUP BY 1) c
 WHERE c."title_id" = t."id";
ALTER TABLE "course_title" ALTER COLUMN "courses" DROP DEFAULT;
CREATE INDEX "course_title_name_zh_trgm_idx" ON "course_title" USING gin ("name_zh" gin_trgm_ops);
CREATE INDEX "course_title_name_en_trgm_idx" ON "course_title" USING gin ("name_en" gin_trgm_ops);

ALTER TABLE "course_place" ADD COLUMN "title_id" INTEGER;
UPDATE "course_place" p SET "title_id" = s."title_id" FROM "course_search" s WHERE s."id" = p."id";
ALTER TABLE "course_place" ALTER COLUMN "title_id" SET NOT NULL;
