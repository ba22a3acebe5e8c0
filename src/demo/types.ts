/**
 * Record shapes of the platform export (docs/contract.md §6) as the generator
 * writes them: the importer's own record schemas (src/import/records.ts), plus
 * the fields a real export carries that the importer must drop (personal data,
 * teacher settings, a Pack owner's e-mail), so the demo proves they are dropped.
 */
import type { ExportPackVersionRecord, ExportRecord } from "../import/records.js";

/**
 * A record as the demo writes it: the fields the importer requires, set; the
 * optional ones set when written (not null, but those named). A column added
 * to the schema is optional here, so the demo need not fill it.
 */
type Filled<T, Nullable extends keyof T = never> = {
  [K in keyof T]?: K extends Nullable ? Exclude<T[K], undefined> : NonNullable<T[K]>;
} & { [K in keyof T as undefined extends T[K] ? never : K]-?: NonNullable<T[K]> };

export type ExportUniversity = Filled<ExportRecord<"universities">>;

export interface ExportStudent {
  student_number: string;
  name: string;
  email: string;
}

export type ExportCourse = Filled<ExportRecord<"courses">, "class_memo"> & {
  /** Personal data: the importer must drop it. */
  students: ExportStudent[];
  /** Teacher internal settings: the importer must drop them. */
  teacher_settings: { system_prompt: string; api_key: string };
};

export type ExportPaper = Filled<ExportRecord<"papers">, "award">;
export type ExportConference = Filled<ExportRecord<"conferences">>;

/** Teaching-card vocabulary the demo draws from (the export allows any text here). */
export const BLOOM_LEVELS = ["remember", "understand", "apply", "analyze", "evaluate", "create"] as const;
export type BloomLevel = (typeof BLOOM_LEVELS)[number];
export const DIFFICULTIES = ["beginner", "intermediate", "advanced"] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];

export type ExportHubPack = Filled<Omit<ExportRecord<"hub_packs">, "versions" | "bloom_levels">> & {
  bloom_levels: BloomLevel[];
  versions: ExportPackVersion[];
  /** Contact detail: the importer must drop it. */
  owner_email: string;
};
export type ExportPackVersion = Filled<ExportPackVersionRecord>;

export type ExportStation = Filled<ExportRecord<"stations">>;

/** Weather stations carry temp_c/rh/precip_mm, air stations pm25_ugm3/pm10_ugm3/aqi; the other kind's fields are absent. */
export type ExportObservation = ExportRecord<"observations">;

export interface DemoExportOptions {
  /** Seed of everything random (default 20240901). */
  seed?: number;
  /** End of the observation window; truncated to the hour (default: the current hour). */
  now?: Date;
  /** Days of hourly observations up to `now` (default 35). */
  days?: number;
}
