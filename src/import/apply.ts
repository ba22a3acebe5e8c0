/**
 * Imports one platform export (docs/contract.md §6) in a single transaction:
 * validate every record while streaming, stage the large sections (courses,
 * observations) in temporary tables a batch at a time, so that memory stays
 * bounded whatever the export's size (a million courses), check keys and cross
 * references, then upsert by key and remove what the export no longer holds.
 * Any problem rolls everything back, so a failed import changes nothing.
 *
 * The export's field names are the tables' column names, so a record
 * validated by its schema (records.ts) is a row: PostgreSQL turns each value
 * into its column's type, from COPY's text for the staged sections
 * (src/db/copy-text.ts) and from JSON for the others
 * (`jsonb_populate_recordset`). A column added
 * to the Prisma schema and its migration is in the record's schema already
 * (src/generated/columns.ts), so it is stored with no edit here.
 */
import { announceChange } from "../db/changes.js";
import { copyRow } from "../db/copy-text.js";
import type { Database, Transaction as Tx } from "../db/driver.js";
import { compareSemver } from "../domain/semver.js";
import { rebuildCourseSummaries } from "./courses.js";
import { rebuildStationDays } from "./daily.js";
import { type ExportSource, readSource } from "./read.js";
import { importRows } from "../observe/metrics.js";
import type { Progress } from "../observe/progress.js";
import { EXPORT_FORMAT, ImportError, ObservationRecord, parseRecord, type SectionName, type Stored } from "./records.js";
import { refreshRankings } from "./stations.js";

/**
 * Merges the pending entries of every GIN index of the schema (see
 * importExport) that the importing role may merge: PostgreSQL lets only an
 * index's owner do it, and an import by another role goes on without.
 */
const GIN_MERGE = `SELECT gin_clean_pending_list(i.oid)
                     FROM pg_class i JOIN pg_am a ON a.oid = i.relam
                    WHERE a.amname = 'gin' AND i.relnamespace = current_schema()::regnamespace
                      AND pg_has_role(i.relowner, 'USAGE')`;

/**
 * The tables whose statistics an import takes: those of its schema that its
 * role may analyze (as GIN_MERGE's indexes), which hold what it wrote and
 * what is computed from it. A bare `ANALYZE` also sampled the system
 * catalogs and the import's temporary tables: on a migrated database with no
 * rows it took 120-195 ms, against 3-11 ms for these; after the demo data,
 * 181-197 ms against 130-140 ms.
 */
const ANALYZED = `SELECT string_agg(c.oid::regclass::text, ', ' ORDER BY c.relname) AS tables
                    FROM pg_class c
                   WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace
                     AND pg_has_role(c.relowner, 'USAGE')`;

export interface ImportOptions {
  /**
   * Told of each phase: `validating` (bytes read, of `size`, and records by
   * section), `checking references`, `writing` (rows) and `committing`.
   */
  progress?: Progress | undefined;
  /** The export's size in bytes, when it is known. */
  size?: number | null | undefined;
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

/** The sections stored row by row (observations go through a staging table). */
type TableSection = Exclude<SectionName, "observations">;

interface Table<S extends TableSection> {
  /** The table the section's records are stored in. */
  table: string;
  /** The columns a row is matched by; no two records of an export may share them. */
  key: readonly (keyof Stored<S> & string)[];
  /** Further checks of one record, besides its schema. */
  check?: (record: Stored<S>, index: number, seen: Seen) => void;
  /** The row of a record, when it is more than the record itself. */
  row?: (record: Stored<S>) => object;
  /**
   * Held in a staging table as it is read instead of in memory: a section as
   * large as the catalogue. Its keys are checked there; it has no `check` or `row`.
   */
  staged?: true;
}

/** Each section's table, in the order parents before children. */
const TABLES: { [S in TableSection]: Table<S> } = {
  universities: {
    table: "university",
    key: ["id"],
    check: (u, index, seen) => seen.unique("universities", index, "code", u.code, true),
    row: (u) => ({ ...u, code_key: u.code.toLowerCase() }),
  },
  courses: { table: "course", key: ["id"], staged: true },
  papers: { table: "paper", key: ["slug"] },
  conferences: { table: "conference", key: ["slug"] },
  hub_packs: {
    table: "hub_pack",
    key: ["id"],
    check: (p, index) => {
      const versions = new Set<string>();
      p.versions.forEach((v, i) => {
        if (versions.has(v.version)) throw new ImportError(`hub_packs[${index}].versions[${i}].version: ${v.version} appears twice`);
        versions.add(v.version);
      });
    },
    row: ({ versions, ...pack }) => {
      const latest = versions.filter((v) => v.safety_status === "passed").sort((a, b) => compareSemver(b.version, a.version))[0];
      return {
        ...pack,
        latest_version: latest?.version ?? null,
        latest_published_at: latest?.published_at ?? null,
      };
    },
  },
  stations: { table: "station", key: ["id"] },
};

const TABLE_SECTIONS = Object.keys(TABLES) as TableSection[];

/** An observation's measured values: every field of its record but the key. */
const METRICS = Object.keys(ObservationRecord.shape).filter((f) => f !== "station_id" && f !== "observed_at");

/** The rows of every Pack's versions, which the export nests in their Pack. */
const versionRows = (packs: Stored<"hub_packs">[]) => packs.flatMap((p) => p.versions.map((v) => ({ ...v, pack_id: p.id })));

/** Upserts rows (objects keyed by column name) through one jsonb parameter per chunk. */
async function upsert(tx: Tx, table: string, key: readonly string[], rows: object[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!).map((c) => `"${c}"`);
  const updates = columns.filter((c) => !key.includes(c.slice(1, -1))).map((c) => `${c} = EXCLUDED.${c}`);
  const sql =
    `INSERT INTO "${table}" (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::"${table}", $1::jsonb) ` +
    `ON CONFLICT (${key.map((k) => `"${k}"`)}) DO ${updates.length ? `UPDATE SET ${updates}` : "NOTHING"}`;
  for (let i = 0; i < rows.length; i += 1000) {
    await tx.query(sql, [JSON.stringify(rows.slice(i, i + 1000))]);
  }
}

/** Deletes the rows of `table` whose key is not among those of `rows`. */
async function deleteAbsent(tx: Tx, table: string, key: readonly string[], rows: object[]): Promise<void> {
  const keys = rows.map((row) => Object.fromEntries(key.map((k) => [k, (row as { [k: string]: unknown })[k]])));
  const match = key.map((k) => `k."${k}" = t."${k}"`).join(" AND ");
  await tx.query(
    `DELETE FROM "${table}" t WHERE NOT EXISTS (SELECT 1 FROM jsonb_populate_recordset(NULL::"${table}", $1::jsonb) k WHERE ${match})`,
    [JSON.stringify(keys)],
  );
}

/** Upserts a staged section into its table, then deletes the rows whose key it does not hold. */
async function upsertStaged(tx: Tx, stage: Staging, key: readonly string[]): Promise<void> {
  const columns = [...stage.columns].map((c) => `"${c}"`);
  const updates = columns.filter((c) => !key.includes(c.slice(1, -1))).map((c) => `${c} = EXCLUDED.${c}`);
  const keys = key.map((k) => `"${k}"`);
  if (stage.count > 0) {
    await tx.exec(
      `INSERT INTO "${stage.table}" (${columns}) SELECT ${columns} FROM ${stage.name} ` +
        `ON CONFLICT (${keys}) DO ${updates.length ? `UPDATE SET ${updates}` : "NOTHING"}`,
    );
  }
  await tx.exec(
    `DELETE FROM "${stage.table}" t WHERE NOT EXISTS (SELECT 1 FROM ${stage.name} k WHERE ${keys.map((k) => `k.${k} = t.${k}`).join(" AND ")})`,
  );
}

/** The keys seen so far, to refuse a second record with the same one. */
class Seen {
  private keys = new Map<string, Map<string, { index: number; value: unknown }>>();

  /** Refuses the record at `index` when an earlier one of its section has the same `value` for `field` (a school's code: ignoring case). */
  unique(section: string, index: number, field: string, value: unknown, ignoringCase = false): void {
    const key = ignoringCase ? String(value).toLowerCase() : String(value);
    let keys = this.keys.get(`${section}.${field}`);
    if (!keys) {
      keys = new Map();
      this.keys.set(`${section}.${field}`, keys);
    }
    const first = keys.get(key);
    if (first !== undefined) {
      const differs = ignoringCase && first.value !== value ? ` ${JSON.stringify(first.value)}, ignoring case` : "";
      throw new ImportError(`${repeatedKey(section, field, index, value, first.index)}${differs}`);
    }
    keys.set(key, { index, value });
  }
}

/** `universities[3].code "NTU" is also universities[0].code`: both records a repeated key names. */
const repeatedKey = (section: string, field: string, index: unknown, value: unknown, first: unknown) =>
  `${section}[${index}].${field} ${JSON.stringify(value)} is also ${section}[${first}].${field}`;

type Collected = { [S in TableSection]: Stored<S>[] };

/**
 * Records of one section written to a temporary table (`import_<table>`, the
 * table's columns and each record's index in its section) a batch at a time
 * as they are read, so that no more than a batch is held.
 */
class Staging {
  readonly name: string;
  /** Records staged so far. */
  count = 0;
  /** Every column some record has set, in the order first seen. */
  readonly columns = new Set<string>();
  private batch: { record: Record<string, unknown>; idx: number }[] = [];

  constructor(
    private readonly tx: Tx,
    readonly table: string,
    private readonly batchSize: number,
  ) {
    this.name = `import_${table}`;
  }

  create(): Promise<void> {
    return this.tx.exec(`CREATE TEMP TABLE ${this.name} (idx bigint NOT NULL, LIKE "${this.table}") ON COMMIT DROP`);
  }

  /** Adds a record; a promise only when a batch is written, so that the reader waits only then. */
  add(record: object, idx: number): Promise<void> | undefined {
    for (const column in record) this.columns.add(column);
    this.batch.push({ record: record as Record<string, unknown>, idx });
    this.count++;
    if (this.batch.length >= this.batchSize) return this.flush();
  }

  /**
   * Writes the batch with one COPY: against the same rows as a JSON array
   * through `jsonb_populate_recordset`, 96,572 observations took a third of
   * the server's CPU (90-110 against 340-460 ms) and two thirds of ours.
   */
  async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const columns = [...this.columns];
    let text = "";
    for (const { record, idx } of this.batch) text += copyRow([idx, ...columns.map((c) => record[c])]);
    this.batch = [];
    await this.tx.copyIn(`COPY ${this.name} (${["idx", ...columns].map((c) => `"${c}"`)}) FROM STDIN`, [text]);
  }

  /** Indexes the staged records by `key`, then refuses the first that repeats an earlier one's key. */
  async checkKeys(section: string, key: readonly string[]): Promise<void> {
    const columns = key.map((k) => `"${k}"`);
    await this.tx.exec(`CREATE INDEX ${this.name}_key ON ${this.name} (${columns}, idx)`);
    const [repeated] = await this.tx.query<{ idx: string; first: string; value: unknown }>(
      `SELECT a.idx::text, min(b.idx)::text AS first, to_jsonb(a.${columns[0]}) AS value FROM ${this.name} a
         JOIN ${this.name} b ON ${key.map((k) => `b."${k}" = a."${k}"`).join(" AND ")} AND b.idx < a.idx
        GROUP BY a.idx, a.${columns[0]} ORDER BY a.idx LIMIT 1`,
    );
    if (repeated) {
      if (key.length !== 1) throw new ImportError(`${section}[${repeated.idx}]: same key as ${section}[${repeated.first}]`);
      throw new ImportError(repeatedKey(section, key[0]!, repeated.idx, repeated.value, repeated.first));
    }
  }
}

/** Imports the export read from `input` (its text, or its records). Throws ImportError (nothing changed) when it is invalid. */
export async function importExport(
  db: Pick<Database, "transaction">,
  input: ExportSource,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? 5000;
  const summary = await db.transaction(async (tx): Promise<ImportSummary> => {
    // Keys besides the one a section is matched by (a school's code) are
    // checked at commit: a row that leaves or changes may still hold a key
    // that an arriving row takes (the demo's NTU is 1, an export's is 12; two
    // schools swap codes). The export's own keys were checked as it was read,
    // so the commit finds what the export alone would give.
    await tx.exec("SET CONSTRAINTS ALL DEFERRED");
    // No JIT for the import's statements (the embedded server has none at
    // all, src/db/embedded.ts): what they write has no statistics until the
    // import's ANALYZE, so the planner takes a bulk statement for millions of
    // rows (the demo's station_day rebuild for 11.7 million instead of
    // 290,000) and compiles it, which took longer than running it (861 ms
    // against about 410 on PostgreSQL 15). A first start's demo import cost
    // the machine 0.45 CPU-s less; at the seed's Taiwan scale JIT gained
    // nothing (docs/performance.md).
    await tx.exec("SET LOCAL jit = off");
    const observations = new Staging(tx, "observation", batchSize);
    const staged = new Map<TableSection, Staging>();
    for (const section of TABLE_SECTIONS) {
      const table: Table<typeof section> = TABLES[section];
      if (!table.staged) continue;
      if (table.check || table.row) throw new Error(`import: the staged section ${section} cannot have a check or a row`);
      // A fifth of the observations' batch: a course is about five times an observation's size.
      staged.set(section, new Staging(tx, table.table, Math.max(1, Math.floor(batchSize / 5))));
    }
    for (const stage of [observations, ...staged.values()]) await stage.create();
    const records = Object.fromEntries(TABLE_SECTIONS.map((s) => [s, []])) as unknown as Collected;
    const seen = new Seen();
    let format: unknown;

    const collect = <S extends TableSection>(section: S, index: number, value: unknown) => {
      const record = parseRecord(section, index, value);
      const table: Table<S> = TABLES[section];
      for (const k of table.key) seen.unique(section, index, k, record[k]);
      table.check?.(record, index, seen);
      records[section].push(record);
    };

    const progress = options.progress;
    progress?.phase("validating", { total: options.size, unit: "bytes" });
    await readSource(input, {
      bytes: (read) => progress?.set(read),
      header(key, value) {
        if (key === "format") format = value;
      },
      // Not async: a promise only when a batch is written, so that the reader waits only then.
      record(section, index, value) {
        progress?.rows(section, index + 1);
        if (section === "observations") return observations.add(parseRecord(section, index, value), index);
        const stage = staged.get(section);
        if (stage) return stage.add(parseRecord(section, index, value), index);
        collect(section, index, value);
      },
    });
    for (const stage of [observations, ...staged.values()]) await stage.flush();

    if (format !== EXPORT_FORMAT) {
      throw new ImportError(`format: expected "${EXPORT_FORMAT}", got ${JSON.stringify(format ?? null)}`);
    }
    progress?.phase("checking references");
    for (const [section, stage] of staged) await stage.checkKeys(section, TABLES[section].key);
    await checkReferences(tx, records);
    const counts = Object.fromEntries(TABLE_SECTIONS.map((s) => [s, staged.get(s)?.count ?? records[s].length])) as Record<
      TableSection,
      number
    >;
    await store(tx, records, staged, counts, observations.count, progress);
    await rebuildStationDays(tx);
    await rebuildCourseSummaries(tx);
    // The planner's statistics, taken now and committed with the data: the
    // first queries after an import would otherwise be planned on none (or on
    // the previous data's) until autovacuum gets to them a minute or more
    // later; the nested GraphQL query took 17 ms in the database instead of 3.7.
    progress?.phase("committing");
    const [{ tables }] = (await tx.query<{ tables: string | null }>(ANALYZED)) as [{ tables: string | null }];
    if (tables) await tx.exec(`ANALYZE ${tables}`);
    // The trigram indexes' pending entries, merged into them now: each search
    // would otherwise read the whole pending list (up to gin_pending_list_limit,
    // 4 MB) until autovacuum merges it; Packs' `q` over 3,000 Packs took 11 ms
    // instead of 0.2.
    await tx.exec(GIN_MERGE);
    await announceChange(tx);
    return {
      universities: counts.universities,
      courses: counts.courses,
      papers: counts.papers,
      conferences: counts.conferences,
      hubPacks: counts.hub_packs,
      packVersions: records.hub_packs.reduce((n, p) => n + p.versions.length, 0),
      stations: counts.stations,
      observations: observations.count,
    };
  });
  for (const [section, rows] of Object.entries(summary)) importRows.inc({ section }, rows);
  return summary;
}

async function checkReferences(tx: Tx, c: Collected): Promise<void> {
  const [course] = await tx.query<{ idx: string; university_id: number }>(
    `SELECT idx::text, university_id FROM import_course WHERE university_id <> ALL ($1::int[]) ORDER BY idx LIMIT 1`,
    [c.universities.map((u) => u.id)],
  );
  if (course) throw new ImportError(`courses[${course.idx}].university_id: no university with id ${course.university_id}`);
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

/** Writes what the export holds, telling `progress` the rows written so far. */
async function store(
  tx: Tx,
  c: Collected,
  staged: ReadonlyMap<TableSection, Staging>,
  counts: Record<TableSection, number>,
  observations: number,
  progress: Progress | undefined,
): Promise<void> {
  const versions = versionRows(c.hub_packs);
  let written = 0;
  const wrote = (rows: number) => {
    written += rows;
    progress?.set(written);
  };
  const total = TABLE_SECTIONS.reduce((n, s) => n + counts[s], 0) + versions.length + observations;
  progress?.phase("writing", { total, unit: "rows" });
  // Parents first; removing a parent cascades to its children.
  for (const section of TABLE_SECTIONS) {
    const { table, key, row } = TABLES[section] as Table<typeof section>;
    const stage = staged.get(section);
    if (stage) {
      await upsertStaged(tx, stage, key);
      wrote(stage.count);
      continue;
    }
    const rows = row ? (c[section] as Stored<typeof section>[]).map(row) : c[section];
    await upsert(tx, table, key, rows);
    await deleteAbsent(tx, table, key, rows);
    wrote(rows.length);
  }
  await upsert(tx, "hub_pack_version", ["pack_id", "version"], versions);
  await deleteAbsent(tx, "hub_pack_version", ["pack_id", "version"], versions);
  wrote(versions.length);

  const metrics = METRICS.map((m) => `"${m}"`);
  await tx.exec(
    `DELETE FROM observation o WHERE NOT EXISTS (
       SELECT 1 FROM import_observation i WHERE i.station_id = o.station_id AND i.observed_at = o.observed_at)`,
  );
  await tx.exec(
    `INSERT INTO observation (station_id, observed_at, ${metrics})
     SELECT station_id, observed_at, ${metrics} FROM import_observation
     ON CONFLICT (station_id, observed_at) DO UPDATE SET ${metrics.map((m) => `${m} = EXCLUDED.${m}`)}`,
  );
  wrote(observations);

  await refreshRankings(tx);
}
