-- Title search (`q` of GET /api/v1/courses, Course connections) and Pack
-- search (`q` of GET /api/v1/hub/packs) match a case-insensitive substring
-- (ILIKE '%q%'). Trigram indexes let PostgreSQL find the rows whose text holds
-- the needle's trigrams instead of reading every row; pg_trgm ships with
-- PostgreSQL's contrib and with PGlite (src/db/driver.ts loads it there).
-- A needle under three characters has no trigram: it still reads the table.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX "course_name_chinese_trgm_idx" ON "course" USING gin ("course_name_chinese" gin_trgm_ops);
CREATE INDEX "course_name_english_trgm_idx" ON "course" USING gin ("course_name_english" gin_trgm_ops);
CREATE INDEX "hub_pack_name_trgm_idx" ON "hub_pack" USING gin ("name" gin_trgm_ops);
CREATE INDEX "hub_pack_summary_trgm_idx" ON "hub_pack" USING gin ("summary" gin_trgm_ops);
CREATE INDEX "hub_pack_subject_trgm_idx" ON "hub_pack" USING gin ("subject" gin_trgm_ops);
