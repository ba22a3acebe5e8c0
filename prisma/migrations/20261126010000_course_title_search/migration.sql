-- Title search (`q`) without reading the wide course rows: a title is one
-- distinct (Chinese, English) pair of public courses, and whether a course
-- matches `q` depends on its pair alone. course_title holds the pairs (with
-- trigram indexes, for catalogues with many), course_search each public
-- course's pair, school and semester, in the default order per pair. A search
-- matches a few titles, then counts and pages their courses from the index.
CREATE TABLE "course_title" (
    "id" INTEGER NOT NULL,
    "name_zh" TEXT,
    "name_en" TEXT,
    CONSTRAINT "course_title_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "course_title_name_zh_trgm_idx" ON "course_title" USING gin ("name_zh" gin_trgm_ops);
CREATE INDEX "course_title_name_en_trgm_idx" ON "course_title" USING gin ("name_en" gin_trgm_ops);

CREATE TABLE "course_search" (
    "id" INTEGER NOT NULL,
    "title_id" INTEGER NOT NULL,
    "university_id" INTEGER NOT NULL,
    "semester" TEXT NOT NULL,
    CONSTRAINT "course_search_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "course_search_title_id_fkey" FOREIGN KEY ("title_id") REFERENCES "course_title"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "course_search_title_id_semester_id_idx" ON "course_search"("title_id", "semester" DESC, "id");

INSERT INTO "course_title" ("id", "name_zh", "name_en")
SELECT DISTINCT ON (t.title_id) t.title_id, t.course_name_chinese, t.course_name_english
  FROM (SELECT dense_rank() OVER (ORDER BY course_name_chinese, course_name_english) AS title_id, course_name_chinese, course_name_english
          FROM "course" WHERE "is_public") t
 ORDER BY t.title_id;

INSERT INTO "course_search" ("id", "title_id", "university_id", "semester")
SELECT id, dense_rank() OVER (ORDER BY course_name_chinese, course_name_english), university_id, semester
  FROM "course" WHERE "is_public";
