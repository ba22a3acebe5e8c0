/**
 * A later export replaces an earlier one: rows are upserted by id, fields it
 * leaves out become null, and rows it no longer holds are removed.
 */
import { afterAll, beforeEach, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { CANARY_COUNTS, canary, counts, dumpTables } from "./helpers.js";

let db: Database;
beforeAll(async () => {
  db = await freshDatabase();
}, 60_000);
beforeEach(async () => {
  await importObject(db, canary());
});
afterAll(async () => {
  await db?.close();
});

describe("reimport", () => {
  it("updates changed fields in place and touches nothing else", async () => {
    const before = await dumpTables(db);
    const e = canary();
    e.courses[0]!.course_name_english = "Renamed Course";
    e.courses[0]!.is_public = 0;
    delete (e.courses[0] as Partial<(typeof e.courses)[0]>).instructor_english;
    e.universities[1]!.code = "nthu2";
    e.hub_packs[0]!.star_count = 42;
    e.hub_packs[0]!.versions[0]!.changelog = "Rewritten";
    e.stations[0]!.name = "Taipei";
    e.observations[0]!.temp_c = 21.5;
    await importObject(db, e);

    expect(await db.query(`SELECT course_name_english, is_public, instructor_english, instructor FROM course WHERE id = 1`)).toEqual([
      { course_name_english: "Renamed Course", is_public: false, instructor_english: null, instructor: "老師1" },
    ]);
    expect(await db.query(`SELECT code, code_key FROM university WHERE id = 2`)).toEqual([{ code: "nthu2", code_key: "nthu2" }]);
    expect(await db.query(`SELECT star_count FROM hub_pack WHERE id = 'pk_public'`)).toEqual([{ star_count: 42 }]);
    expect(await db.query(`SELECT changelog FROM hub_pack_version WHERE pack_id = 'pk_public' AND version = '1.9.0'`)).toEqual([
      { changelog: "Rewritten" },
    ]);
    expect(await db.query(`SELECT name FROM station WHERE id = '466920'`)).toEqual([{ name: "Taipei" }]);
    expect(await db.query(`SELECT temp_c, rh FROM observation WHERE station_id = '466920'`)).toEqual([{ temp_c: 21.5, rh: 80 }]);

    const after = await dumpTables(db);
    expect(await counts(db)).toEqual(CANARY_COUNTS);
    for (const table of ["paper", "conference", "school_station", "_prisma_migrations"]) {
      expect(after[table]).toBe(before[table]);
    }
    for (const table of ["university", "course", "hub_pack", "hub_pack_version", "station", "observation"]) {
      expect(after[table]).not.toBe(before[table]);
    }
  });

  it("removes the courses, Packs, versions, papers, conferences and observations the export no longer holds", async () => {
    const e = canary();
    e.courses = e.courses.filter((c) => c.id !== 3);
    e.hub_packs = e.hub_packs.filter((p) => p.id !== "pk_link");
    e.hub_packs[0]!.versions = e.hub_packs[0]!.versions.filter((v) => v.version !== "1.10.0");
    e.papers = e.papers.slice(1);
    e.conferences = e.conferences.slice(0, 1);
    e.observations = e.observations.filter((o) => o.station_id !== "466920");
    await importObject(db, e);

    expect(await db.query(`SELECT id FROM course ORDER BY id`)).toEqual([1, 2, 4, 5, 6].map((id) => ({ id })));
    expect(await db.query(`SELECT id, latest_version FROM hub_pack ORDER BY id`)).toEqual([
      { id: "pk_pending", latest_version: "1.0.0" },
      { id: "pk_private", latest_version: "1.0.0" },
      { id: "pk_public", latest_version: "1.9.0" },
    ]);
    expect(await db.query(`SELECT pack_id, version FROM hub_pack_version ORDER BY pack_id, version`)).toEqual([
      { pack_id: "pk_pending", version: "1.0.0" },
      { pack_id: "pk_private", version: "1.0.0" },
      { pack_id: "pk_public", version: "1.9.0" },
      { pack_id: "pk_public", version: "2.0.0" },
    ]);
    expect(await db.query(`SELECT slug FROM paper`)).toEqual([{ slug: "p-2024-b" }]);
    expect(await db.query(`SELECT slug FROM conference`)).toEqual([{ slug: "edm-2025" }]);
    expect(await db.query(`SELECT station_id FROM observation`)).toEqual([{ station_id: "moenv-1" }]);
    expect(await counts(db)).toEqual({
      ...CANARY_COUNTS,
      course: 5,
      hub_pack: 3,
      hub_pack_version: 4,
      paper: 1,
      conference: 1,
      observation: 1,
    });
  });

  it("removes a station with its observations and its school rankings, and a university with its courses", async () => {
    const e = canary();
    e.stations = e.stations.filter((s) => s.id !== "moenv-1");
    e.observations = e.observations.filter((o) => o.station_id !== "moenv-1");
    e.universities = e.universities.filter((u) => u.id !== 3);
    e.courses = e.courses.filter((c) => c.university_id !== 3);
    await importObject(db, e);

    expect(await db.query(`SELECT id FROM station`)).toEqual([{ id: "466920" }]);
    expect(await db.query(`SELECT station_id FROM observation`)).toEqual([{ station_id: "466920" }]);
    expect(await db.query(`SELECT university_id, station_id, rank FROM school_station ORDER BY university_id`)).toEqual([
      { university_id: 1, station_id: "466920", rank: 1 },
      { university_id: 2, station_id: "466920", rank: 1 },
    ]);
    expect(await db.query(`SELECT id FROM university ORDER BY id`)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await db.query(`SELECT id FROM course ORDER BY id`)).toEqual([1, 2, 3, 4, 5].map((id) => ({ id })));
  });

  it("brings everything back when the full export is imported again", async () => {
    const full = await dumpTables(db);
    const e = canary();
    e.courses = [];
    e.hub_packs = [];
    e.observations = [];
    await importObject(db, e);
    expect(await counts(db)).toEqual({ ...CANARY_COUNTS, course: 0, hub_pack: 0, hub_pack_version: 0, observation: 0 });
    await importObject(db, canary());
    expect(await dumpTables(db)).toEqual(full);
  });
});
