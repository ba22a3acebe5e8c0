import {
  CONTENT_FINAL,
  CONTENT_MIDTERM,
  CONTENT_OPENING,
  DEPARTMENTS,
  GOAL_TEMPLATES,
  MEMOS,
  SCHOOL_DEPARTMENTS,
  US_DEPARTMENT_NAMES,
  type CourseTemplate,
  type Department,
  type Pair,
} from "./catalog.js";
import { chineseName, emailHandle, westernName, type PersonName } from "./people.js";
import { LOWER_ALNUM, Rng, UPPER_ALNUM, hashString } from "./random.js";
import type { ExportCourse, ExportStudent, ExportUniversity } from "./types.js";

/** Semesters of the demo, oldest first, with their share of courses (the platform grows). */
const DEMO_SEMESTERS: ReadonlyArray<readonly [string, number]> = [
  ["111-1", 8],
  ["111-2", 10],
  ["112-1", 13],
  ["112-2", 15],
  ["113-1", 17],
  ["113-2", 18],
  ["114-1", 19],
];

const DEMO_COURSE_COUNT = 2000;

/** Relative number of courses per school on the platform. */
const SCHOOL_WEIGHT: Readonly<Record<string, number>> = {
  NTU: 260,
  NTHU: 170,
  NYCU: 190,
  NCKU: 200,
  NCCU: 130,
  NCU: 120,
  NCHU: 130,
  NSYSU: 120,
  NTNU: 130,
  NTUT: 130,
  NUK: 80,
  NDHU: 90,
  UW: 60,
  STANFORD: 50,
  CMU: 50,
};

const GRADE = ["", "一", "二", "三", "四", "碩一"];
const SEQUEL: ReadonlyArray<Pair> = [
  ["(一)", " (I)"],
  ["(二)", " (II)"],
];

interface Instructor {
  name: PersonName;
  specialties: CourseTemplate[];
}

interface Offering {
  dept: Department;
  deptKey: string;
  zh: string;
  en: string;
  instructors: Instructor[];
}

/** Start and end dates of a semester "113-1" (ROC year + 1911; term 1 from September, term 2 from February). */
function semesterDates(semester: string, weeks: number, shiftDays = 0): { start_date: string; end_date: string } {
  const [rocText, termText] = semester.split("-");
  const year = Number(rocText) + 1911 + (termText === "2" ? 1 : 0);
  const first = termText === "2" ? Date.UTC(year, 1, 15) : Date.UTC(year, 8, 1);
  const dow = new Date(first).getUTCDay();
  const monday = first + (((8 - dow) % 7) + shiftDays) * 86_400_000;
  const friday = monday + ((weeks - 1) * 7 + 4) * 86_400_000;
  return { start_date: isoDate(monday), end_date: isoDate(friday) };
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? "");
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** How {@link buildCourses} titles courses. */
export interface CourseOptions {
  /**
   * `catalogue` (the demo's): each course takes one of its department's
   * 5–18 titles, so a few hundred titles repeat across any number of courses.
   * `varied`: most courses get a title of their own, composed from their
   * department's topics (`深度學習專題` / `Special Topics in Deep Learning`,
   * `統計學：假設檢定`, topics applied in another field…), as a real catalogue's
   * seminars and electives are: the bench's, where a search that reads every
   * title must show what it costs.
   */
  titles?: "catalogue" | "varied";
}

export function buildCourses(
  seed: number,
  universities: readonly ExportUniversity[],
  count = DEMO_COURSE_COUNT,
  options: CourseOptions = {},
): ExportCourse[] {
  const rng = new Rng(seed).derive("courses");
  // Its own stream, so that the demo's courses stay the same draw for draw.
  const titles = options.titles === "varied" ? rng.derive("varied-titles") : undefined;
  const bySchool = new Map<number, Offering[]>();
  for (const uni of universities) bySchool.set(uni.id, schoolOfferings(rng.derive(`staff:${uni.code}`), uni));

  const schoolPicks = universities.map((u) => [u, SCHOOL_WEIGHT[u.code] ?? 100] as const);
  const drafts: { semesterIndex: number; course: ExportCourse }[] = [];
  const taken = new Set<string>();
  const joinCodes = new Set<string>();
  for (let i = 0; i < count; i++) {
    const uni = rng.weighted(schoolPicks);
    const semesterIndex = rng.weighted(DEMO_SEMESTERS.map(([, w], idx) => [idx, w] as const));
    const semester = (DEMO_SEMESTERS[semesterIndex] as readonly [string, number])[0];
    const offerings = bySchool.get(uni.id) ?? [];
    const offering = rng.weighted(offerings.map((o) => [o, o.dept.weight] as const));
    const instructor = rng.pick(offering.instructors);
    const template = rng.pick(instructor.specialties);
    let joinCode = rng.string(6, UPPER_ALNUM);
    while (joinCodes.has(joinCode)) joinCode = rng.string(6, UPPER_ALNUM);
    joinCodes.add(joinCode);
    const course = composeCourse(
      rng,
      uni,
      offering,
      instructor,
      titles ? variedTitle(titles, offering, template) : template,
      semester,
      joinCode,
    );
    let classNo = Number(course.course_class);
    while (taken.has(`${uni.id}|${semester}|${course.course_number}|${classNo}`)) classNo++;
    taken.add(`${uni.id}|${semester}|${course.course_number}|${classNo}`);
    course.course_class = String(classNo).padStart(2, "0");
    drafts.push({ semesterIndex, course });
  }

  // Ids follow creation order: semester by semester, with gaps left by deleted courses.
  const ordered = rng.shuffle(drafts).sort((a, b) => a.semesterIndex - b.semesterIndex);
  let id = 10_000 + rng.int(100, 900);
  return ordered.map(({ course }) => {
    course.id = id;
    id += rng.weighted(ID_GAPS);
    return course;
  });
}

/** How {@link streamCourses} spreads a catalogue. */
export interface CourseStreamOptions {
  /** Public courses written; one course in eleven is private besides (written between them). */
  publicCount: number;
  /** Semesters, oldest first, with their share of the public courses. */
  semesters: ReadonlyArray<readonly [string, number]>;
}

/**
 * Courses one at a time, for catalogues too large to hold (the `taiwan`
 * dataset's million): semester by semester, oldest first, ids ascending with
 * gaps, titles `varied` (see {@link CourseOptions}), schools drawn by weight
 * (a school the catalogue does not know gets a sample of its departments).
 * Their students are left out: the demo's courses carry the personal data
 * the importer must drop.
 */
export function* streamCourses(
  seed: number,
  universities: readonly ExportUniversity[],
  options: CourseStreamOptions,
): Generator<ExportCourse> {
  const rng = new Rng(seed).derive("course-stream");
  const titles = rng.derive("varied-titles");
  const bySchool = new Map<number, Offering[]>();
  for (const uni of universities) bySchool.set(uni.id, schoolOfferings(rng.derive(`staff:${uni.code}`), uni, true));
  const schoolPicks = universities.map((u) => [u, SCHOOL_WEIGHT[u.code] ?? 100] as const);
  const weights = options.semesters.reduce((sum, [, w]) => sum + w, 0);
  let id = 10_000 + rng.int(100, 900);
  let written = 0;
  let made = 0;
  let share = 0;
  for (const [semester, weight] of options.semesters) {
    share += weight;
    // Public courses up to this semester's cumulative share, so that they add up to publicCount exactly.
    const upTo = Math.round((options.publicCount * share) / weights);
    const taken = new Set<string>();
    while (written < upTo) {
      const uni = rng.weighted(schoolPicks);
      const offering = rng.weighted((bySchool.get(uni.id) ?? []).map((o) => [o, o.dept.weight] as const));
      const instructor = rng.pick(offering.instructors);
      const template = variedTitle(titles, offering, rng.pick(instructor.specialties));
      const course = composeCourse(rng, uni, offering, instructor, template, semester, rng.string(8, UPPER_ALNUM));
      let classNo = Number(course.course_class);
      while (taken.has(`${uni.id}|${course.course_number}|${classNo}`)) classNo++;
      taken.add(`${uni.id}|${course.course_number}|${classNo}`);
      course.course_class = String(classNo).padStart(2, "0");
      course.id = id;
      id += rng.weighted(ID_GAPS);
      course.students = [];
      course.is_public = made++ % 11 === 10 ? 0 : 1;
      if (course.is_public) written++;
      yield course;
    }
  }
}

/** The steps between consecutive course ids: gaps left by deleted courses. */
const ID_GAPS = [
  [1, 70],
  [2, 20],
  [3, 7],
  [7, 3],
] as const;

/** A department's field, as a title names it: 經濟學系 → 經濟學, Department of Economics → economics. */
function field(dept: Department): Pair {
  return [dept.zh.replace(/(系|學程|中心)$/, ""), dept.en.replace(/^(Department|Center|Program) (of|for) /, "").toLowerCase()];
}

/** Departments in a fixed order, and every topic of every department: topics are applied across fields. */
const ALL_DEPARTMENTS = Object.values(DEPARTMENTS);
const ALL_TOPICS = ALL_DEPARTMENTS.flatMap((d) => d.topics);

/** A title of its own for a course of `template` (CourseOptions `varied`): two in three are composed. */
function variedTitle(rng: Rng, offering: Offering, template: CourseTemplate): CourseTemplate {
  if (rng.chance(1 / 3)) return template;
  const [zh, en, level] = template;
  const [tz, te] = rng.pick(offering.dept.topics);
  const [uz, ue] = rng.pick(ALL_TOPICS);
  const [fz, fe] = field(rng.pick(ALL_DEPARTMENTS));
  const compose: ReadonlyArray<() => Pair> = [
    () => [`${tz}專題`, `Special Topics in ${capitalize(te)}`],
    () => [`${zh}：${uz}`, `${en}: ${capitalize(ue)}`],
    () => [`${tz}與${uz}`, `${capitalize(te)} and ${ue}`],
    () => [`${tz}於${fz}之應用`, `${capitalize(te)} in ${fe}`],
    () => [`${zh}：${tz}與${uz}`, `${en}: ${capitalize(te)} and ${ue}`],
    () => [`${uz}實務（${fz}）`, `${capitalize(ue)} in Practice (${fe})`],
    () => [`${zh}（${uz}）`, `${en} (${ue})`],
    () => [`${fz}中的${tz}`, `${capitalize(te)} in ${fe}: Seminar`],
  ];
  const [vz, ve] = rng.pick(compose)();
  return [vz, ve, level];
}

/** Every department but general education, which every school has. */
const DEPARTMENT_KEYS = Object.keys(DEPARTMENTS).filter((key) => key !== "GE");

/** A school's departments: the catalogue's for the demo's schools, else `CSIE` and `MATH`, or a sample of 6 to 14 with `sampled`. */
function schoolOfferings(rng: Rng, uni: ExportUniversity, sampled = false): Offering[] {
  const own = SCHOOL_DEPARTMENTS[uni.code] ?? (sampled ? rng.sample(DEPARTMENT_KEYS, rng.int(6, 14)) : ["CSIE", "MATH"]);
  const keys = [...own, "GE"];
  return keys.map((key) => {
    const dept = DEPARTMENTS[key];
    if (!dept) throw new Error(`unknown department ${key}`);
    const [zh, en] = uni.country === "US" ? (US_DEPARTMENT_NAMES[key] ?? [dept.zh, dept.en]) : [dept.zh, dept.en];
    const size = Math.max(2, Math.round(dept.weight * rng.float(0.7, 1.2)));
    const instructors: Instructor[] = [];
    for (let i = 0; i < size; i++) {
      const name = uni.country === "US" && rng.chance(0.7) ? westernName(rng) : chineseName(rng);
      instructors.push({ name, specialties: rng.sample(dept.courses, rng.int(2, 3)) });
    }
    return { dept, deptKey: key, zh, en, instructors };
  });
}

function composeCourse(
  rng: Rng,
  uni: ExportUniversity,
  offering: Offering,
  instructor: Instructor,
  template: CourseTemplate,
  semester: string,
  joinCode: string,
): ExportCourse {
  const [titleZh, titleEn, level, hasSequel] = template;
  const { dept } = offering;
  const us = uni.country === "US";
  const term = semester.endsWith("-2") ? 1 : 0;
  const sequel = hasSequel ? (SEQUEL[term] as Pair) : (["", ""] as const);
  // The same course keeps its number across semesters.
  const serial = (hashString(`${uni.code}:${offering.deptKey}:${titleEn}`) % 90) + 10;
  const courseNumber = us
    ? `${dept.usCode}${level === 5 ? 2 : level}${serial}`
    : `${dept.code}${level}${serial}${hasSequel ? term + 1 : 0}`;
  const courseClass = rng.weighted([
    [1, 80],
    [2, 15],
    [3, 5],
  ] as const);
  const className = us
    ? `${dept.usCode} ${courseNumber.slice(dept.usCode.length)} Section ${"ABC".charAt(courseClass - 1)}`
    : offering.deptKey === "GE"
      ? `通識${"甲乙丙".charAt(courseClass - 1)}班`
      : `${dept.abbr}${GRADE[level] ?? "一"}${"甲乙丙".charAt(courseClass - 1)}`;

  const topics = rng.sample(dept.topics, rng.int(4, 6));
  const [t1, t2] = [topics[0] as Pair, topics[1] as Pair];
  const goal = rng.pick(GOAL_TEMPLATES);
  const outlineZh = [
    CONTENT_OPENING[0],
    ...topics.slice(0, 3).map((t) => t[0]),
    CONTENT_MIDTERM[0],
    ...topics.slice(3).map((t) => t[0]),
    CONTENT_FINAL[0],
  ];
  const outlineEn = [
    CONTENT_OPENING[1],
    ...topics.slice(0, 3).map((t) => capitalize(t[1])),
    CONTENT_MIDTERM[1],
    ...topics.slice(3).map((t) => capitalize(t[1])),
    CONTENT_FINAL[1],
  ];
  const memo = rng.chance(0.35) ? null : rng.pick(MEMOS)[us ? 1 : 0];
  const weeks = us ? 15 : ["NTU", "NTHU", "NYCU", "NCCU"].includes(uni.code) && semester >= "113" ? 16 : 18;
  const dates = semesterDates(
    semester,
    weeks,
    us
      ? 0
      : rng.weighted([
          [0, 85],
          [7, 15],
        ] as const),
  );
  const nameZh = titleZh + sequel[0];
  const nameEn = titleEn + sequel[1];

  return {
    id: 0,
    university_id: uni.id,
    class_name: className,
    course_number: courseNumber,
    course_class: String(courseClass).padStart(2, "0"),
    course_name_chinese: nameZh,
    course_name_english: nameEn,
    instructor: instructor.name.zh,
    instructor_english: instructor.name.en,
    department: offering.zh,
    department_english: offering.en,
    semester,
    ...dates,
    teaching_goal: fill(goal[0], { course: titleZh, t1: t1[0], t2: t2[0] }),
    teaching_goal_english: fill(goal[1], { course_en: titleEn, t1: t1[1], t2: t2[1] }),
    teaching_content: outlineZh.map((line, i) => `${i + 1}. ${line}`).join("\n"),
    teaching_content_english: outlineEn.map((line, i) => `${i + 1}. ${line}`).join("\n"),
    class_memo: memo,
    is_public: rng.chance(0.8) ? 1 : 0,
    join_code: joinCode,
    students: students(rng, uni, offering.deptKey, semester, level),
    teacher_settings: {
      system_prompt: us
        ? `You are the teaching assistant of "${nameEn}". Guide students with Socratic questions and never hand out homework answers.`
        : `你是「${nameZh}」的課程助教，請以蘇格拉底式提問引導學生思考，不要直接提供作業答案。`,
      api_key: `sk-demo-${rng.string(32, LOWER_ALNUM)}`,
    },
  };
}

function students(rng: Rng, uni: ExportUniversity, deptKey: string, semester: string, level: number): ExportStudent[] {
  const n = rng.int(1, 3);
  const out: ExportStudent[] = [];
  const roc = Number(semester.slice(0, 3));
  const deptNo = 100 + (hashString(deptKey) % 800);
  for (let i = 0; i < n; i++) {
    if (uni.country === "US") {
      const name = rng.chance(0.6) ? westernName(rng) : chineseName(rng);
      out.push({
        student_number: String(rng.int(1_000_000, 2_999_999)),
        name: name.en,
        email: `${emailHandle(name)}${rng.int(1, 99)}@${uni.code.toLowerCase()}.example.edu`,
      });
    } else {
      const name = chineseName(rng);
      const entry = String((roc - Math.min(level, 4) + 1 - (rng.chance(0.3) ? 1 : 0)) % 100).padStart(2, "0");
      const number = `${level === 5 ? "R" : "B"}${entry}${deptNo}${String(rng.int(1, 120)).padStart(3, "0")}`;
      out.push({ student_number: number, name: name.zh, email: `${number.toLowerCase()}@${uni.code.toLowerCase()}.example.edu.tw` });
    }
  }
  return out;
}
