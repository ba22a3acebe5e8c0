-- A school's code stays unique (case-insensitively, through code_key), but
-- the import checks it when its transaction commits rather than row by row
-- (issue 66). An export may give a code to another school than the database
-- holds it under: the demo's NTU is 1, the platform's is 12; two schools may
-- swap codes. Row by row, the new holder was refused while the old one still
-- held the code, although the old one was about to go or change. The import
-- defers every deferrable constraint (src/import/apply.ts); any other writer
-- is checked at once, as before. The index is the same, under the same name.
DROP INDEX "university_code_key_key";
ALTER TABLE "university"
  ADD CONSTRAINT "university_code_key_key" UNIQUE ("code_key") DEFERRABLE INITIALLY IMMEDIATE;
