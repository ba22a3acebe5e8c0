-- What listing and counting public courses costs per request, computed once
-- per import instead (src/import/courses.ts rebuilds both in the import's
-- transaction, the only place courses change):
-- - course_count: public courses per school and semester. The total of
--   GET /api/v1/courses without `q` (any school and semester filter) sums a
--   few of these rows instead of counting 100,000 courses.
-- - course_stat: the rows of GET /api/v1/course_stats, for all schools
--   (university_id 0) and for each school, per grouping.

CREATE TABLE "course_count" (
    "university_id" INTEGER NOT NULL,
    "semester" TEXT NOT NULL,
    "courses" INTEGER NOT NULL,
    CONSTRAINT "course_count_pkey" PRIMARY KEY ("university_id", "semester"),
    CONSTRAINT "course_count_university_id_fkey" FOREIGN KEY ("university_id") REFERENCES "university"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "course_count_semester_idx" ON "course_count"("semester");

CREATE TABLE "course_stat" (
    "university_id" INTEGER NOT NULL,
    "grouping" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "course_count" INTEGER NOT NULL,
    "instructor_count" INTEGER NOT NULL,
    CONSTRAINT "course_stat_pkey" PRIMARY KEY ("university_id", "grouping", "key")
);

-- The data already imported (the same statements as src/import/courses.ts).
INSERT INTO "course_count" ("university_id", "semester", "courses")
SELECT "university_id", "semester", count(*) FROM "course" WHERE "is_public" GROUP BY 1, 2;

INSERT INTO "course_stat" ("university_id", "grouping", "key", "course_count", "instructor_count")
SELECT COALESCE(g.university_id, 0), g.grouping, g.key, count(*), count(DISTINCT g.instructor)
  FROM (
    SELECT c.university_id, x.grouping, x.key, c.instructor
      FROM "course" c
      JOIN "university" u ON u.id = c.university_id
     CROSS JOIN LATERAL (VALUES ('semester', c.semester), ('year', split_part(c.semester, '-', 1)), ('school', u.code)) AS x(grouping, key)
     WHERE c.is_public
  ) g
 GROUP BY GROUPING SETS ((g.university_id, g.grouping, g.key), (g.grouping, g.key));
