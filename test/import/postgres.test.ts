/**
 * The importer on a PostgreSQL server (a throwaway database): the canary
 * import, a reimport, and refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { importExport } from "../../src/import/apply.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { CANARY_COUNTS, CANARY_SUMMARY, canary, counts, dumpTables, textStream } from "./helpers.js";

describe("import on PostgreSQL", () => {
  let db: Database;
  beforeAll(async () => {
    db = await freshDatabase();
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it("imports the canary export", async () => {
    expect(db.kind).toBe("postgres");
    expect(await importObject(db, canary())).toEqual(CANARY_SUMMARY);
    expect(await counts(db)).toEqual(CANARY_COUNTS);
    expect(await db.query(`SELECT latest_version FROM hub_pack WHERE id = 'pk_public'`)).toEqual([{ latest_version: "1.10.0" }]);
  });

  it("leaves the planner statistics of what it wrote, committed with the data", async () => {
    // A new database: nothing analyzed yet, and autovacuum would take a minute or more.
    const fresh = await freshDatabase();
    try {
      const analyzed = () =>
        fresh.query<{ relname: string; reltuples: number }>(
          `SELECT relname, reltuples::int AS reltuples FROM pg_class
            WHERE relname IN ('course', 'university', 'station', 'observation') ORDER BY relname`,
        );
      expect((await analyzed()).map((r) => r.reltuples)).toEqual([-1, -1, -1, -1]);
      await importObject(fresh, canary());
      const rows = Object.fromEntries((await analyzed()).map((r) => [r.relname, r.reltuples]));
      expect(rows).toEqual({
        course: CANARY_COUNTS.course,
        observation: CANARY_COUNTS.observation,
        station: CANARY_COUNTS.station,
        university: CANARY_COUNTS.university,
      });
      expect(await fresh.query(`SELECT count(*)::int AS n FROM pg_stats WHERE tablename = 'course' AND attname = 'university_id'`)).toEqual(
        [{ n: 1 }],
      );
      // Every table of the schema, those it computes from the rows too (station_day, course_stat, …), and none left unanalyzed.
      const never = await fresh.query<{ relname: string }>(
        `SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace AND reltuples < 0 ORDER BY 1`,
      );
      expect(never).toEqual([]);
      // And nothing else: this database's system catalogs, which a bare ANALYZE samples too, are left to
      // autovacuum (the catalogs shared by every database of the server are analyzed by the other tests').
      const catalogs = await fresh.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_sys_tables s JOIN pg_class c ON c.oid = s.relid
          WHERE NOT c.relisshared AND s.analyze_count > 0`,
      );
      expect(catalogs).toEqual([{ n: 0 }]);
    } finally {
      await fresh.close();
    }
  });

  it("leaves no pending entries in the trigram indexes, which every search would read", async () => {
    const fresh = await freshDatabase();
    try {
      await importObject(fresh, canary());
      // What a merge finds to move: nothing, once the import merged them (pages of each GIN index's pending list).
      const pending = await fresh.query<{ index: string; pages: number }>(
        `SELECT i.relname AS index, gin_clean_pending_list(i.oid)::int AS pages
           FROM pg_class i JOIN pg_am a ON a.oid = i.relam
          WHERE a.amname = 'gin' AND i.relnamespace = current_schema()::regnamespace ORDER BY 1`,
      );
      expect(pending.map((p) => p.index)).toEqual(
        expect.arrayContaining(["hub_pack_name_trgm_idx", "course_word_word_trgm_idx", "course_pair_pair_trgm_idx"]),
      );
      expect(pending.filter((p) => p.pages > 0)).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it("stores a staged record's texts, numbers and instants exactly as the export holds them", async () => {
    const e = canary();
    // What COPY's text format must escape, what it spells like its own markers, and text beyond ASCII.
    const texts = ["tab\there", "two\nlines\r\n", "back\\slash \\N \\.", "\\N", "微積分 (一) 📐", "  spaced  "];
    texts.forEach((t, i) => {
      (e.courses[i] as Record<string, unknown>).class_memo = t;
    });
    e.observations[0]!.observed_at = "2026-11-20T00:00:00.123+08:00";
    (e.observations[0] as Record<string, unknown>).temp_c = 0.1 + 0.2;
    await importObject(db, e);
    const memos = await db.query<{ class_memo: string }>(`SELECT class_memo FROM course ORDER BY id LIMIT ${texts.length}`);
    expect(memos.map((r) => r.class_memo)).toEqual(texts);
    const [reading] = await db.query<{ at: string; temp_c: number }>(
      `SELECT to_char(observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') AS at, temp_c FROM observation
        WHERE station_id = $1 ORDER BY observed_at LIMIT 1`,
      [e.observations[0]!.station_id],
    );
    expect(reading).toEqual({ at: "2026-11-19 16:00:00.123", temp_c: 0.30000000000000004 });
    await importObject(db, canary());
  });

  it("stores a reading that is missing or null as null, and a measured 0 as 0", async () => {
    const e = canary();
    const first = e.observations[0] as Record<string, unknown>;
    first.temp_c = 0;
    first.rh = null;
    delete first.precip_mm;
    await importObject(db, e);
    const [row] = await db.query<{ temp_c: number | null; rh: number | null; precip_mm: number | null }>(
      "SELECT temp_c, rh, precip_mm FROM observation WHERE station_id = $1 AND observed_at = $2::timestamptz",
      [first.station_id, first.observed_at],
    );
    expect(row).toEqual({ temp_c: 0, rh: null, precip_mm: null });
    await importObject(db, canary());
  });

  it("runs without JIT, and leaves the server's setting as it was", async () => {
    const [{ jit: before }] = (await db.query<{ jit: string }>("SHOW jit")) as [{ jit: string }];
    let during: string | undefined;
    // The import's own transaction, read at its end.
    const seeing: Pick<Database, "transaction"> = {
      transaction: (work) =>
        db.transaction(async (tx) => {
          const result = await work(tx);
          during = ((await tx.query<{ jit: string }>("SHOW jit")) as [{ jit: string }])[0].jit;
          return result;
        }),
    };
    await importExport(seeing, textStream(JSON.stringify(canary())));
    expect(during).toBe("off");
    expect(await db.query<{ jit: string }>("SHOW jit")).toEqual([{ jit: before }]);
  });

  it("leaves the same database after importing the same export again", async () => {
    const before = await dumpTables(db);
    expect(await importExport(db, textStream(JSON.stringify(canary())))).toEqual(CANARY_SUMMARY);
    expect(await dumpTables(db)).toEqual(before);
  });

  it("changes nothing when an export is refused, at validation or in the database", async () => {
    const before = await dumpTables(db);
    const bad = canary();
    bad.universities[0]!.name_zh = "changed";
    bad.observations.push({ station_id: "nope", observed_at: "2026-11-19T17:00:00Z" } as never);
    await expect(importObject(db, bad)).rejects.toThrow('observations[2].station_id: no station with id "nope"');
    expect(await dumpTables(db)).toEqual(before);

    // A constraint the importer knows nothing of: the universities are
    // already upserted when the course insert fails.
    await db.exec(`ALTER TABLE course ADD CONSTRAINT test_refuse_999 CHECK (id <> 999)`);
    try {
      const late = canary();
      late.universities[0]!.name_zh = "changed";
      late.courses[1]!.id = 999;
      await expect(importObject(db, late)).rejects.toThrow(/test_refuse_999/);
    } finally {
      await db.exec(`ALTER TABLE course DROP CONSTRAINT test_refuse_999`);
    }
    expect(await dumpTables(db)).toEqual(before);
  });
});
