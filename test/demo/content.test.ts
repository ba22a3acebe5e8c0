import { describe, expect, it } from "vitest";
import { BLOOM_LEVELS, DIFFICULTIES, buildDemoDataset } from "../../src/demo/index.js";
import { AssetType, EducationLevel, PackVisibility, SafetyStatus } from "../../src/generated/prisma/enums.js";

const ASSET_TYPES = Object.values(AssetType);
const EDUCATION_LEVELS = Object.values(EducationLevel);
const VISIBILITIES = Object.values(PackVisibility);
const SAFETY_STATUSES = Object.values(SafetyStatus);

/**
 * The demo's records as it writes them: every field these tests read is set
 * (null only where a test says so). The export types leave optional fields
 * optional, so that a column added to the schema does not have to be filled
 * by the demo; a field read here that the demo stops writing fails its test.
 */
type Written<T> = {
  [K in keyof T]-?: Exclude<T[K], undefined> extends infer V ? (V extends readonly (infer E)[] ? Written<E>[] : V) : never;
};
const data = buildDemoDataset({ now: new Date("2026-11-20T00:00:00Z") }) as unknown as {
  [S in keyof ReturnType<typeof buildDemoDataset>]: ReturnType<typeof buildDemoDataset>[S] extends readonly (infer R)[]
    ? Written<R>[]
    : ReturnType<typeof buildDemoDataset>[S];
};
const SEMESTERS = ["111-1", "111-2", "112-1", "112-2", "113-1", "113-2", "114-1"];
const HAN = /\p{Script=Han}/u;
const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

function compareSemver(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

describe("demo universities", () => {
  it("has a dozen Taiwanese and three US schools with ids 1..15", () => {
    expect(data.universities.map((u) => u.id)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    const tw = data.universities.filter((u) => u.country === "TW");
    const us = data.universities.filter((u) => u.country === "US");
    expect(tw).toHaveLength(12);
    expect(us).toHaveLength(3);
    for (const u of tw) expect(u.timezone).toBe("Asia/Taipei");
    expect(new Set(us.map((u) => u.timezone)).size).toBeGreaterThanOrEqual(2);
    expect(new Set(data.universities.map((u) => u.code)).size).toBe(15);
    expect(data.universities.find((u) => u.code === "NTU")).toMatchObject({
      name_zh: "國立臺灣大學",
      name_en: "National Taiwan University",
      short_name: "臺大",
      region: "Taipei",
    });
    for (const u of data.universities) {
      expect(u.name_zh).toMatch(HAN);
      expect(u.short_name).toMatch(HAN);
      expect(u.region).toMatch(/^[A-Z][a-z]+$/);
      expect(Math.abs(u.latitude)).toBeLessThanOrEqual(90);
      expect(Math.abs(u.longitude)).toBeLessThanOrEqual(180);
    }
  });
});

describe("demo courses", () => {
  const courses = data.courses;

  it("has about 2,000 courses with unique numeric ids over every school and semester", () => {
    expect(courses.length).toBeGreaterThanOrEqual(1800);
    expect(courses.length).toBeLessThanOrEqual(2200);
    expect(new Set(courses.map((c) => c.id)).size).toBe(courses.length);
    for (const c of courses) expect(Number.isInteger(c.id)).toBe(true);
    expect(new Set(courses.map((c) => c.university_id))).toEqual(new Set(data.universities.map((u) => u.id)));
    expect([...new Set(courses.map((c) => c.semester))].sort()).toEqual(SEMESTERS);
  });

  it("makes about 20% private, and gives every course a unique join code", () => {
    const share = courses.filter((c) => c.is_public === 0).length / courses.length;
    expect(share).toBeGreaterThan(0.15);
    expect(share).toBeLessThan(0.25);
    for (const c of courses) expect([0, 1]).toContain(c.is_public);
    for (const c of courses) expect(c.join_code).toMatch(/^[A-Z0-9]{6}$/);
    expect(new Set(courses.map((c) => c.join_code)).size).toBe(courses.length);
  });

  it("has dates matching the semester", () => {
    for (const c of courses) {
      const [roc, term] = c.semester.split("-");
      const year = Number(roc) + 1911;
      expect(c.start_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(c.end_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(c.start_date.slice(0, 7)).toBe(term === "1" ? `${year}-09` : `${year + 1}-02`);
      expect(c.end_date > c.start_date).toBe(true);
    }
  });

  it("has realistic names, numbers and texts", () => {
    for (const c of courses) {
      expect(c.course_name_chinese).toMatch(HAN);
      expect(c.course_name_english).toMatch(/^[A-Z]/);
      expect(c.instructor.length).toBeGreaterThan(1);
      expect(c.instructor_english).toMatch(/^[A-Z][A-Za-z-]+ [A-Z][a-z]+$/);
      expect(c.department).toMatch(HAN);
      expect(c.department_english).toMatch(/^(Department|Center|School|College) /);
      expect(c.course_number).toMatch(/^[A-Z]+\d{3,4}$/);
      expect(c.course_class).toMatch(/^\d{2}$/);
      expect(c.class_name.length).toBeGreaterThan(0);
      for (const t of [c.teaching_goal, c.teaching_goal_english, c.teaching_content, c.teaching_content_english])
        expect(t.length).toBeGreaterThan(20);
    }
    expect(courses.some((c) => c.course_name_chinese.startsWith("通識："))).toBe(true);
    expect(courses.some((c) => c.course_name_chinese === "資料結構")).toBe(true);
    expect(courses.some((c) => c.class_memo === null)).toBe(true);
    expect(courses.some((c) => c.class_memo !== null)).toBe(true);
    // No two sections of a course share a class number in a semester.
    const keys = courses.map((c) => `${c.university_id}|${c.semester}|${c.course_number}|${c.course_class}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("carries the personal data the importer must drop", () => {
    for (const c of courses) {
      expect(c.students.length).toBeGreaterThan(0);
      for (const s of c.students) {
        expect(s.student_number.length).toBeGreaterThan(5);
        expect(s.email).toMatch(/^[^@\s]+@[a-z0-9.-]+$/);
        expect(s.name.length).toBeGreaterThan(1);
      }
      expect(c.teacher_settings.system_prompt.length).toBeGreaterThan(10);
      expect(c.teacher_settings.api_key).toMatch(/^sk-demo-[a-z0-9]{32}$/);
    }
  });
});

describe("demo papers and conferences", () => {
  it("has about ten conferences in both relationships", () => {
    expect(data.conferences.length).toBeGreaterThanOrEqual(8);
    expect(data.conferences.length).toBeLessThanOrEqual(12);
    expect(new Set(data.conferences.map((c) => c.relationship))).toEqual(new Set(["participated", "watching"]));
    expect(new Set(data.conferences.map((c) => c.slug)).size).toBe(data.conferences.length);
    for (const c of data.conferences) {
      expect(c.dates).toMatch(/^\d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}$/);
      expect(c.dates.slice(0, 4)).toBe(String(c.year));
      expect(c.website).toMatch(/^https:\/\//);
      for (const f of [c.name, c.name_short, c.location, c.organizer, c.indexing]) expect(f.length).toBeGreaterThan(0);
    }
  });

  it("has about twenty papers, each at a known conference of the same year", () => {
    expect(data.papers.length).toBeGreaterThanOrEqual(15);
    expect(data.papers.length).toBeLessThanOrEqual(25);
    const conferences = new Map(data.conferences.map((c) => [c.slug, c]));
    expect(new Set(data.papers.map((p) => p.slug)).size).toBe(data.papers.length);
    for (const p of data.papers) {
      const c = conferences.get(p.conference);
      expect(c, p.slug).toBeDefined();
      expect(p.year).toBe(c?.year);
      expect(c?.relationship).toBe("participated");
      expect(p.authors.length).toBeGreaterThan(0);
      expect(p.title_zh).toMatch(HAN);
      expect(p.doi).toMatch(/^10\.\d{4,}\//);
      expect(["education-technology", "learning-analytics", "hci", "ai-in-education"]).toContain(p.category);
    }
    expect(data.papers.some((p) => p.award === null)).toBe(true);
    expect(data.papers.some((p) => p.award !== null)).toBe(true);
  });
});

describe("demo hub packs", () => {
  const packs = data.hub_packs;
  const shown = packs.filter((p) => p.visibility === "public" && p.safety_status === "passed");

  it("has about forty packs covering every state and category", () => {
    expect(packs.length).toBeGreaterThanOrEqual(35);
    expect(packs.length).toBeLessThanOrEqual(45);
    expect(new Set(packs.map((p) => p.id)).size).toBe(packs.length);
    for (const p of packs) expect(p.id).toMatch(/^pk_[a-z0-9]{10}$/);
    expect(new Set(packs.map((p) => p.visibility))).toEqual(new Set(VISIBILITIES));
    expect(new Set(packs.map((p) => p.safety_status))).toEqual(new Set(SAFETY_STATUSES));
    expect(new Set(packs.map((p) => p.asset_type))).toEqual(new Set(ASSET_TYPES));
    expect(new Set(packs.map((p) => p.education_level))).toEqual(new Set(EDUCATION_LEVELS));
    // The public API still has something of every kind to show.
    expect(new Set(shown.map((p) => p.asset_type))).toEqual(new Set(ASSET_TYPES));
    expect(new Set(shown.map((p) => p.education_level))).toEqual(new Set(EDUCATION_LEVELS));
    expect(new Set(packs.flatMap((p) => p.bloom_levels))).toEqual(new Set(BLOOM_LEVELS));
  });

  it("has well-formed teaching cards, statistics and contents", () => {
    for (const p of packs) {
      expect(DIFFICULTIES).toContain(p.difficulty);
      expect(p.bloom_levels.length).toBeGreaterThan(0);
      for (const b of p.bloom_levels) expect(BLOOM_LEVELS).toContain(b);
      expect(Number.isInteger(p.star_count) && p.star_count >= 0).toBe(true);
      expect(Number.isInteger(p.install_count) && p.install_count >= 0).toBe(true);
      expect(p.readme_md.startsWith(`# ${p.name}`)).toBe(true);
      expect(p.owner_email).toMatch(/@/);
      expect(typeof p.payload).toBe("object");
      for (const f of [p.name, p.summary, p.subject, p.owner_name]) expect(f.length).toBeGreaterThan(0);
    }
  });

  it("has 1–4 semantic versions, including 1.9.0 beside 1.10.0", () => {
    for (const p of packs) {
      expect(p.versions.length).toBeGreaterThanOrEqual(1);
      expect(p.versions.length).toBeLessThanOrEqual(4);
      for (const v of p.versions) {
        expect(v.version).toMatch(/^\d+\.\d+\.\d+$/);
        expect(v.published_at).toMatch(ISO_Z);
        expect(v.published_at < data.exported_at).toBe(true);
        expect(SAFETY_STATUSES).toContain(v.safety_status);
        expect(v.changelog.length).toBeGreaterThan(0);
        expect(typeof v.payload).toBe("object");
      }
      const versions = p.versions.map((v) => v.version);
      expect(new Set(versions).size).toBe(versions.length);
      expect([...versions].sort(compareSemver)).toEqual(versions);
    }
    const both = shown.find((p) => p.versions.some((v) => v.version === "1.9.0") && p.versions.some((v) => v.version === "1.10.0"));
    expect(both).toBeDefined();
    for (const p of shown) expect(p.versions.some((v) => v.safety_status === "passed")).toBe(true);
    expect(shown.some((p) => p.versions.at(-1)?.safety_status !== "passed")).toBe(true);
    expect(new Set(packs.flatMap((p) => p.versions.map((v) => v.safety_status)))).toEqual(new Set(SAFETY_STATUSES));
  });
});
