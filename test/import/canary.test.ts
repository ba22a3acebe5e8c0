/**
 * The canary export (test/support/canary.ts) imported into a database: what is
 * stored, what is dropped, what is derived, and that importing it again
 * changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { importExport } from "../../src/import/apply.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { CANARY_COUNTS, CANARY_SUMMARY, TABLES, canary, counts, dumpTables, textStream } from "./helpers.js";

/** Rule 5 of the seed: the importer never stores these. */
const PERSONAL = [
  "canary.student@example.edu",
  "CANARY-STUDENT-NUMBER",
  "CANARY-SYSTEM-PROMPT",
  "CANARY-TEACHER-API-KEY",
  "canary.owner@example.edu",
];

let db: Database;
beforeAll(async () => {
  db = await freshDatabase();
}, 60_000);
afterAll(async () => {
  await db?.close();
});

describe("the canary export", () => {
  it("imports, returning the counts of what it stored", async () => {
    expect(await importObject(db, canary())).toEqual(CANARY_SUMMARY);
    expect(await counts(db)).toEqual(CANARY_COUNTS);
  });

  it("stores each field in its column", async () => {
    expect(
      await db.query(
        `SELECT id, code, code_key, name_zh, short_name, region, country::text, timezone, latitude, longitude
           FROM university ORDER BY id`,
      ),
    ).toEqual([
      {
        id: 1,
        code: "NTU",
        code_key: "ntu",
        name_zh: "國立臺灣大學",
        short_name: "臺大",
        region: "Taipei",
        country: "TW",
        timezone: "Asia/Taipei",
        latitude: 25.0174,
        longitude: 121.5405,
      },
      {
        id: 2,
        code: "NTHU",
        code_key: "nthu",
        name_zh: "國立清華大學",
        short_name: "清大",
        region: "Hsinchu",
        country: "TW",
        timezone: "Asia/Taipei",
        latitude: 24.7961,
        longitude: 120.9967,
      },
      {
        id: 3,
        code: "UW",
        code_key: "uw",
        name_zh: "華盛頓大學",
        short_name: "UW",
        region: "Seattle",
        country: "US",
        timezone: "America/Los_Angeles",
        latitude: 47.6553,
        longitude: -122.3035,
      },
    ]);
    expect(
      await db.query(
        `SELECT id, university_id, semester, start_date::text, end_date::text, is_public, join_code, class_memo, course_name_english
           FROM course ORDER BY id`,
      ),
    ).toEqual([
      {
        id: 1,
        university_id: 1,
        semester: "113-1",
        start_date: "2024-09-02",
        end_date: "2025-01-10",
        is_public: true,
        join_code: "CANARY-JOIN-CODE-1",
        class_memo: null,
        course_name_english: "Public Course 1",
      },
      {
        id: 2,
        university_id: 1,
        semester: "113-1",
        start_date: "2024-09-02",
        end_date: "2025-01-10",
        is_public: false,
        join_code: "CANARY-JOIN-CODE-2",
        class_memo: null,
        course_name_english: "CANARY-PRIVATE-COURSE english 2",
      },
      {
        id: 3,
        university_id: 1,
        semester: "112-2",
        start_date: "2024-09-02",
        end_date: "2025-01-10",
        is_public: true,
        join_code: "CANARY-JOIN-CODE-3",
        class_memo: null,
        course_name_english: "Public Course 3",
      },
      {
        id: 4,
        university_id: 2,
        semester: "113-2",
        start_date: "2024-09-02",
        end_date: "2025-01-10",
        is_public: true,
        join_code: "CANARY-JOIN-CODE-4",
        class_memo: null,
        course_name_english: "Public Course 4",
      },
      {
        id: 5,
        university_id: 2,
        semester: "113-2",
        start_date: "2024-09-02",
        end_date: "2025-01-10",
        is_public: false,
        join_code: "CANARY-JOIN-CODE-5",
        class_memo: null,
        course_name_english: "CANARY-PRIVATE-COURSE english 5",
      },
      {
        id: 6,
        university_id: 3,
        semester: "112-1",
        start_date: "2024-09-02",
        end_date: "2025-01-10",
        is_public: true,
        join_code: "CANARY-JOIN-CODE-6",
        class_memo: null,
        course_name_english: "Public Course 6",
      },
    ]);
    expect(await db.query(`SELECT slug, authors, year, award FROM paper ORDER BY slug`)).toEqual([
      { slug: "p-2024-b", authors: ["C. Wu"], year: 2024, award: "Best Paper" },
      { slug: "p-2025-a", authors: ["A. Chen", "B. Lin"], year: 2025, award: null },
    ]);
    expect(await db.query(`SELECT slug, relationship::text, dates FROM conference ORDER BY slug`)).toEqual([
      { slug: "chi-2027", relationship: "watching", dates: null },
      { slug: "edm-2025", relationship: "participated", dates: "2025-07-20 to 2025-07-23" },
    ]);
    expect(
      await db.query(
        `SELECT id, asset_type::text, education_level::text, bloom_levels, difficulty, star_count, install_count,
                owner_name, visibility::text, safety_status::text, payload
           FROM hub_pack WHERE id = 'pk_public'`,
      ),
    ).toEqual([
      {
        id: "pk_public",
        asset_type: "quiz_bank",
        education_level: "university",
        bloom_levels: ["remember", "apply"],
        difficulty: "intermediate",
        star_count: 3,
        install_count: 7,
        owner_name: "林老師",
        visibility: "public",
        safety_status: "passed",
        payload: { secret: "CANARY-PAYLOAD" },
      },
    ]);
    expect(
      await db.query(
        `SELECT station_id, to_char(observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at,
                temp_c, rh, precip_mm, pm25_ugm3, pm10_ugm3, aqi
           FROM observation ORDER BY station_id`,
      ),
    ).toEqual([
      { station_id: "466920", at: "2026-11-19T16:00:00Z", temp_c: 20.5, rh: 80, precip_mm: 0, pm25_ugm3: null, pm10_ugm3: null, aqi: null },
      { station_id: "moenv-1", at: "2026-11-19T16:00:00Z", temp_c: null, rh: null, precip_mm: null, pm25_ugm3: 12, pm10_ugm3: 30, aqi: 48 },
    ]);
  });

  it("stores no personal data in any column of any table", async () => {
    const text = JSON.stringify(await dumpTables(db));
    // The search works: values that may be stored (guarded on the way out) are found.
    expect(text).toContain("CANARY-JOIN-CODE-2");
    expect(text).toContain("CANARY-VERSION-PAYLOAD");
    expect(text).toContain("林老師");
    expect(PERSONAL.filter((value) => text.includes(value))).toEqual([]);
  });

  it("derives each Pack's latest version from its passed versions, in semantic-version order", async () => {
    expect(
      await db.query(
        `SELECT id, latest_version,
                to_char(latest_published_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS latest_published_at
           FROM hub_pack ORDER BY id`,
      ),
    ).toEqual([
      { id: "pk_link", latest_version: "1.0.0", latest_published_at: "2026-01-01T00:00:00.000Z" },
      { id: "pk_pending", latest_version: "1.0.0", latest_published_at: "2026-01-01T00:00:00.000Z" },
      { id: "pk_private", latest_version: "1.0.0", latest_published_at: "2026-01-01T00:00:00.000Z" },
      { id: "pk_public", latest_version: "1.10.0", latest_published_at: "2026-02-01T00:00:00.000Z" },
    ]);
    // Every version is stored, the rejected one included (the read client hides it).
    expect(
      await db.query(
        `SELECT version, safety_status::text, changelog FROM hub_pack_version WHERE pack_id = 'pk_public' ORDER BY published_at`,
      ),
    ).toEqual([
      { version: "1.9.0", safety_status: "passed", changelog: "Release 1.9.0" },
      { version: "1.10.0", safety_status: "passed", changelog: "Release 1.10.0" },
      { version: "2.0.0", safety_status: "rejected", changelog: "CANARY-REJECTED-VERSION" },
    ]);
  });

  it("leaves the same database when the same export is imported again", async () => {
    const before = await dumpTables(db);
    expect(Object.keys(before)).toEqual(expect.arrayContaining([...TABLES, "_prisma_migrations"]));
    expect(await importExport(db, textStream(JSON.stringify(canary())))).toEqual(CANARY_SUMMARY);
    expect(await dumpTables(db)).toEqual(before);
  });
});

describe("derived Pack fields", () => {
  it("do not depend on the order of the versions, ignore non-passed ones, and are null without a passed one", async () => {
    const e = canary();
    e.hub_packs[0]!.versions.reverse();
    e.hub_packs[0]!.versions.push(
      { version: "1.10.0-rc.1", published_at: "2026-01-20T00:00:00Z", changelog: "rc", safety_status: "passed", payload: { secret: "x" } },
      {
        version: "1.11.0",
        published_at: "2026-04-01T08:00:00+08:00",
        changelog: "next",
        safety_status: "pending",
        payload: { secret: "x" },
      },
    );
    e.hub_packs[3]!.versions = [
      { version: "3.0.0", published_at: "2026-05-01T00:00:00Z", changelog: "x", safety_status: "rejected", payload: { secret: "x" } },
    ];
    await importObject(db, e);
    expect(
      await db.query(
        `SELECT id, latest_version,
                to_char(latest_published_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at
           FROM hub_pack WHERE id IN ('pk_public', 'pk_pending') ORDER BY id`,
      ),
    ).toEqual([
      { id: "pk_pending", latest_version: null, at: null },
      { id: "pk_public", latest_version: "1.10.0", at: "2026-02-01T00:00:00Z" },
    ]);
  });
});
