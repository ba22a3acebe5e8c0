/**
 * Any valid export imports over whatever the database holds, and leaves what
 * that export alone leaves in an empty database (issue 66): codes reused
 * under other ids, swapped, moved to a new school; ids reused for other
 * records. What the service keeps across imports (keys, their usage,
 * accounts, sessions, sign-in links) stays. An export that is itself
 * inconsistent is refused, naming its records, and changes nothing.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountSessions, issueSignInToken } from "../../src/account/sessions.js";
import type { Database } from "../../src/db/driver.js";
import { ImportError } from "../../src/import/records.js";
import { KeyStore } from "../../src/keys/store.js";
import { UsageRecorder } from "../../src/usage/recorder.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { canary, dumpTables, type Export, SERVICE_TABLES, TABLES } from "./helpers.js";

/** Pairs the property runs over (each about 0.3 s); `IMPORT_PAIRS=400` for a longer run. */
const PAIRS = Number(process.env.IMPORT_PAIRS ?? 30);

const KEPT: readonly string[] = SERVICE_TABLES;

let one: Database;
let alone: Database;
beforeAll(async () => {
  [one, alone] = await Promise.all([freshDatabase(), freshDatabase()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([one?.close(), alone?.close()]);
});

/** Empties every table the data lives in, as a new database has them (data_version's one row stays). */
async function emptied(db: Database): Promise<Database> {
  const tables = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_name NOT IN ('_prisma_migrations', 'data_version')`,
  );
  await db.exec(`TRUNCATE ${tables.map((t) => `"${t.name}"`).join(", ")} CASCADE`);
  return db;
}

/** Imports `e` into an empty database (another than `one`). */
async function importAlone(e: Export): Promise<void> {
  await importObject(await emptied(alone), e);
}

/** The database `e` gives when imported into an empty one. */
async function importedAlone(e: Export): Promise<Record<string, string>> {
  await importAlone(e);
  return dumpTables(alone);
}

/** `e` with its schools' ids changed by `ids` (old id to new), its courses following them. */
function renumbered(e: Export, ids: Record<number, number>): Export {
  for (const u of e.universities) u.id = ids[u.id] ?? u.id;
  for (const c of e.courses) c.university_id = ids[c.university_id] ?? c.university_id;
  return e;
}

describe("an export over another export", () => {
  it("the demo's codes under other ids: the platform's NTU is 12, not 1", async () => {
    await importObject(one, canary());
    // The same codes, each under an id the database holds for another school or for none.
    const real = renumbered(canary(), { 1: 12, 2: 1, 3: 2 });
    // Course ids reused for other schools' courses.
    real.courses.forEach((c, i) => {
      c.university_id = real.universities[(i + 1) % 3]!.id;
    });
    await importObject(one, real);
    expect(await one.query(`SELECT id, code FROM university ORDER BY id`)).toEqual([
      { id: 1, code: "NTHU" },
      { id: 2, code: "UW" },
      { id: 12, code: "NTU" },
    ]);
    expect(await dumpTables(one)).toEqual(await importedAlone(real));
  });

  it("two schools swap codes, and a code moves to a new school while its old one takes another", async () => {
    await importObject(one, canary());
    const swapped = canary();
    swapped.universities[0]!.code = "NTHU";
    swapped.universities[1]!.code = "ntu";
    await importObject(one, swapped);
    expect(await one.query(`SELECT id, code, code_key FROM university ORDER BY id`)).toEqual([
      { id: 1, code: "NTHU", code_key: "nthu" },
      { id: 2, code: "ntu", code_key: "ntu" },
      { id: 3, code: "UW", code_key: "uw" },
    ]);
    expect(await dumpTables(one)).toEqual(await importedAlone(swapped));

    const moved = canary();
    moved.universities.push({ ...moved.universities[2]!, id: 4, code: "uw" });
    moved.universities[2]!.code = "UWB";
    await importObject(one, moved);
    expect(await one.query(`SELECT id, code FROM university ORDER BY id`)).toEqual([
      { id: 1, code: "NTU" },
      { id: 2, code: "NTHU" },
      { id: 3, code: "UWB" },
      { id: 4, code: "uw" },
    ]);
    expect(await dumpTables(one)).toEqual(await importedAlone(moved));
  });

  it("an export whose own schools share a code is refused, naming both records, before anything is written", async () => {
    await importObject(one, canary());
    const before = await dumpTables(one);
    const twice = renumbered(canary(), { 1: 12 });
    twice.universities.push({ ...twice.universities[0]!, id: 40, code: "Ntu" });
    const error = await importObject(one, twice).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as Error).message).toBe('universities[3].code "Ntu" is also universities[0].code "NTU", ignoring case');
    expect(await dumpTables(one)).toEqual(before);
  });

  it("every unique key of an imported table besides its primary key is checked at commit (deferrable)", async () => {
    const keys = await one.query<{ table: string; index: string; primary: boolean; deferrable: boolean | null }>(
      `SELECT t.relname AS table, i.relname AS index, x.indisprimary AS primary, c.condeferrable AS deferrable
         FROM pg_index x
         JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_class t ON t.oid = x.indrelid
         LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.contype IN ('p', 'u')
        WHERE x.indisunique AND t.relname = ANY($1::text[]) AND t.relnamespace = current_schema()::regnamespace
        ORDER BY 1, 2`,
      [[...TABLES]],
    );
    // The import matches every table's rows by its primary key.
    expect(keys.filter((k) => k.primary).map((k) => k.table)).toEqual([...TABLES].sort());
    expect(keys.filter((k) => !k.primary)).toEqual([
      { table: "university", index: "university_code_key_key", primary: false, deferrable: true },
    ]);
  });
});

describe("what an import keeps", () => {
  it("keys, their usage, accounts, sessions and sign-in links", async () => {
    const db = await emptied(one);
    await importObject(db, canary());
    const keys = new KeyStore(db);
    const { id } = await keys.create({ name: "kept", perMinute: 5 });
    await keys.createOwned("holder@example.edu", "holder's", 3);
    const usage = new UsageRecorder({ db });
    usage.record(id, ["/api/v1/universities", "Query.universities"]);
    await usage.close();
    await issueSignInToken(db, "holder@example.edu", 30);
    const sessions = new AccountSessions(db, { secret: await AccountSessions.secretOf(db) });
    await sessions.start("holder@example.edu", "Holder", "link");
    const kept = async () => Object.fromEntries(Object.entries(await dumpTables(db)).filter(([t]) => KEPT.includes(t)));
    const before = await kept();
    for (const table of KEPT) expect({ table, rows: before[table] }).not.toEqual({ table, rows: "[]" });

    await importObject(db, renumbered(canary(), { 1: 12, 2: 1, 3: 2 }));
    expect(await kept()).toEqual(before);
  });
});

// The records a generated export draws from: the canary export's, with
// ids, codes and schools drawn anew, so that a pair reuses them across records.
const BASE = canary();
const CODES = ["NTU", "NTHU", "UW", "NCKU", "NSYSU", "NCCU"];
const SEMESTERS = ["112-1", "112-2", "113-1", "113-2"];
const TITLES = ["機器學習", "資料結構", "Machine Learning", "線性代數"];
const casing = fc.constantFrom(
  (s: string) => s,
  (s: string) => s.toLowerCase(),
);

const anExport: fc.Arbitrary<Export> = fc
  .record({
    schoolIds: fc.shuffledSubarray([1, 2, 3, 4, 5, 6], { minLength: 1, maxLength: 5 }),
    codes: fc.shuffledSubarray(CODES, { minLength: 5, maxLength: 5 }),
    schools: fc.array(fc.record({ template: fc.nat(2), case: casing, region: fc.constantFrom("Taipei", "Hsinchu", null) }), {
      minLength: 5,
      maxLength: 5,
    }),
    courses: fc.uniqueArray(
      fc.record({
        id: fc.integer({ min: 1, max: 12 }),
        school: fc.nat(4),
        semester: fc.constantFrom(...SEMESTERS),
        public: fc.constantFrom(0 as const, 1 as const),
        title: fc.constantFrom(...TITLES),
      }),
      { selector: (c) => c.id, maxLength: 10 },
    ),
    papers: fc.subarray(BASE.papers.map((p) => p.slug)),
    paperYear: fc.integer({ min: 2020, max: 2026 }),
    conferences: fc.subarray(BASE.conferences.map((c) => c.slug)),
    packs: fc.subarray(BASE.hub_packs.map((_, i) => i)),
    versions: fc.array(fc.subarray([0, 1, 2], { minLength: 1 }), { minLength: 4, maxLength: 4 }),
    stars: fc.nat(50),
    stations: fc.subarray(BASE.stations.map((s) => s.id)),
    // Hours of one local day and the next, in any order, with readings of one decimal: their
    // sums and means depend on the order they are added in, which the rows' order on disk
    // (what the database held before) must not decide.
    observations: fc.uniqueArray(fc.record({ station: fc.nat(1), hour: fc.nat(40), reading: fc.integer({ min: 0, max: 600 }) }), {
      selector: (o) => `${o.station} ${o.hour}`,
      maxLength: 30,
    }),
  })
  .map((g): Export => {
    const e = canary();
    e.universities = g.schoolIds.map((id, i) => {
      const s = g.schools[i]!;
      return { ...BASE.universities[s.template]!, id, code: s.case(g.codes[i]!), region: s.region as string };
    });
    e.courses = g.courses.map((c) => {
      const template = BASE.courses[c.id % BASE.courses.length]!;
      return {
        ...template,
        id: c.id,
        university_id: g.schoolIds[c.school % g.schoolIds.length]!,
        semester: c.semester,
        is_public: c.public,
        course_name_chinese: c.title,
      };
    });
    e.papers = BASE.papers.filter((p) => g.papers.includes(p.slug)).map((p) => ({ ...p, year: g.paperYear }));
    e.conferences = BASE.conferences.filter((c) => g.conferences.includes(c.slug));
    e.hub_packs = g.packs.map((i) => {
      const pack = BASE.hub_packs[i]!;
      const versions = g.versions[i]!.filter((v) => v < pack.versions.length).map((v) => pack.versions[v]!);
      return { ...pack, star_count: g.stars, versions: versions.length ? versions : pack.versions.slice(0, 1) };
    });
    e.stations = BASE.stations.filter((s) => g.stations.includes(s.id));
    e.observations = g.observations
      .map(({ station, hour, reading }) => {
        const o = BASE.observations[station]!;
        const observed_at = new Date(Date.parse(o.observed_at) - hour * 3_600_000).toISOString();
        const value = reading / 10;
        return (
          o.temp_c === undefined
            ? { ...o, observed_at, pm25_ugm3: value, pm10_ugm3: value * 2.1 }
            : { ...o, observed_at, temp_c: value, precip_mm: value / 3 }
        ) as typeof o;
      })
      .filter((o) => g.stations.includes(o.station_id));
    return e;
  });

describe("the property: A then B is B alone", () => {
  it(`holds for ${PAIRS} generated pairs of exports`, async () => {
    await emptied(one);
    await fc.assert(
      fc.asyncProperty(anExport, anExport, async (a, b) => {
        // B alone beside A, on two databases at once.
        await Promise.all([importObject(one, a), importAlone(b)]);
        await importObject(one, b);
        expect(await dumpTables(one)).toEqual(await dumpTables(alone));
      }),
      { numRuns: PAIRS },
    );
  }, 600_000);
});
