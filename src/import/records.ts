/**
 * The records of the platform export (docs/contract.md §6) and their validation.
 *
 * Each schema keeps only the fields the gateway stores: everything else in a
 * record, personal data included (students, teacher settings, a Pack owner's
 * e-mail), is stripped here and never reaches the database.
 */
import * as z from "zod";
import { COLUMNS } from "../generated/columns.js";
import { count, id, optional, text } from "./rules.js";

/** The export's name and version; an export of any other format is refused. */
export const EXPORT_FORMAT = "platform-export/1";

const year = z.number().int().min(1900).max(2200);
/** A number within bounds, refused in words that name them. */
const between = (min: number, max: number) => {
  const message = `expected a number from ${min} to ${max}`;
  return z.number().min(min, { message }).max(max, { message });
};
const latitude = between(-90, 90);
const longitude = between(-180, 180);
const timeZone = text.refine(
  (zone) => {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  },
  { message: "expected an IANA time zone such as Asia/Taipei" },
);

// Each record is its model's columns (src/generated/columns.ts, with the rule
// each column's type implies), less the columns the importer derives, with
// the rules of its own where a column needs more than its type.

const UniversityRecord = z.object(COLUMNS.University).omit({ code_key: true }).extend({ id, timezone: timeZone, latitude, longitude });

const CourseRecord = z.object(COLUMNS.Course).extend({
  id,
  university_id: id,
  semester: z.string().regex(/^\d{3}-[1-9]$/, { message: "expected <year>-<term>, like 113-1" }),
});

const PaperRecord = z.object(COLUMNS.Paper).extend({ year });

const ConferenceRecord = z.object(COLUMNS.Conference).extend({ year });

const PackVersionRecord = z
  .object(COLUMNS.HubPackVersion)
  .omit({ pack_id: true })
  .extend({
    version: z.string().regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, {
      message: "expected a semantic version like 1.2.0",
    }),
  });

const HubPackRecord = z
  .object(COLUMNS.HubPack)
  .omit({ latest_version: true, latest_published_at: true })
  .extend({
    difficulty: z
      .union([z.string(), z.number()])
      .nullish()
      .transform((v) => (v === undefined || v === null || v === "" ? null : String(v))),
    star_count: count,
    install_count: count,
    versions: z
      .array(PackVersionRecord)
      .nullish()
      .transform((v) => v ?? []),
  });

const StationRecord = z.object(COLUMNS.Station).extend({ latitude, longitude });

/** A measured value within bounds that may be missing: missing is stored as null. */
const reading = (min: number, max: number) => optional(between(min, max));

export const ObservationRecord = z.object(COLUMNS.Observation).extend({
  temp_c: reading(-90, 70),
  rh: reading(0, 100),
  precip_mm: reading(0, 1000),
  pm25_ugm3: reading(0, 2000),
  pm10_ugm3: reading(0, 5000),
  aqi: reading(0, 1000),
});

/** The sections of an export whose elements are records. */
export const SECTIONS = {
  universities: UniversityRecord,
  courses: CourseRecord,
  papers: PaperRecord,
  conferences: ConferenceRecord,
  hub_packs: HubPackRecord,
  stations: StationRecord,
  observations: ObservationRecord,
} as const;

export type SectionName = keyof typeof SECTIONS;

/** An export document: every section empty but those given. */
export function exportDocument(exportedAt: Date, sections: { [S in SectionName]?: unknown[] } = {}) {
  const empty = Object.fromEntries(Object.keys(SECTIONS).map((s) => [s, []])) as unknown as Record<SectionName, unknown[]>;
  return { format: EXPORT_FORMAT, exported_at: exportedAt.toISOString(), ...empty, ...sections };
}

/** A section's record as validated: what the gateway stores of it. */
export type Stored<S extends SectionName> = z.output<(typeof SECTIONS)[S]>;

/**
 * A record as an export may carry it (before validation): what the demo
 * generator writes and what tests build. Fields the gateway does not store
 * may come besides these; they are stripped.
 */
export type ExportRecord<S extends SectionName> = z.input<(typeof SECTIONS)[S]>;

/** A Pack version as an export carries it, inside its Pack's `versions`. */
export type ExportPackVersionRecord = z.input<typeof PackVersionRecord>;

/** An export that fails validation; `message` names the record and field. */
export class ImportError extends Error {
  override name = "ImportError";
}

/** Formats the first problem of a failed parse as `section[i].field: message`. */
/** A record's first problem: where (`<where>.field`), the field, and what is wrong with it. */
export interface Problem {
  problem: string;
  /** The record's own field, when the problem is one field's. */
  field: string | undefined;
  message: string;
}

function describeIssue(where: string, error: z.ZodError): Problem {
  const issue = error.issues[0];
  if (!issue) return { problem: `${where}: invalid`, field: undefined, message: "invalid" };
  const path = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
  const message = issue.code === "invalid_type" && issue.input === undefined ? "is required" : issue.message;
  const field = typeof issue.path[0] === "string" ? issue.path[0] : undefined;
  return { problem: `${where}${path}: ${message}`, field, message };
}

/** Validates one record: the stored record, or its first problem as `<where>.field: message`. */
export function checkRecord<S extends SectionName>(
  section: S,
  where: string,
  value: unknown,
): { ok: true; record: Stored<S> } | ({ ok: false } & Problem) {
  const schema = SECTIONS[section];
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, record: result.data as Stored<S> };
  // Parsed again, only when it failed, with the issue's input, which tells a
  // missing field from a wrong one: asked of every record, it made the check
  // of the demo's 98,786 valid records take 930 ms instead of 225-700 here.
  const failed = schema.safeParse(value, { reportInput: true });
  return { ok: false, ...describeIssue(where, failed.error ?? result.error) };
}

/** Validates one record; throws ImportError naming it. */
export function parseRecord<S extends SectionName>(section: S, index: number, value: unknown): Stored<S> {
  const checked = checkRecord(section, `${section}[${index}]`, value);
  if (!checked.ok) throw new ImportError(checked.problem);
  return checked.record;
}
