/**
 * Imports one platform export (CONTRACT §6) in a single transaction:
 * validate every record while streaming, stage observations in a temporary
 * table, check cross references, then upsert by id and remove what the
 * export no longer holds. Any problem rolls everything back, so a failed
 * import changes nothing.
 */
import type { Readable } from "node:stream";
import type { Database } from "../db/driver.js";
import { compareSemver } from "../domain/semver.js";
import { readExport } from "./read.js";
import {
  type Conference,
  type Course,
  EXPORT_FORMAT,
  type HubPack,
  ImportError,
  type Observation,
  type Paper,
  parseRecord,
  type SectionName,
  type Station,
  type University,
} from "./records.js";
import { rankStations } from "./stations.js";

type Tx = Pick<Database, "exec" | "query">;

/** Progress of a running import. */
export interface ImportProgress {
  section: SectionName;
  records: number;
}

export interface ImportOptions {
  /** Called now and then while records stream in. */
  onProgress?: (progress: ImportProgress) => void;
  /** Observations staged per statement. */
  batchSize?: number;
}

/** What an import stored. */
export interface ImportSummary {
  universities: number;
  courses: number;
  papers: number;
  conferences: number;
  hubPacks: number;
  packVersions: number;
  stations: number;
  observations: number;
}

interface Column {
  name: string;
  type: string;
}

const col = (name: string, type = "text"): Column => ({ name, type });

/** Upserts rows (objects keyed by column name) through one jsonb parameter per chunk. */
async function upsert(tx: Tx, table: string, key: string[], columns: Column[], rows: object[]): Promise<void> {
  const names = columns.map((c) => `"${c.name}"`).join(", ");
  const record = columns.map((c) => `"${c.name}" ${c.type.startsWith('"') ? "text" : c.type}`).join(", ");
  const values = columns.map((c) => (c.type.startsWith('"') ? `r."${c.name}"::${c.type}` : `r."${c.name}"`)).join(", ");
  const updates = columns
    .filter((c) => !key.includes(c.name))
    .map((c) => `"${c.name}" = EXCLUDED."${c.name}"`)
    .join(", ");
  const sql =
    `INSERT INTO "${table}" (${names}) SELECT ${values} FROM jsonb_to_recordset($1::jsonb) AS r(${record}) ` +
    `ON CONFLICT (${key.map((k) => `"${k}"`).join(", ")}) DO ${updates ? `UPDATE SET ${updates}` : "NOTHING"}`;
  for (let i = 0; i < rows.length; i += 1000) {
    await tx.query(sql, [JSON.stringify(rows.slice(i, i + 1000))]);
  }
}

/** Deletes the rows of `table` whose key is not among `keys`. */
async function deleteAbsent(tx: Tx, table: string, key: Column[], keys: object[]): Promise<void> {
  const record = key.map((c) => `"${c.name}" ${c.type}`).join(", ");
  const match = key.map((c) => `k."${c.name}" = t."${c.name}"`).join(" AND ");
  await tx.query(`DELETE FROM "${table}" t WHERE NOT EXISTS (SELECT 1 FROM jsonb_to_recordset($1::jsonb) AS k(${record}) WHERE ${match})`, [
    JSON.stringify(keys),
  ]);
}

class Collector {
  format: unknown = undefined;
  universities: University[] = [];
  courses: Course[] = [];
  papers: Paper[] = [];
  conferences: Conference[] = [];
  hubPacks: HubPack[] = [];
  stations: Station[] = [];
  observations = 0;
  private seen = new Map<string, Map<string, number>>();

  /** Refuses a second record with the same key in one section. */
  unique(section: string, index: number, field: string, value: string | number): void {
    let keys = this.seen.get(`${section}.${field}`);
    if (!keys) {
      keys = new Map();
      this.seen.set(`${section}.${field}`, keys);
    }
    const key = String(value);
    const first = keys.get(key);
    if (first !== undefined) {
      throw new ImportError(`${section}[${index}].${field}: ${JSON.stringify(value)} already used by ${section}[${first}]`);
    }
    keys.set(key, index);
  }
}

const OBSERVATION_COLUMNS = ["temp_c", "rh", "precip_mm", "pm25_ugm3", "pm10_ugm3", "aqi"] as const;

/** Imports the export read from `input`. Throws ImportError (nothing changed) when it is invalid. */
export async function importExport(db: Database, input: Readable, options: ImportOptions = {}): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? 5000;
  return db.transaction(async (tx) => {
    await tx.exec(`CREATE TEMP TABLE import_observation (
      idx bigint NOT NULL, station_id text NOT NULL, observed_at timestamptz(3) NOT NULL,
      temp_c float8, rh float8, precip_mm float8, pm25_ugm3 float8, pm10_ugm3 float8, aqi float8
    ) ON COMMIT DROP`);
    const c = new Collector();
    let batch: (Observation & { idx: number })[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await tx.query(
        `INSERT INTO import_observation SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
          idx bigint, station_id text, observed_at timestamptz, temp_c float8, rh float8,
          precip_mm float8, pm25_ugm3 float8, pm10_ugm3 float8, aqi float8)`,
        [JSON.stringify(batch)],
      );
      batch = [];
    };

    await readExport(input, {
      header(key, value) {
        if (key === "format") c.format = value;
      },
      async record(section, index, value) {
        switch (section) {
          case "universities": {
            const u = parseRecord(section, index, value);
            c.unique(section, index, "id", u.id);
            c.unique(section, index, "code", u.code.toLowerCase());
            c.universities.push(u);
            break;
          }
          case "courses": {
            const r = parseRecord(section, index, value);
            c.unique(section, index, "id", r.id);
            c.courses.push(r);
            break;
          }
          case "papers": {
            const r = parseRecord(section, index, value);
            c.unique(section, index, "slug", r.slug);
            c.papers.push(r);
            break;
          }
          case "conferences": {
            const r = parseRecord(section, index, value);
            c.unique(section, index, "slug", r.slug);
            c.conferences.push(r);
            break;
          }
          case "hub_packs": {
            const r = parseRecord(section, index, value);
            c.unique(section, index, "id", r.id);
            const versions = new Set<string>();
            r.versions.forEach((v, i) => {
              if (versions.has(v.version)) {
                throw new ImportError(`hub_packs[${index}].versions[${i}].version: ${v.version} appears twice`);
              }
              versions.add(v.version);
            });
            c.hubPacks.push(r);
            break;
          }
          case "stations": {
            const r = parseRecord(section, index, value);
            c.unique(section, index, "id", r.id);
            c.stations.push(r);
            break;
          }
          case "observations": {
            batch.push({ ...parseRecord(section, index, value), idx: index });
            c.observations++;
            if (batch.length >= batchSize) await flush();
            break;
          }
        }
        const count = section === "observations" ? c.observations : index + 1;
        if (count % (section === "observations" ? 50_000 : 500) === 0) options.onProgress?.({ section, records: count });
      },
    });
    await flush();
    if (c.observations > 0) options.onProgress?.({ section: "observations", records: c.observations });

    if (c.format !== EXPORT_FORMAT) {
      throw new ImportError(`format: expected "${EXPORT_FORMAT}", got ${JSON.stringify(c.format ?? null)}`);
    }
    await checkReferences(tx, c);
    await store(tx, c);
    return {
      universities: c.universities.length,
      courses: c.courses.length,
      papers: c.papers.length,
      conferences: c.conferences.length,
      hubPacks: c.hubPacks.length,
      packVersions: c.hubPacks.reduce((n, p) => n + p.versions.length, 0),
      stations: c.stations.length,
      observations: c.observations,
    };
  });
}

async function checkReferences(tx: Tx, c: Collector): Promise<void> {
  const universityIds = new Set(c.universities.map((u) => u.id));
  c.courses.forEach((course, i) => {
    if (!universityIds.has(course.university_id)) {
      throw new ImportError(`courses[${i}].university_id: no university with id ${course.university_id}`);
    }
  });
  await tx.exec(`CREATE INDEX import_observation_key ON import_observation (station_id, observed_at, idx)`);
  const unknown = await tx.query<{ idx: string; station_id: string }>(
    `SELECT idx::text, station_id FROM import_observation
      WHERE station_id NOT IN (SELECT jsonb_array_elements_text($1::jsonb)) ORDER BY idx LIMIT 1`,
    [JSON.stringify(c.stations.map((s) => s.id))],
  );
  if (unknown[0]) {
    throw new ImportError(`observations[${unknown[0].idx}].station_id: no station with id ${JSON.stringify(unknown[0].station_id)}`);
  }
  const duplicate = await tx.query<{ idx: string; first: string }>(
    `SELECT a.idx::text, min(b.idx)::text AS first FROM import_observation a
       JOIN import_observation b ON b.station_id = a.station_id AND b.observed_at = a.observed_at AND b.idx < a.idx
      GROUP BY a.idx ORDER BY a.idx LIMIT 1`,
  );
  if (duplicate[0]) {
    throw new ImportError(`observations[${duplicate[0].idx}]: same station and observed_at as observations[${duplicate[0].first}]`);
  }
}

async function store(tx: Tx, c: Collector): Promise<void> {
  // Children first for removals (cascades would do, but explicit is clearer),
  // parents first for upserts.
  await upsert(
    tx,
    "university",
    ["id"],
    [
      col("id", "int"),
      col("code"),
      col("code_key"),
      col("name_zh"),
      col("name_en"),
      col("short_name"),
      col("region"),
      col("country", '"Country"'),
      col("timezone"),
      col("latitude", "float8"),
      col("longitude", "float8"),
    ],
    c.universities.map((u) => ({ ...u, code_key: u.code.toLowerCase() })),
  );
  await deleteAbsent(
    tx,
    "university",
    [col("id", "int")],
    c.universities.map((u) => ({ id: u.id })),
  );

  await upsert(
    tx,
    "course",
    ["id"],
    [
      col("id", "int"),
      col("university_id", "int"),
      col("class_name"),
      col("course_number"),
      col("course_class"),
      col("course_name_chinese"),
      col("course_name_english"),
      col("instructor"),
      col("instructor_english"),
      col("department"),
      col("department_english"),
      col("semester"),
      col("start_date", "date"),
      col("end_date", "date"),
      col("teaching_goal"),
      col("teaching_goal_english"),
      col("teaching_content"),
      col("teaching_content_english"),
      col("class_memo"),
      col("is_public", "boolean"),
      col("join_code"),
    ],
    c.courses,
  );
  await deleteAbsent(
    tx,
    "course",
    [col("id", "int")],
    c.courses.map((r) => ({ id: r.id })),
  );

  await upsert(
    tx,
    "paper",
    ["slug"],
    [
      col("slug"),
      col("title"),
      col("title_zh"),
      col("authors", "text[]"),
      col("conference"),
      col("year", "int"),
      col("doi"),
      col("category"),
      col("platform_feature"),
      col("award"),
    ],
    c.papers,
  );
  await deleteAbsent(
    tx,
    "paper",
    [col("slug")],
    c.papers.map((r) => ({ slug: r.slug })),
  );

  await upsert(
    tx,
    "conference",
    ["slug"],
    [
      col("slug"),
      col("name"),
      col("name_short"),
      col("year", "int"),
      col("dates"),
      col("location"),
      col("website"),
      col("organizer"),
      col("indexing"),
      col("relationship", '"ConferenceRelationship"'),
    ],
    c.conferences,
  );
  await deleteAbsent(
    tx,
    "conference",
    [col("slug")],
    c.conferences.map((r) => ({ slug: r.slug })),
  );

  await upsert(
    tx,
    "hub_pack",
    ["id"],
    [
      col("id"),
      col("name"),
      col("summary"),
      col("readme_md"),
      col("asset_type", '"AssetType"'),
      col("subject"),
      col("education_level", '"EducationLevel"'),
      col("bloom_levels", "text[]"),
      col("difficulty"),
      col("star_count", "int"),
      col("install_count", "int"),
      col("owner_name"),
      col("visibility", '"PackVisibility"'),
      col("safety_status", '"SafetyStatus"'),
      col("latest_version"),
      col("latest_published_at", "timestamptz"),
      col("payload", "jsonb"),
    ],
    c.hubPacks.map((p) => {
      const latest = p.versions.filter((v) => v.safety_status === "passed").sort((a, b) => compareSemver(b.version, a.version))[0];
      return {
        ...p,
        versions: undefined,
        payload: p.payload ?? null,
        latest_version: latest?.version ?? null,
        latest_published_at: latest?.published_at ?? null,
      };
    }),
  );
  await deleteAbsent(
    tx,
    "hub_pack",
    [col("id")],
    c.hubPacks.map((p) => ({ id: p.id })),
  );
  const versions = c.hubPacks.flatMap((p) => p.versions.map((v) => ({ ...v, pack_id: p.id, payload: v.payload ?? null })));
  await upsert(
    tx,
    "hub_pack_version",
    ["pack_id", "version"],
    [
      col("pack_id"),
      col("version"),
      col("published_at", "timestamptz"),
      col("changelog"),
      col("safety_status", '"SafetyStatus"'),
      col("payload", "jsonb"),
    ],
    versions,
  );
  await deleteAbsent(
    tx,
    "hub_pack_version",
    [col("pack_id"), col("version")],
    versions.map((v) => ({ pack_id: v.pack_id, version: v.version })),
  );

  await upsert(
    tx,
    "station",
    ["id"],
    [
      col("id"),
      col("name"),
      col("kind", '"StationKind"'),
      col("source", '"StationSource"'),
      col("country", '"Country"'),
      col("latitude", "float8"),
      col("longitude", "float8"),
    ],
    c.stations,
  );
  await deleteAbsent(
    tx,
    "station",
    [col("id")],
    c.stations.map((s) => ({ id: s.id })),
  );

  const metrics = OBSERVATION_COLUMNS.map((m) => `"${m}"`).join(", ");
  await tx.exec(
    `DELETE FROM observation o WHERE NOT EXISTS (
       SELECT 1 FROM import_observation i WHERE i.station_id = o.station_id AND i.observed_at = o.observed_at)`,
  );
  await tx.exec(
    `INSERT INTO observation (station_id, observed_at, ${metrics})
     SELECT station_id, observed_at, ${metrics} FROM import_observation
     ON CONFLICT (station_id, observed_at) DO UPDATE SET ${OBSERVATION_COLUMNS.map((m) => `"${m}" = EXCLUDED."${m}"`).join(", ")}`,
  );

  await tx.exec(`DELETE FROM school_station`);
  await upsert(
    tx,
    "school_station",
    ["university_id", "station_id"],
    [col("university_id", "int"), col("station_id"), col("kind", '"StationKind"'), col("rank", "int"), col("distance_m", "float8")],
    rankStations(c.universities, c.stations),
  );
}
