/**
 * `npm run import -- <file|->` as a process: exit codes, messages, summary,
 * standard input, and progress only on a terminal. Each test continues
 * from the DATA_DIR the previous one left.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../support/cli.js";
import { openDatabase } from "../../src/db/driver.js";
import { readMigrations } from "../../src/db/migrate.js";
import { CANARY_COUNTS, canary, counts } from "./helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const TSX = join(ROOT, "node_modules", ".bin", "tsx");
const SUMMARY = "imported 3 universities, 6 courses, 2 papers, 2 conferences, 4 hub packs (6 versions), 2 stations, 2 observations\n";

let tmp: string;
let dataDir: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "import-cli-"));
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
      stdout: SUMMARY,
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

  it("reads standard input for -", async () => {
    const e = canary();
    e.courses = e.courses.slice(1);
    const result = await runImport(["-"], JSON.stringify(e));
    expect(result).toEqual({ code: 0, stdout: SUMMARY.replace("6 courses", "5 courses"), stderr: "" });
    expect(await dataCounts()).toEqual({ ...CANARY_COUNTS, course: 5 });
  }, 60_000);

  const hasScript = spawnSync("script", ["--version"]).status === 0;
  it.skipIf(!hasScript)(
    "shows progress on one line, only when stderr is a terminal",
    async () => {
      const e = canary();
      e.papers = Array.from({ length: 1_000 }, (_, i) => ({ ...e.papers[0]!, slug: `p-${i}` }));
      const file = join(tmp, "papers.json");
      writeFileSync(file, JSON.stringify(e));
      // `script` gives the command a terminal; its output is what the terminal showed.
      const shown = await new Promise<string>((resolve, reject) => {
        const child = spawn("script", ["-qec", `${TSX} src/cli/import.ts ${file}`, "/dev/null"], { cwd: ROOT, env: env(dataDir) });
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.on("error", reject);
        child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`))));
      });
      expect(shown).toBe(
        "\rpapers: 500\x1b[K\rpapers: 1,000\x1b[K\robservations: 2\x1b[K\r\x1b[K" +
          SUMMARY.replace("2 papers", "1,000 papers").replace("\n", "\r\n"),
      );
    },
    60_000,
  );
});
