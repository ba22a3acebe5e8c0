/**
 * `q` searches (courses' titles, Packs' name, summary and subject) can use the
 * trigram indexes of migration 20261125000000_title_search, on the embedded
 * PostgreSQL and on the run's server. The tables here are tiny, so sequential
 * scans are switched off to ask whether the index is usable at all.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase, freshEmbedded, importObject } from "../support/databases.js";

const plan = async (db: Database, sql: string) => {
  const rows = await db.transaction(async (tx) => {
    await tx.exec("SET LOCAL enable_seqscan = off");
    return tx.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`);
  });
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
};

for (const kind of ["the embedded PostgreSQL", "the run's server"] as const) {
  describe(`title search indexes on ${kind}`, () => {
    let db: Database;
    beforeAll(async () => {
      db = kind === "the embedded PostgreSQL" ? await freshEmbedded() : await freshDatabase();
      await importObject(db, canaryExport());
    }, 60_000);
    afterAll(async () => {
      await db?.close();
    });

    it("a course title search reads the trigram indexes", async () => {
      const text = await plan(
        db,
        `SELECT id FROM course WHERE (course_name_chinese ILIKE ('%' || 'Intro' || '%') OR course_name_english ILIKE ('%' || 'Intro' || '%'))`,
      );
      expect(text).toContain("course_name_chinese_trgm_idx");
      expect(text).toContain("course_name_english_trgm_idx");
    });

    it("a Pack search reads the trigram indexes", async () => {
      const text = await plan(db, `SELECT id FROM hub_pack WHERE name ILIKE '%quiz%' OR summary ILIKE '%quiz%' OR subject ILIKE '%quiz%'`);
      for (const index of ["hub_pack_name_trgm_idx", "hub_pack_summary_trgm_idx", "hub_pack_subject_trgm_idx"])
        expect(text).toContain(index);
    });
  });
}
