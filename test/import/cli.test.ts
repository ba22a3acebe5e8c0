/**
 * `npm run import -- <file|->` as a process: exit codes, messages, summary,
 * standard input, and progress only on a terminal. Each test continues
 * from the DATA_DIR the previous one left.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, rmSync, statSync, writeFileSync } from "node:fs";

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtCommand } from "../support/built.js";
import { cli } from "../support/cli.js";
import { migratedDataDir } from "../support/databases.js";
import { openDatabase } from "../../src/db/driver.js";
import { readMigrations } from "../../src/db/migrate.js";
import { writeDemoExportFile } from "../../src/demo/index.js";
import { CANARY_COUNTS, canary, counts } from "./helpers.js";
import { tempDir } from "../support/temp.js";

const ROOT = join(import.meta.dirname, "..", "..");
const SUMMARY = "imported 3 universities, 6 courses, 2 papers, 2 conferences, 4 hub packs (6 versions), 2 stations, 2 observations";
/** The summary line, ending with the time the import took. */
const summary = (text = SUMMARY) => expect.stringMatching(new RegExp(`^${text.replace(/[()]/g, "\\$&")} in \\d+\\.\\d s\n$`));

let tmp: string;
let dataDir: string;
beforeAll(() => {
  tmp = tempDir("import-cli-");
  dataDir = join(tmp, "data");
  writeFileSync(join(tmp, "canary.json"), JSON.stringify(canary()));
  const bad = canary();
  bad.courses[3]!.semester = "2024";
  writeFileSync(join(tmp, "bad.json"), JSON.stringify(bad));
});
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

const env = (dir: string) => {
  const e: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir };
  delete e.DATABASE_URL;
  return e;
};

/** Runs the import command; `stdin` is written to its standard input. */
const runImport = (args: string[], stdin?: string, dir = dataDir) => cli(dir, "import", args, { input: stdin ?? "" });

async function dataCounts() {
  const db = await openDatabase({ dataDir });
  try {
    return await counts(db);
  } finally {
    await db.close();
  }
}

describe("npm run import", () => {
  it("without an argument prints the usage and exits 2, opening nothing", async () => {
    expect(await runImport([])).toEqual({
      code: 2,
      stdout: "",
      stderr: expect.stringMatching(/^import: missing argument\nusage: npm run import -- <export.json \| ->\n/),
    });
    expect(existsSync(dataDir)).toBe(false);
  }, 30_000);

  it("with a file that does not exist says so and exits 1, opening nothing", async () => {
    const missing = join(tmp, "missing.json");
    expect(await runImport([missing])).toEqual({ code: 1, stdout: "", stderr: `import failed: cannot read ${missing}: no such file\n` });
    expect(existsSync(dataDir)).toBe(false);
  }, 30_000);

  it("imports a file into an empty DATA_DIR, migrating it first, and prints the summary", async () => {
    expect(await runImport([join(tmp, "canary.json")])).toEqual({
      code: 0,
      stdout: summary(),
      stderr: readMigrations()
        .map((m) => `applied migration ${m.name}\n`)
        .join(""),
    });
    expect(await dataCounts()).toEqual(CANARY_COUNTS);
  }, 60_000);

  it("refuses a bad file with the record's name, exits 1 and changes nothing", async () => {
    expect(await runImport([join(tmp, "bad.json")])).toEqual({
      code: 1,
      stdout: "",
      stderr: "import failed: courses[3].semester: expected <year>-<term>, like 113-1\n",
    });
    expect(await dataCounts()).toEqual(CANARY_COUNTS);
  }, 60_000);

  it("refuses an export whose schools share a code, naming both records and no constraint, and changes nothing", async () => {
    const twice = canary();
    twice.universities[2]!.code = "nthu";
    writeFileSync(join(tmp, "twice.json"), JSON.stringify(twice));
    expect(await runImport([join(tmp, "twice.json")])).toEqual({
      code: 1,
      stdout: "",
      stderr: 'import failed: universities[2].code "nthu" is also universities[1].code "NTHU", ignoring case\n',
    });
    expect(await dataCounts()).toEqual(CANARY_COUNTS);
  }, 60_000);

  it("imports an export that gives the codes it holds to other schools", async () => {
    const moved = canary();
    for (const u of moved.universities) u.id += 10;
    for (const c of moved.courses) c.university_id += 10;
    [moved.universities[0]!.code, moved.universities[1]!.code] = [moved.universities[1]!.code, moved.universities[0]!.code];
    writeFileSync(join(tmp, "moved.json"), JSON.stringify(moved));
    expect(await runImport([join(tmp, "moved.json")])).toEqual({ code: 0, stdout: summary(), stderr: "" });
    const db = await openDatabase({ dataDir });
    try {
      expect(await db.query(`SELECT id, code FROM university ORDER BY id`)).toEqual([
        { id: 11, code: "NTHU" },
        { id: 12, code: "NTU" },
        { id: 13, code: "UW" },
      ]);
    } finally {
      await db.close();
    }
    expect(await runImport([join(tmp, "canary.json")])).toMatchObject({ code: 0 });
  }, 60_000);

  it("reads standard input for -", async () => {
    const e = canary();
    e.courses = e.courses.slice(1);
    const result = await runImport(["-"], JSON.stringify(e));
    expect(result).toEqual({ code: 0, stdout: summary(SUMMARY.replace("6 courses", "5 courses")), stderr: "" });
    expect(await dataCounts()).toEqual({ ...CANARY_COUNTS, course: 5 });
  }, 60_000);

  it("without a terminal, writes a JSON progress line at each phase and every 2 s, and ends with the rows and the time", async () => {
    const file = join(tmp, "demo.json");
    // 30 days: validating takes 1.2 s on a quiet fast machine, and more elsewhere.
    await writeDemoExportFile(file, { days: 30 });
    const size = statSync(file).size;
    // The 2 s ticks fall wherever they fall: a phase as short as that may hold none. So the import is
    // held (SIGSTOP) for 2.1 s from half a second into validating, as a busy machine would hold it,
    // and a tick falls inside the phase however fast this machine validates.
    const run = await cli(join(tmp, "fresh"), "import", [file], {
      progress: true,
      hold: { phase: "validating", afterMs: 500, forMs: 2_100 },
    });
    expect(run.held).toBe(true);
    expect(run.code).toBe(0);
    const lines = run.progress!;
    expect([...new Set(lines.map((l) => l.phase))]).toEqual([
      "opening",
      "migrating",
      "validating",
      "checking references",
      "writing",
      "committing",
      "closing",
      "done",
    ]);
    // A line every 2 s whatever the phase, each at most 2 s late on a busy machine (5 s is the promise).
    const gaps = lines.slice(1).map((l, i) => l.receivedMs - lines[i]!.receivedMs);
    expect(Math.max(...gaps)).toBeLessThan(4_000);
    const validating = lines.filter((l) => l.phase === "validating");
    expect(validating.every((l) => l.total === size && l.unit === "bytes")).toBe(true);
    expect(validating.some((l) => l.done > 0 && l.done < size && l.rate_per_s! > 0 && l.eta_s !== null)).toBe(true);
    const writing = lines.filter((l) => l.phase === "writing");
    expect(writing.every((l) => l.unit === "rows" && l.total! > 0)).toBe(true);
    const last = lines.at(-1)!;
    const [, universities, courses, observations, seconds] =
      /^imported (\d+) universities, ([\d,]+) courses, .* ([\d,]+) observations in (\d+\.\d) s\n$/.exec(run.stdout)!;
    expect(last.rows).toMatchObject({
      universities: Number(universities),
      courses: Number(courses!.replace(/,/g, "")),
      observations: Number(observations!.replace(/,/g, "")),
    });
    expect(Number(seconds)).toBeCloseTo(last.elapsed_s, 0);
  }, 120_000);

  const hasScript = spawnSync("script", ["--version"]).status === 0;
  it.skipIf(!hasScript)(
    "on a terminal, redraws one line with the phase, a bar, the rate and the ETA, and clears it before the summary",
    async () => {
      const file = join(tmp, "demo.json"); // written by the test before
      // `script` gives the command a terminal; its output is what the terminal showed.
      const shown = await new Promise<string>((resolve, reject) => {
        // The run's build, as the other commands here; into a migrated DATA_DIR, since the drawing is what is tested.
        const command = [...builtCommand("src/cli/import.ts"), file].join(" ");
        const ttyDir = migratedDataDir(join(tmp, "tty"));
        const child = spawn("script", ["-qec", command, "/dev/null"], { cwd: ROOT, env: env(ttyDir) });
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.on("error", reject);
        child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`))));
      });
      const [drawn, summaryLine] = shown.split("\r\x1b[Kimported ");
      expect(summaryLine).toMatch(/^\d+ universities, .* in \d+\.\d s\r\n$/);
      const redraws = drawn!.split("\r").filter((line) => line.startsWith("import: "));
      expect(redraws.length).toBeGreaterThan(5);
      expect(redraws.every((line) => line.endsWith("\x1b[K") && line.length < 80 + 3)).toBe(true);
      expect(
        redraws.some((line) =>
          /^import: validating {2}▕[█░]{10}▏ +\d+% {2}\d+\.\d\/\d+\.\d MB {2}\d+\.\d MB\/s {2}ETA \d:\d\d {2}\d:\d\d/.test(line),
        ),
      ).toBe(true);
      expect(redraws.some((line) => /^import: writing {2}▕[█░]{10}▏ +\d+% {2}[\d,]+\/[\d,]+ rows/.test(line))).toBe(true);
      expect(shown).not.toContain('{"progress"');
    },
    60_000,
  );
});
