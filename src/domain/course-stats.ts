/**
 * Course statistics rows (operation 4): course and distinct-instructor counts
 * per semester, year or school, from rows already grouped by (key, instructor).
 */

export type StatsGrouping = "semester" | "year" | "school";

/** One (group key, instructor) cell with its number of courses. */
export interface InstructorCell {
  key: string;
  instructor: string | null;
  courses: number;
}

export interface StatsRow {
  key: string;
  courseCount: number;
  instructorCount: number;
}

/** The year of a semester `<year>-<term>`: the part before the hyphen. */
export function semesterYear(semester: string): string {
  const hyphen = semester.indexOf("-");
  return hyphen === -1 ? semester : semester.slice(0, hyphen);
}

/** Orders rows by key ascending, as JavaScript compares strings (UTF-16 code units). */
export function byKey(a: { key: string }, b: { key: string }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * Folds cells into one row per key, sorted by key ascending. A null
 * instructor counts its courses but is not an instructor.
 */
export function foldStats(cells: Iterable<InstructorCell>): StatsRow[] {
  const groups = new Map<string, { courses: number; instructors: Set<string> }>();
  for (const cell of cells) {
    let group = groups.get(cell.key);
    if (!group) {
      group = { courses: 0, instructors: new Set() };
      groups.set(cell.key, group);
    }
    group.courses += cell.courses;
    if (cell.instructor !== null) group.instructors.add(cell.instructor);
  }
  return [...groups.entries()].map(([key, g]) => ({ key, courseCount: g.courses, instructorCount: g.instructors.size })).sort(byKey);
}
