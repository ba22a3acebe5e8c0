/** Record shapes of the platform export (CONTRACT.md §6), as the generator writes them. */

export type Country = "TW" | "US";

export interface ExportUniversity {
  id: number;
  code: string;
  name_zh: string;
  name_en: string;
  short_name: string;
  region: string;
  country: Country;
  timezone: string;
  latitude: number;
  longitude: number;
}

export interface ExportStudent {
  student_number: string;
  name: string;
  email: string;
}

export interface ExportCourse {
  id: number;
  university_id: number;
  class_name: string;
  course_number: string;
  course_class: string;
  course_name_chinese: string;
  course_name_english: string;
  instructor: string;
  instructor_english: string;
  department: string;
  department_english: string;
  semester: string;
  start_date: string;
  end_date: string;
  teaching_goal: string;
  teaching_goal_english: string;
  teaching_content: string;
  teaching_content_english: string;
  class_memo: string | null;
  is_public: 0 | 1;
  join_code: string;
  /** Personal data: the importer must drop it. */
  students: ExportStudent[];
  /** Teacher internal settings: the importer must drop them. */
  teacher_settings: { system_prompt: string; api_key: string };
}

export interface ExportPaper {
  slug: string;
  title: string;
  title_zh: string;
  authors: string[];
  conference: string;
  year: number;
  doi: string;
  category: string;
  platform_feature: string;
  award: string | null;
}

export type ConferenceRelationship = "participated" | "watching";

export interface ExportConference {
  slug: string;
  name: string;
  name_short: string;
  year: number;
  dates: string;
  location: string;
  website: string;
  organizer: string;
  indexing: string;
  relationship: ConferenceRelationship;
}

export const ASSET_TYPES = ["skill", "channel_template", "quiz_bank", "survey_bank", "ai_task"] as const;
export type AssetType = (typeof ASSET_TYPES)[number];
export const EDUCATION_LEVELS = ["university", "high_school", "junior_high", "elementary", "general"] as const;
export type EducationLevel = (typeof EDUCATION_LEVELS)[number];
export const BLOOM_LEVELS = ["remember", "understand", "apply", "analyze", "evaluate", "create"] as const;
export type BloomLevel = (typeof BLOOM_LEVELS)[number];
export const VISIBILITIES = ["public", "private", "link"] as const;
export type Visibility = (typeof VISIBILITIES)[number];
export const SAFETY_STATUSES = ["passed", "pending", "rejected"] as const;
export type SafetyStatus = (typeof SAFETY_STATUSES)[number];
export const DIFFICULTIES = ["beginner", "intermediate", "advanced"] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];

export interface ExportPackVersion {
  version: string;
  published_at: string;
  changelog: string;
  safety_status: SafetyStatus;
  payload: Record<string, unknown>;
}

export interface ExportHubPack {
  id: string;
  name: string;
  summary: string;
  readme_md: string;
  asset_type: AssetType;
  subject: string;
  education_level: EducationLevel;
  bloom_levels: BloomLevel[];
  difficulty: Difficulty;
  star_count: number;
  install_count: number;
  owner_name: string;
  /** Contact detail: the importer must drop it. */
  owner_email: string;
  visibility: Visibility;
  safety_status: SafetyStatus;
  payload: Record<string, unknown>;
  versions: ExportPackVersion[];
}

export type StationKind = "weather" | "air";
export type StationSource = "cwa" | "moenv" | "nws" | "airnow";

export interface ExportStation {
  id: string;
  name: string;
  kind: StationKind;
  source: StationSource;
  country: Country;
  latitude: number;
  longitude: number;
}

/** Weather stations carry temp_c/rh/precip_mm, air stations pm25_ugm3/pm10_ugm3/aqi; the other kind's fields are absent. */
export interface ExportObservation {
  station_id: string;
  observed_at: string;
  temp_c?: number | null;
  rh?: number | null;
  precip_mm?: number | null;
  pm25_ugm3?: number | null;
  pm10_ugm3?: number | null;
  aqi?: number | null;
}

export interface DemoExportOptions {
  /** Seed of everything random (default 20240901). */
  seed?: number;
  /** End of the observation window; truncated to the hour (default: the current hour). */
  now?: Date;
  /** Days of hourly observations up to `now` (default 35). */
  days?: number;
}
