/**
 * The canary export (test/support/canary.ts) with more variety for the REST
 * tests: more schools, courses (ties within a semester, null fields, LIKE
 * wildcards in titles, enough rows for two pages), papers, conferences and
 * Packs (every asset type and education level, ties for every sort, a semver
 * order that differs from the publication order, hidden Packs). Every
 * personal or hidden value still carries a canary string.
 */
import { canaryExport, course, version } from "../support/canary.js";

function pack(id: string, fields: Record<string, unknown>, versions: object[]) {
  return {
    id,
    name: `Pack ${id}`,
    summary: null,
    readme_md: null,
    asset_type: "quiz_bank",
    subject: null,
    education_level: null,
    bloom_levels: [],
    difficulty: null,
    star_count: 0,
    install_count: 0,
    owner_name: null,
    owner_email: "canary.owner@example.edu",
    visibility: "public",
    safety_status: "passed",
    payload: { secret: "CANARY-PAYLOAD" },
    versions,
    ...fields,
  };
}

/** Ids of the 20 courses that fill semester 110-1 (for paging). */
export const FILLER_IDS = Array.from({ length: 20 }, (_, i) => 20 + i);

/**
 * Public courses in contract order (semester descending, then id ascending):
 * 113-2: 4 · 113-1: 1, 7, 8, 9 · 112-2: 3 · 112-1: 6 · 111-2: 10 · 110-1: 20…39.
 */
export const PUBLIC_COURSE_ORDER = [4, 1, 7, 8, 9, 3, 6, 10, ...FILLER_IDS];

export function richExport() {
  const base = canaryExport();
  return {
    ...base,
    universities: [
      ...base.universities,
      // Out of id order on purpose; NCKU has no region and no course.
      {
        id: 5,
        code: "NCKU",
        name_zh: "國立成功大學",
        name_en: "National Cheng Kung University",
        short_name: "成大",
        region: null,
        country: "TW",
        timezone: "Asia/Taipei",
        latitude: 22.9997,
        longitude: 120.2196,
      },
      {
        id: 4,
        code: "NTNU",
        name_zh: "國立臺灣師範大學",
        name_en: null,
        short_name: null,
        region: "Taipei",
        country: "TW",
        timezone: "Asia/Taipei",
        latitude: 25.0265,
        longitude: 121.5276,
      },
    ],
    courses: [
      ...base.courses,
      // Same semester as course 1, listed out of id order.
      course(9, 4, "113-1", 1, {
        course_name_chinese: "資料科學導論",
        course_name_english: "Intro to Data Science",
        instructor: null,
        instructor_english: null,
        start_date: null,
        end_date: null,
        class_memo: "Bring a laptop",
      }),
      course(8, 1, "113-1", 1, {
        course_name_chinese: "深度學習與機器學習應用",
        course_name_english: "Applied Deep Learning",
        instructor: "老師X",
      }),
      course(7, 1, "113-1", 1, { course_name_chinese: "機器學習", course_name_english: "Machine LEARNING", instructor: "老師1" }),
      // LIKE wildcards in its titles: `q=%` and `q=_` must match only this one.
      course(10, 2, "111-2", 1, { course_name_chinese: "100% 英文授課", course_name_english: "English_Only Seminar", instructor: "老師1" }),
      // Private, in a busy semester, with an instructor of its own: must count nowhere.
      course(11, 1, "113-1", 0, { instructor: "老師Z" }),
      ...FILLER_IDS.map((id) => course(id, 3, "110-1", 1, { instructor: "Prof P", instructor_english: "Prof P" })),
    ],
    papers: [
      ...base.papers,
      {
        slug: "z-2023",
        title: "Paper Z",
        title_zh: null,
        authors: ["Z. Zhang"],
        conference: "unknown-conf",
        year: 2023,
        doi: null,
        category: "hci",
        platform_feature: null,
        award: null,
      },
      {
        slug: "p-2025-c",
        title: "Paper C",
        title_zh: "論文丙",
        authors: ["D. Hsu", "E. Kao"],
        conference: "chi-2027",
        year: 2025,
        doi: "10.1/c",
        category: "hci",
        platform_feature: "quiz",
        award: null,
      },
      {
        slug: "a-2025-x",
        title: "Paper X",
        title_zh: null,
        authors: ["X. Xu"],
        conference: null,
        year: 2025,
        doi: null,
        category: null,
        platform_feature: null,
        award: null,
      },
    ],
    conferences: [
      ...base.conferences,
      {
        slug: "icalt-2024",
        name: "ICALT 2024",
        name_short: "ICALT",
        year: 2024,
        dates: "2024-07-01 to 2024-07-04",
        location: "Nicosia",
        website: null,
        organizer: "IEEE",
        indexing: "EI",
        relationship: "watching",
      },
      {
        slug: "aied-2027",
        name: "AIED 2027",
        name_short: null,
        year: 2027,
        dates: null,
        location: null,
        website: null,
        organizer: null,
        indexing: null,
        relationship: "participated",
      },
    ],
    hub_packs: [
      ...base.hub_packs,
      // pk_public (canary): quiz_bank, university, 3 stars, 7 installs, latest 1.10.0 published 2026-02-01.
      pack(
        "pk_e",
        { name: "Geometry Drills", asset_type: "quiz_bank", education_level: "junior_high", star_count: 25, install_count: 7 },
        // 1.10.0 is the highest version although 1.9.0 was published later; 1.11.0 is rejected, 2.0.0 pending.
        [
          version("1.9.0", "2026-04-01T00:00:00Z"),
          version("1.10.0", "2026-01-15T00:00:00Z"),
          version("1.11.0", "2026-05-01T00:00:00Z", "rejected"),
          version("2.0.0", "2026-06-01T00:00:00Z", "pending"),
        ],
      ),
      pack(
        "pk_d",
        {
          name: "Class Climate Survey",
          summary: "100% anonymous survey",
          asset_type: "survey_bank",
          education_level: "elementary",
          star_count: 3,
          install_count: 0,
        },
        [version("0.1.0", "2025-12-01T00:00:00Z")],
      ),
      pack(
        "pk_c",
        {
          name: "Discussion Channel",
          asset_type: "channel_template",
          education_level: "general",
          star_count: 0,
          install_count: 100,
          owner_name: "陳老師",
        },
        [version("1.0.0", "2026-03-01T00:00:00Z", "pending")],
      ),
      pack(
        "pk_b",
        {
          name: "Motion Lab",
          summary: "Kinematics experiments",
          readme_md: "# Motion Lab\n\nExperiments.",
          asset_type: "skill",
          subject: "Physics",
          education_level: "high_school",
          bloom_levels: ["analyze"],
          difficulty: "advanced",
          star_count: 10,
          install_count: 7,
          owner_name: "李老師",
        },
        [version("1.0.0", "2026-01-01T00:00:00Z"), version("1.1.0", "2026-03-15T00:00:00Z")],
      ),
      pack("pk_a", { name: "Essay Coach", summary: "Feedback for essays", asset_type: "ai_task", star_count: 10, install_count: 1 }, [
        version("3.0.0", "2026-02-01T00:00:00Z"),
      ]),
      pack("pk_rejected", { name: "CANARY-PRIVATE-PACK rejected", safety_status: "rejected", star_count: 99 }, [
        version("1.0.0", "2026-01-01T00:00:00Z"),
      ]),
    ],
  };
}
