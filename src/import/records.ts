/**
 * The records of the platform export (docs/contract.md §6) and their validation.
 *
 * Each schema keeps only the fields the gateway stores: everything else in a
 * record, personal data included (students, teacher settings, a Pack owner's
 * e-mail), is stripped here and never reaches the database.
 */
import { z } from "zod";
import {
  AssetType,
  ConferenceRelationship,
  Country,
  EducationLevel,
  PackVisibility,
  SafetyStatus,
  StationKind,
  StationSource,
} from "../generated/prisma/enums.js";
import { INT32_MAX as INT_MAX } from "../input-limits.js";

/** The export's name and version; an export of any other format is refused. */
export const EXPORT_FORMAT = "platform-export/1";

/** One of a database enum's values, refused with the list in words. */
function oneOf<const E extends Record<string, string>>(values: E) {
  const list = Object.values(values);
  const words = list.length > 1 ? `${list.slice(0, -1).join(", ")} or ${list.at(-1)}` : list.join("");
  return z.enum(values, { message: `expected ${words}` });
}

// PostgreSQL text cannot hold NUL; refuse it here so the record is named.
const noNul = (v: string) => !v.includes("\0");
const NUL = { message: "must not contain a NUL character" };
const text = z.string().trim().min(1, { message: "expected a non-empty string" }).refine(noNul, NUL);
const optionalText = z
  .string()
  .refine(noNul, NUL)
  .nullish()
  .transform((v) => (v === "" ? null : (v ?? null)));
const id = z
  .number({ message: "expected an integer id" })
  .int({ message: "expected an integer id" })
  .positive({ message: "expected a positive integer id" })
  .max(INT_MAX, { message: `expected an id of at most ${INT_MAX}` });
const count = z
  .number()
  .int()
  .min(0, { message: "expected a non-negative integer" })
  .max(INT_MAX, { message: `expected an integer of at most ${INT_MAX}` })
  .nullish()
  .transform((v) => v ?? 0);
const payload = z
  .unknown()
  .refine((v) => v === undefined || !JSON.stringify(v).includes("\\u0000"), NUL)
  .optional();

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: "expected a date YYYY-MM-DD" })
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), {
    message: "expected a real calendar date",
  });
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(:(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const instant = z
  .string()
  .regex(INSTANT, { message: "expected an ISO 8601 instant with a time zone offset" })
  .refine(
    (v) => {
      const match = INSTANT.exec(v);
      if (!match) return true; // the pattern check above already says why
      const [, y, mo, d, h, mi, , s] = match;
      const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
      return (
        day.getUTCFullYear() === Number(y) &&
        day.getUTCMonth() === Number(mo) - 1 &&
        day.getUTCDate() === Number(d) &&
        Number(h) < 24 &&
        Number(mi) < 60 &&
        Number(s ?? 0) < 60 &&
        !Number.isNaN(Date.parse(v))
      );
    },
    { message: "expected a real instant" },
  )
  .transform((v) => new Date(v));

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
const country = oneOf(Country);
const latitude = z.number().min(-90).max(90);
const longitude = z.number().min(-180).max(180);

const UniversityRecord = z.object({
  id,
  code: text,
  name_zh: text,
  name_en: optionalText,
  short_name: optionalText,
  region: optionalText,
  country,
  timezone: timeZone,
  latitude,
  longitude,
});

const CourseRecord = z.object({
  id,
  university_id: id,
  class_name: optionalText,
  course_number: optionalText,
  course_class: optionalText,
  course_name_chinese: optionalText,
  course_name_english: optionalText,
  instructor: optionalText,
  instructor_english: optionalText,
  department: optionalText,
  department_english: optionalText,
  semester: z.string().regex(/^\d{3}-[1-9]$/, { message: "expected <year>-<term>, like 113-1" }),
  start_date: isoDate.nullish().transform((v) => v ?? null),
  end_date: isoDate.nullish().transform((v) => v ?? null),
  teaching_goal: optionalText,
  teaching_goal_english: optionalText,
  teaching_content: optionalText,
  teaching_content_english: optionalText,
  class_memo: optionalText,
  is_public: z.union([z.literal(0), z.literal(1), z.boolean()], { message: "expected 0 or 1" }).transform((v) => v === 1 || v === true),
  join_code: optionalText,
});

const PaperRecord = z.object({
  slug: text,
  title: text,
  title_zh: optionalText,
  authors: z
    .array(text)
    .nullish()
    .transform((v) => v ?? []),
  conference: optionalText,
  year: z.number().int().min(1900).max(2200),
  doi: optionalText,
  category: optionalText,
  platform_feature: optionalText,
  award: optionalText,
});

const ConferenceRecord = z.object({
  slug: text,
  name: text,
  name_short: optionalText,
  year: z.number().int().min(1900).max(2200),
  dates: optionalText,
  location: optionalText,
  website: optionalText,
  organizer: optionalText,
  indexing: optionalText,
  relationship: oneOf(ConferenceRelationship),
});

const safetyStatus = oneOf(SafetyStatus);
const semver = z.string().regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, {
  message: "expected a semantic version like 1.2.0",
});

const PackVersionRecord = z.object({
  version: semver,
  published_at: instant,
  changelog: optionalText,
  safety_status: safetyStatus,
  payload,
});

const HubPackRecord = z.object({
  id: text,
  name: text,
  summary: optionalText,
  readme_md: optionalText,
  asset_type: oneOf(AssetType),
  subject: optionalText,
  education_level: oneOf(EducationLevel)
    .nullish()
    .transform((v) => v ?? null),
  bloom_levels: z
    .array(text)
    .nullish()
    .transform((v) => v ?? []),
  difficulty: z
    .union([z.string(), z.number()])
    .nullish()
    .transform((v) => (v === undefined || v === null || v === "" ? null : String(v))),
  star_count: count,
  install_count: count,
  owner_name: optionalText,
  visibility: oneOf(PackVisibility),
  safety_status: safetyStatus,
  payload,
  versions: z
    .array(PackVersionRecord)
    .nullish()
    .transform((v) => v ?? []),
});

const StationRecord = z.object({
  id: text,
  name: text,
  kind: oneOf(StationKind),
  source: oneOf(StationSource),
  country,
  latitude,
  longitude,
});

const reading = (min: number, max: number) =>
  z
    .number()
    .min(min)
    .max(max)
    .nullish()
    .transform((v) => v ?? null);

export const ObservationRecord = z.object({
  station_id: text,
  observed_at: instant,
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
function describeIssue(where: string, error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return `${where}: invalid`;
  const path = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
  const message = issue.code === "invalid_type" && issue.input === undefined ? "is required" : issue.message;
  return `${where}${path}: ${message}`;
}

/** Validates one record; throws ImportError naming it. */
export function parseRecord<S extends SectionName>(section: S, index: number, value: unknown): Stored<S> {
  const result = SECTIONS[section].safeParse(value, { reportInput: true });
  if (!result.success) throw new ImportError(describeIssue(`${section}[${index}]`, result.error));
  return result.data as Stored<S>;
}
