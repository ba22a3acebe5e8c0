/**
 * Shared by the importer tests: table dumps, exports as streams, and a
 * generated export of any size.
 */
import { Readable } from "node:stream";
import type { Database } from "../../src/db/driver.js";
import type { ExportPackVersionRecord } from "../../src/import/records.js";
import { canaryExport } from "../support/canary.js";

/** A Pack version as the export carries it. */
type PackVersionIn = ExportPackVersionRecord;
type Base = ReturnType<typeof canaryExport>;
/** The canary export's shape, with its Pack versions typed. */
export type Export = Omit<Base, "hub_packs"> & {
  hub_packs: (Omit<Base["hub_packs"][number], "versions"> & { versions: PackVersionIn[] })[];
};

/** A deep copy of the canary export, free to change. */
export const canary = (): Export => structuredClone(canaryExport()) as Export;

/**
 * Every table of the public schema as JSON text, rows in a fixed order,
 * instants in UTC (so that dumps compare whatever the session time zone), but
 * `data_version`: it counts the commits that changed the data, so every
 * import moves it (test/environment/stored.test.ts checks it).
 */
export async function dumpTables(db: Pick<Database, "transaction">): Promise<Record<string, string>> {
  return db.transaction(async (tx) => {
    await tx.exec(`SET LOCAL TIME ZONE 'UTC'`);
    const tables = await tx.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_name <> 'data_version' ORDER BY table_name`,
    );
    const dump: Record<string, string> = {};
    for (const { name } of tables) {
      const [row] = await tx.query<{ rows: string }>(`SELECT coalesce(json_agg(t ORDER BY t::text)::text, '[]') AS rows FROM "${name}" t`);
      dump[name] = row!.rows;
    }
    return dump;
  });
}

/** Row counts of the data tables. */
export async function counts(db: Pick<Database, "query">): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}"`);
    out[table] = row!.n;
  }
  return out;
}

/** The service's own tables, which no import writes and every import keeps: keys, their usage, accounts and sessions. */
export const SERVICE_TABLES = [
  "api_key",
  "usage_coordinate",
  "usage_day",
  "usage_batch",
  "sign_in_token",
  "account_session",
  "session_secret",
] as const;

export const TABLES = [
  "university",
  "course",
  "paper",
  "conference",
  "hub_pack",
  "hub_pack_version",
  "station",
  "observation",
  "school_station",
] as const;

/** The row counts the canary export gives. */
export const CANARY_COUNTS = {
  university: 3,
  course: 6,
  paper: 2,
  conference: 2,
  hub_pack: 4,
  hub_pack_version: 6,
  station: 2,
  observation: 2,
  school_station: 6, // 3 schools x (1 weather + 1 air station)
};

/** The summary importExport returns for the canary export. */
export const CANARY_SUMMARY = {
  universities: 3,
  courses: 6,
  papers: 2,
  conferences: 2,
  hubPacks: 4,
  packVersions: 6,
  stations: 2,
  observations: 2,
};

/** A text as a stream of small chunks, so records are split across chunk boundaries. */
export function textStream(text: string, chunk = 64): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < text.length; i += chunk) yield text.slice(i, i + chunk);
    })(),
    { objectMode: false },
  );
}

/**
 * A generated export: the canary's universities and `stations` air stations
 * with `hours` hourly observations each, produced chunk by chunk from a
 * generator (the document never exists as one string). `padding` adds an
 * unknown field of that many characters to every observation.
 */
export function generatedExport(stations: number, hours: number, padding = 0): Readable {
  const start = Date.UTC(2026, 0, 1);
  const note = "x".repeat(padding);
  return Readable.from(
    (function* () {
      const base = canary();
      yield `{"format":"platform-export/1","universities":${JSON.stringify(base.universities)},"stations":[`;
      for (let s = 0; s < stations; s++) {
        yield `${s ? "," : ""}{"id":"st-${s}","name":"Station ${s}","kind":"air","source":"moenv","country":"TW",` +
          `"latitude":${24 + s / 100},"longitude":${121 + s / 100}}`;
      }
      yield `],"observations":[`;
      for (let h = 0; h < hours; h++) {
        const at = new Date(start + h * 3_600_000).toISOString();
        const rows: string[] = [];
        for (let s = 0; s < stations; s++) {
          rows.push(
            `{"station_id":"st-${s}","observed_at":"${at}","pm25_ugm3":${(h + s) % 80},"aqi":${(h * s) % 200}` +
              `${padding ? `,"note":"${note}"` : ""}}`,
          );
        }
        yield `${h ? "," : ""}${rows.join(",")}`;
      }
      yield `]}`;
    })(),
    { objectMode: false },
  );
}
