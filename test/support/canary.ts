/**
 * A small export full of values that must never leave the service: join
 * codes, Pack payloads, personal data, and the titles of private courses and
 * hidden Packs. Tests import it and search every response for these strings.
 */
export const CANARIES = [
  "CANARY-JOIN-CODE",
  "CANARY-PAYLOAD",
  "CANARY-VERSION-PAYLOAD",
  "canary.student@example.edu",
  "CANARY-STUDENT-NUMBER",
  "CANARY-SYSTEM-PROMPT",
  "CANARY-TEACHER-API-KEY",
  "canary.owner@example.edu",
  "CANARY-PRIVATE-COURSE",
  "CANARY-PRIVATE-PACK",
  "CANARY-LINK-PACK",
  "CANARY-PENDING-PACK",
  "CANARY-REJECTED-VERSION",
] as const;

const student = { student_number: "CANARY-STUDENT-NUMBER", name: "王小明", email: "canary.student@example.edu" };
const settings = { system_prompt: "CANARY-SYSTEM-PROMPT", api_key: "CANARY-TEACHER-API-KEY" };

/** A course carrying canary personal data and join code; private ones get canary titles. */
export function course(id: number, universityId: number, semester: string, isPublic: 0 | 1, extra: Record<string, unknown> = {}) {
  return {
    id,
    university_id: universityId,
    class_name: `班級${id}`,
    course_number: `CSIE${1000 + id}`,
    course_class: "01",
    course_name_chinese: isPublic ? `公開課程${id}` : `CANARY-PRIVATE-COURSE-${id}`,
    course_name_english: isPublic ? `Public Course ${id}` : `CANARY-PRIVATE-COURSE english ${id}`,
    instructor: `老師${id % 3}`,
    instructor_english: `Teacher ${id % 3}`,
    department: "資訊工程學系",
    department_english: "Computer Science",
    semester,
    start_date: "2024-09-02",
    end_date: "2025-01-10",
    teaching_goal: "目標",
    teaching_goal_english: "Goals",
    teaching_content: "內容",
    teaching_content_english: "Content",
    class_memo: null,
    is_public: isPublic,
    join_code: `CANARY-JOIN-CODE-${id}`,
    students: [student],
    teacher_settings: settings,
    ...extra,
  };
}

/** A Pack of the export, with the canary's values where `extra` gives none. */
export function pack(
  id: string,
  visibility: string,
  safety: string,
  name: string,
  versions: object[],
  extra: Record<string, unknown> = {},
) {
  return {
    id,
    name,
    summary: `Summary of ${name}`,
    readme_md: `# ${name}`,
    asset_type: "quiz_bank",
    subject: "Mathematics",
    education_level: "university",
    bloom_levels: ["remember", "apply"],
    difficulty: "intermediate",
    star_count: 3,
    install_count: 7,
    owner_name: "林老師",
    owner_email: "canary.owner@example.edu",
    visibility,
    safety_status: safety,
    payload: { secret: "CANARY-PAYLOAD" },
    versions,
    ...extra,
  };
}

/** A Pack version with a canary payload (and a canary changelog when rejected). */
export const version = (v: string, at: string, status = "passed") => ({
  version: v,
  published_at: at,
  changelog: status === "rejected" ? "CANARY-REJECTED-VERSION" : `Release ${v}`,
  safety_status: status,
  payload: { secret: "CANARY-VERSION-PAYLOAD" },
});

/** The canary export, as a plain object (serialize it to import). */
export function canaryExport() {
  return {
    format: "platform-export/1",
    exported_at: "2026-11-20T00:00:00Z",
    universities: [
      {
        id: 1,
        code: "NTU",
        name_zh: "國立臺灣大學",
        name_en: "National Taiwan University",
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
        name_zh: "國立清華大學",
        name_en: "National Tsing Hua University",
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
        name_zh: "華盛頓大學",
        name_en: "University of Washington",
        short_name: "UW",
        region: "Seattle",
        country: "US",
        timezone: "America/Los_Angeles",
        latitude: 47.6553,
        longitude: -122.3035,
      },
    ],
    courses: [
      course(1, 1, "113-1", 1),
      course(2, 1, "113-1", 0),
      course(3, 1, "112-2", 1),
      course(4, 2, "113-2", 1),
      course(5, 2, "113-2", 0),
      course(6, 3, "112-1", 1),
    ],
    papers: [
      {
        slug: "p-2025-a",
        title: "Paper A",
        title_zh: "論文甲",
        authors: ["A. Chen", "B. Lin"],
        conference: "edm-2025",
        year: 2025,
        doi: "10.1/a",
        category: "learning-analytics",
        platform_feature: "ai-tutor",
        award: null,
      },
      {
        slug: "p-2024-b",
        title: "Paper B",
        title_zh: null,
        authors: ["C. Wu"],
        conference: "edm-2025",
        year: 2024,
        doi: null,
        category: "hci",
        platform_feature: null,
        award: "Best Paper",
      },
    ],
    conferences: [
      {
        slug: "edm-2025",
        name: "Educational Data Mining 2025",
        name_short: "EDM",
        year: 2025,
        dates: "2025-07-20 to 2025-07-23",
        location: "Palermo",
        website: "https://example.org/edm",
        organizer: "IEDMS",
        indexing: "Scopus",
        relationship: "participated",
      },
      {
        slug: "chi-2027",
        name: "CHI 2027",
        name_short: "CHI",
        year: 2027,
        dates: null,
        location: null,
        website: null,
        organizer: "ACM",
        indexing: null,
        relationship: "watching",
      },
    ],
    hub_packs: [
      pack("pk_public", "public", "passed", "Fractions Quiz", [
        version("1.9.0", "2026-01-01T00:00:00Z"),
        version("1.10.0", "2026-02-01T00:00:00Z"),
        version("2.0.0", "2026-03-01T00:00:00Z", "rejected"),
      ]),
      pack("pk_private", "private", "passed", "CANARY-PRIVATE-PACK", [version("1.0.0", "2026-01-01T00:00:00Z")]),
      pack("pk_link", "link", "passed", "CANARY-LINK-PACK", [version("1.0.0", "2026-01-01T00:00:00Z")]),
      pack("pk_pending", "public", "pending", "CANARY-PENDING-PACK", [version("1.0.0", "2026-01-01T00:00:00Z")]),
    ],
    stations: [
      { id: "466920", name: "臺北", kind: "weather", source: "cwa", country: "TW", latitude: 25.0377, longitude: 121.5149 },
      { id: "moenv-1", name: "中山", kind: "air", source: "moenv", country: "TW", latitude: 25.0624, longitude: 121.5265 },
    ],
    observations: [
      { station_id: "466920", observed_at: "2026-11-19T16:00:00Z", temp_c: 20.5, rh: 80, precip_mm: 0 },
      { station_id: "moenv-1", observed_at: "2026-11-19T16:00:00Z", pm25_ugm3: 12, pm10_ugm3: 30, aqi: 48 },
    ],
  };
}

/** A Relay global id, as the schema writes it. */
export const globalId = (type: string, id: string | number) => Buffer.from(`${type}:${id}`).toString("base64");

/** Every field of every type, through every path that reaches a guarded model. */
export const EVERYTHING = `
fragment C on Course { id databaseId className courseNumber courseClass courseNameChinese courseNameEnglish instructor
  instructorEnglish department departmentEnglish school semester startDate endDate teachingGoal teachingGoalEnglish
  teachingContent teachingContentEnglish classMemo university { code } }
fragment P on HubPack { id databaseId name summary readmeMd assetType latestVersion subject educationLevel bloomLevels
  difficulty starCount installCount ownerName versions { version publishedAt changelog } }
{
  universities { totalCount nodes { id code courses(first: 100) { totalCount nodes { ...C } } } }
  courses(first: 100) { totalCount nodes { ...C } edges { cursor node { databaseId } } }
  coursePage(pageSize: 100) { total items { ...C } }
  private: course(id: 2) { ...C }
  courseStats(groupBy: school) { nodes { key courseCount instructorCount } }
  hubPacks(first: 100) { totalCount nodes { ...P } }
  hidden: hubPack(id: "pk_private") { ...P }
  link: hubPack(id: "pk_link") { ...P }
  pending: hubPack(id: "pk_pending") { ...P }
  nodes(ids: ["${globalId("Course", 2)}", "${globalId("HubPack", "pk_link")}", "${globalId("Course", 5)}"]) { id }
  papers { nodes { slug authors } }
  conferences { nodes { slug paperCount } }
}`;
