/**
 * The export's record schemas start from the Prisma schema: the generator
 * `scripts/prisma-columns.mjs` gives each stored column the rule its type
 * implies. A plain column added to `prisma/schema.prisma` and to a migration
 * is read from the export and stored with no edit of the importer.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import * as z from "zod";
import type { Database } from "../../src/db/driver.js";
import { COLUMNS } from "../../src/generated/columns.js";
import { SECTIONS } from "../../src/import/records.js";
import { freshDatabase } from "../support/databases.js";
import { canary } from "./helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const SCHEMA = readFileSync(join(ROOT, "prisma", "schema.prisma"), "utf8");

/** The columns of a throwaway copy of the Prisma schema, with `course` changed by `edit`; the generator's exit code and errors. */
function generate(dir: string, edit: (courseModel: string) => string) {
  const schema = SCHEMA.replace(/output\s*=\s*"\.\.\/src\/generated\/columns\.ts"/, `output = "./columns.ts"`).replace(
    /model Course \{[^}]*\}/,
    edit,
  );
  writeFileSync(join(dir, "schema.prisma"), schema);
  return spawnSync(process.execPath, ["scripts/generate.mjs", "--schema", join(dir, "schema.prisma"), "--generator", "columns"], {
    cwd: ROOT,
    encoding: "utf8",
  });
}

const withColumns = (lines: string) => (model: string) => model.replace(/\n\s*university University/, `\n  ${lines}\n$&`);

describe("the record schemas generated from the Prisma schema", () => {
  let dir: string;
  let generated: { COLUMNS: typeof COLUMNS & { Course: z.ZodRawShape } };
  let db: Database | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "columns-"));
    const run = generate(
      dir,
      withColumns(
        [
          `credits Int? @map("credits")`,
          `firstLecture DateTime? @map("first_lecture") @db.Date`,
          `reviewedAt DateTime @map("reviewed_at") @db.Timestamptz(3)`,
          `level EducationLevel? @map("level")`,
        ].join("\n  "),
      ),
    );
    expect(run.status, run.stderr).toBe(0);
    generated = await import(join(dir, "columns.ts"));
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    vi.doUnmock("../../src/generated/columns.js");
    rmSync(dir, { recursive: true, force: true });
  });

  it("each section's record holds its model's columns, less those the importer derives", () => {
    const derived: Record<keyof typeof SECTIONS, [keyof typeof COLUMNS, string[]]> = {
      universities: ["University", ["code_key"]],
      courses: ["Course", []],
      papers: ["Paper", []],
      conferences: ["Conference", []],
      hub_packs: ["HubPack", ["latest_version", "latest_published_at"]],
      stations: ["Station", []],
      observations: ["Observation", []],
    };
    for (const [section, [model, left]] of Object.entries(derived)) {
      const fields = Object.keys(SECTIONS[section as keyof typeof SECTIONS].shape).filter((f) => f !== "versions");
      expect(fields.sort(), section).toEqual(
        Object.keys(COLUMNS[model])
          .filter((c) => !left.includes(c))
          .sort(),
      );
    }
  });

  it("gives a new column the rule its type implies", () => {
    const course = z.object(generated.COLUMNS.Course);
    const base = { ...canary().courses[0]!, reviewed_at: "2026-02-17T09:00:00+08:00" };
    const parsed = course.parse({ ...base, credits: 3, first_lecture: "2026-02-17", level: "university" });
    expect(parsed).toMatchObject({ credits: 3, first_lecture: "2026-02-17", level: "university" });
    expect(parsed.reviewed_at).toEqual(new Date("2026-02-17T01:00:00Z"));
    expect(course.parse(base)).toMatchObject({ credits: null, first_lecture: null, level: null });

    const problem = (record: object) => course.safeParse(record).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(problem({ ...base, credits: 1.5 })).toEqual(["credits: expected an integer"]);
    expect(problem({ ...base, credits: 2 ** 31 })).toEqual([`credits: expected an integer of at most ${2 ** 31 - 1}`]);
    expect(problem({ ...base, first_lecture: "2026-02-30" })).toEqual(["first_lecture: expected a real calendar date"]);
    expect(problem({ ...base, level: "kindergarten" })).toEqual([
      "level: expected university, high_school, junior_high, elementary or general",
    ]);
    expect(problem({ ...base, reviewed_at: "2026-02-17" })).toEqual(["reviewed_at: expected an ISO 8601 instant with a time zone offset"]);
  });

  it("the importer stores the new column with no edit of its own", async () => {
    vi.resetModules();
    vi.doMock("../../src/generated/columns.js", () => generated);
    // The files run after this one in its worker (isolate: false) import the real rules again.
    onTestFinished(() => {
      vi.doUnmock("../../src/generated/columns.js");
      vi.resetModules();
    });
    const { importExport } = await import("../../src/import/apply.js");
    db = await freshDatabase();
    await db.exec(`ALTER TABLE course ADD COLUMN credits INTEGER, ADD COLUMN first_lecture DATE,
      ADD COLUMN reviewed_at TIMESTAMPTZ(3) NOT NULL DEFAULT now(), ADD COLUMN level "EducationLevel"`);
    const e = canary();
    const courses = e.courses.map((c, i) => ({
      ...c,
      reviewed_at: "2026-02-17T09:00:00+08:00",
      ...(i === 0 ? { credits: 3, level: "general" } : {}),
    }));
    await importExport(db, Readable.from([JSON.stringify({ ...e, courses })]));
    expect(
      await db.query(`SELECT id, credits, level, reviewed_at = '2026-02-17T01:00:00Z' AS same FROM course ORDER BY id LIMIT 2`),
    ).toEqual([
      { id: courses[0]!.id, credits: 3, level: "general", same: true },
      { id: courses[1]!.id, credits: null, level: null, same: true },
    ]);
  });

  it("a column of a type with no rule stops the generation, naming it", () => {
    const run = generate(dir, withColumns(`price Decimal? @map("price")`));
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("Course.price: no import rule for Decimal");
  }, 60_000);
});
