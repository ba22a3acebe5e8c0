/**
 * The `taiwan` dataset (src/demo/taiwan.ts, issue 54) at a size a test can
 * hold: the schools, semesters, exact public course count, Packs, stations and
 * hourly observations it promises, deterministic, and imported as it is by the
 * importer; `npm run demo-data -- --dataset taiwan` writes it.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ExportCourse, ExportHubPack, ExportObservation, ExportStation, ExportUniversity } from "../../src/demo/index.js";
import { taiwanExportChunks } from "../../src/demo/taiwan.js";
import { builtCommand } from "../support/built.js";
import { cli } from "../support/cli.js";
import { freshDatabase, importObject } from "../support/databases.js";

const NOW = new Date("2026-11-28T05:30:00Z");
const ROOT = join(import.meta.dirname, "..", "..");

interface Doc {
  format: string;
  exported_at: string;
  universities: ExportUniversity[];
  courses: ExportCourse[];
  hub_packs: ExportHubPack[];
  stations: ExportStation[];
  observations: ExportObservation[];
}

const text = (options: Parameters<typeof taiwanExportChunks>[0]) => [...taiwanExportChunks(options)].join("");
const small = { courses: 3_000, packs: 120, days: 1, now: NOW };
const doc = JSON.parse(text(small)) as Doc;

describe("the taiwan dataset", () => {
  it("is 160 schools, exactly the public courses asked for over 10 semesters, one in eleven private besides", () => {
    expect(doc.format).toBe("platform-export/1");
    expect(doc.universities).toHaveLength(160);
    expect(new Set(doc.universities.map((u) => u.code.toLowerCase())).size).toBe(160);
    const open = doc.courses.filter((c) => c.is_public);
    expect(open).toHaveLength(3_000);
    expect(doc.courses.length - open.length).toBe(Math.floor(doc.courses.length / 11));
    expect(new Set(doc.courses.map((c) => c.semester))).toEqual(
      new Set(["110-1", "110-2", "111-1", "111-2", "112-1", "112-2", "113-1", "113-2", "114-1", "114-2"]),
    );
    // Semester by semester, ids ascending: the newest semester holds the highest ids.
    const ids = doc.courses.map((c) => c.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.courses.map((c) => c.semester)).toEqual(doc.courses.map((c) => c.semester).sort());
    // Courses at most of the 160 schools, the demo's and the generated ones alike.
    expect(new Set(open.map((c) => c.university_id)).size).toBeGreaterThan(140);
  });

  it("has titles as varied as a real catalogue's, with the common words searches ask for", () => {
    const titles = doc.courses.map((c) => `${c.course_name_chinese} ${c.course_name_english}`);
    expect(new Set(titles).size).toBeGreaterThan(doc.courses.length / 2);
    for (const word of ["資料", "程式", "學", "learning"]) {
      const share = titles.filter((t) => t.toLowerCase().includes(word)).length / titles.length;
      expect(share, word).toBeGreaterThan(0.01);
    }
  });

  it("has the Packs asked for, the seed's 1,299 stations and every station's every hour", () => {
    expect(new Set(doc.hub_packs.map((p) => p.id)).size).toBe(120);
    expect(doc.stations.filter((s) => s.kind === "weather")).toHaveLength(1_215);
    expect(doc.stations.filter((s) => s.kind === "air")).toHaveLength(84);
    expect(doc.observations).toHaveLength(24 * 1_299);
    expect(doc.observations.at(-1)!.observed_at).toBe("2026-11-28T05:00:00Z");
    expect(doc.observations.filter((o) => o.station_id === "A0").every((o) => o.aqi !== null && o.pm25_ugm3 !== undefined)).toBe(true);
  });

  it("is byte-identical for the same options, and refuses sizes it cannot make", () => {
    expect(text(small)).toBe(text(small));
    expect(() => text({ courses: -1 })).toThrow(/courses must be an integer of at least 0/);
    expect(() => text({ schools: 14 })).toThrow(/schools must be an integer of at least 15/);
  });

  it("is imported as it is: every public course placed in the lists a page is cut from", async () => {
    const db = await freshDatabase();
    try {
      const summary = await importObject(db, doc);
      expect(summary).toMatchObject({
        universities: 160,
        courses: doc.courses.length,
        hubPacks: 120,
        stations: 1_299,
        observations: 24 * 1_299,
      });
      const [placed] = await db.query<{ n: number; last: number }>("SELECT count(*)::int AS n, max(in_all) AS last FROM course_place");
      expect(placed).toEqual({ n: 3_000, last: 3_000 });
    } finally {
      await db.close();
    }
  }, 60_000);
});

describe("npm run demo-data -- --dataset taiwan", () => {
  const dir = mkdtempSync(join(tmpdir(), "uedu-taiwan-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the dataset to a file, and refuses what it cannot make in one line, exit 2", async () => {
    const file = join(dir, "taiwan.json");
    const run = await cli(dir, "demo-data", [file, "--dataset", "taiwan", "--courses", "40", "--days", "0", "--now", NOW.toISOString()]);
    expect(run.stderr).toMatch(/^demo-data: wrote [\d,]+ bytes\n$/);
    expect(run.code).toBe(0);
    const written = JSON.parse(readFileSync(file, "utf8")) as Doc;
    expect(written.courses.filter((c) => c.is_public)).toHaveLength(40);
    expect(written.observations).toEqual([]);
    const bad = await cli(dir, "demo-data", ["--dataset", "everything"]);
    expect([bad.code, bad.stderr.split("\n")[0]]).toEqual([2, "demo-data: --dataset is demo or taiwan"]);
    const notDemo = await cli(dir, "demo-data", ["--courses", "5"]);
    expect([notDemo.code, notDemo.stderr.split("\n")[0]]).toEqual([2, "demo-data: --courses is an option of --dataset taiwan"]);
  }, 60_000);

  it("stops quietly, exit 0, when its reader closes standard output early (`| head`)", async () => {
    const [node, ...command] = builtCommand("src/cli/demo-data.ts");
    const child = spawn(node, [...command, "--dataset", "taiwan", "--courses", "100000", "--days", "0"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    let read = 0;
    child.stdout.on("data", (d: Buffer) => {
      read += d.length;
      child.stdout.destroy();
    });
    const [code] = (await once(child, "exit")) as [number | null];
    expect(read).toBeGreaterThan(0);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  }, 60_000);
});
