/**
 * The checks of `npm test` and `npm run check` (scripts/check.mjs): the type
 * check and every `check:*` script of package.json, run at the same time as
 * far as the cores allow, each one's output printed whole, and a failure of
 * any one failing the whole once all have run.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "./support/temp.js";

interface Check {
  name: string;
  command: string;
}
const { checkScripts, runChecks } = (await import(new URL("../scripts/check.mjs", import.meta.url).href)) as {
  checkScripts(root: string): Check[];
  runChecks(options: { root: string; concurrency?: number; write?: (text: string) => void }): Promise<number>;
};

const ROOT = join(import.meta.dirname, "..");
const project = tempDir("check-");
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** Runs the checks of a project whose package.json has `scripts`: the exit code and what was written. */
async function checks(scripts: Record<string, string>, concurrency: number): Promise<{ code: number; output: string }> {
  writeFileSync(join(project, "package.json"), JSON.stringify({ scripts }));
  let output = "";
  const code = await runChecks({ root: project, concurrency, write: (text) => (output += text) });
  return { code, output };
}

/** A script that waits (at most 20 s) for file `name` in its folder, which another script makes. */
const waitsFor = (name: string) =>
  `node -e "const f=require('fs');const t=Date.now();(function w(){if(f.existsSync('${name}'))process.exit(0);if(Date.now()-t>20000)process.exit(9);setTimeout(w,20)})()"`;

describe("npm test's checks", () => {
  it("are the type check, Biome with warnings as errors, the dependency rules and knip, before the suite", () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(scripts.test).toBe("node scripts/check.mjs && vitest run");
    expect(checkScripts(ROOT)).toEqual([
      { name: "typecheck", command: "node scripts/typecheck.mjs" },
      { name: "check:lint", command: "biome check --error-on-warnings ." },
      { name: "check:deps", command: expect.stringMatching(/^depcruise src rest bench scripts test /) },
      { name: "check:dead", command: "knip --no-gitignore" },
    ]);
  });

  it("run side by side: the type check, started first, sees what a later check makes", async () => {
    const run = await checks({ typecheck: waitsFor("made"), "check:a": "touch made" }, 2);
    expect(run).toEqual({ code: 0, output: expect.stringContaining("check: typecheck passed") });
    rmSync(join(project, "made"), { force: true });
  });

  it("a failing check fails the whole after every other has run, with its output and exit code named", async () => {
    const run = await checks(
      {
        typecheck: "echo typed",
        "check:a": "echo 'a went wrong' >&2; exit 3",
        "check:b": "echo b fine",
        lint: "exit 1",
      },
      1,
    );
    expect(run.code).toBe(1);
    expect(run.output).toContain("check: typecheck passed");
    expect(run.output).toMatch(/^check: check:a failed \(exit 3\) in [\d.]+ s: echo 'a went wrong' >&2; exit 3\na went wrong\n/m);
    expect(run.output).toContain("check: check:b passed");
    expect(run.output).toContain("b fine\n");
    // Only typecheck and check:*: not lint.
    expect(run.output).not.toMatch(/check: lint/);
    expect(run.output.trimEnd().split("\n").at(-1)).toBe("check: failed: check:a");
  });

  it("finds the project's own tools in node_modules/.bin, as npm run does", async () => {
    mkdirSync(join(project, "node_modules", ".bin"), { recursive: true });
    writeFileSync(join(project, "node_modules", ".bin", "own-tool"), "#!/bin/sh\necho from the project bin\n", { mode: 0o755 });
    expect(await checks({ "check:tool": "own-tool" }, 1)).toEqual({ code: 0, output: expect.stringContaining("from the project bin\n") });
  });
});
