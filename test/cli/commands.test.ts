/**
 * Every `npm run` command behaves like a command: `--help` prints its usage
 * and exits 0, an unknown option prints the usage and exits 2, and neither
 * touches anything (an empty DATA_DIR stays empty, no file is written). The
 * commands are those of package.json that run a TypeScript entry (and the
 * build), so a new one is checked without being listed here.
 *
 * Each runs as its script's own command line, without npm (whose start is
 * half a second of CPU each time): an entry of src/ from the run's build, as
 * the other tests start them (test/support/built.ts), the others as written.
 * That the scripts are exactly those command lines is checked, and two are
 * also run through `npm run` as an operator types them.
 */
import { spawn } from "node:child_process";
import { readFileSync, rmSync, statSync } from "node:fs";

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pLimit from "p-limit";
import { afterAll, describe, expect, inject, it } from "vitest";
import { builtCommand } from "../support/built.js";
import { tempDir } from "../support/temp.js";

const ROOT = join(import.meta.dirname, "..", "..");
const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
const COMMANDS = [
  "start",
  ...Object.keys(scripts).filter((name) => name !== "start" && /^node (--import tsx |scripts\/build)/.test(scripts[name]!)),
];

const tmp = tempDir("commands-");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What a script runs, without npm: `node --import tsx ENTRY`, `node scripts/….mjs`, or `exec node scripts/start.mjs`. */
const SCRIPT = /^(?:exec )?node (?:--import tsx (\S+\.ts)|(scripts\/\S+\.mjs))$/;

/** The command line of script `name`: an entry of src/ from the run's build, anything else as written. */
function commandOf(name: string): [string, ...string[]] {
  const [, entry, script] = SCRIPT.exec(scripts[name]!) ?? [];
  if (entry?.startsWith("src/")) return builtCommand(entry);
  if (entry) return [process.execPath, "--import", "tsx", entry];
  if (script) return [process.execPath, script];
  throw new Error(`npm run ${name} runs \`${scripts[name]}\`, which this test does not know how to run without npm`);
}

/** Runs `command` with an empty DATA_DIR, no database or Redis configured, and `more` in its environment. */
function run(command: readonly string[], dataDir: string, more: NodeJS.ProcessEnv = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, UEDU_API_KEY: "k", ...more };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr: stderr.replace(/^npm warn .*\n/gm, "") });
    });
  });
}

/** Script `name` with `args`, on its own command line. */
const direct = (name: string, args: string[], dataDir: string, more?: NodeJS.ProcessEnv) =>
  run([...commandOf(name), ...args], dataDir, more);

/**
 * The commands that open the database: each answers `--help` and a usage
 * mistake from its command line alone (src/cli/lines/), without loading the
 * command, the configuration or any package (pg, Prisma, zod…): 0.07 CPU-s
 * instead of 0.14-0.23.
 */
const OPENING = ["keys", "usage", "import", "ingest", "db:migrate", "db:backup", "db:restore", "db:carry-over", "db:grants"];
/** Where a run with an unknown option writes down the modules it loads (test/support/loaded-modules.mjs). */
const modulesFile = (name: string) => join(tmp, `${name.replace(/\W/g, "-")}.modules`);
const WRITES_MODULES = `--import=${join(ROOT, "test", "support", "loaded-modules.mjs")}`;
/** `npm run -s <name> -- <args>`, as an operator types it. */
const npmRun = (name: string, args: string[], dataDir: string) => run(["npm", "run", "-s", name, "--", ...args], dataDir);

/** Files of the repository's tracked outputs, with their modification times. */
const OUTPUTS = ["graphql/schema.graphql", "rest/openapi.json"];
const stamps = () => OUTPUTS.map((f) => statSync(join(ROOT, f)).mtimeMs);

const limit = pLimit(3);
const runs = new Map(
  COMMANDS.map((name) => {
    const dataDir = join(tmp, name.replace(/\W/g, "-"));
    return [
      name,
      {
        dataDir,
        help: limit(() => direct(name, ["--help"], join(dataDir, "a"))),
        // The commands that open the database write down what they load (the hook's loader thread is their cost only).
        bad: limit(() =>
          direct(
            name,
            ["--no-such-option"],
            join(dataDir, "b"),
            OPENING.includes(name)
              ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} ${WRITES_MODULES}`.trim(), LOADED_MODULES_FILE: modulesFile(name) }
              : {},
          ),
        ),
      },
    ];
  }),
);
const before = stamps();

describe("every npm run command", () => {
  it("covers the commands an operator runs", () => {
    expect(COMMANDS).toEqual(expect.arrayContaining(OPENING));
    expect(COMMANDS).toEqual(
      expect.arrayContaining([
        "start",
        "keys",
        "usage",
        "import",
        "demo-data",
        "db:migrate",
        "db:backup",
        "db:restore",
        "db:carry-over",
        "mcp:stdio",
        "bench:environment",
        "bench:cost",
        "bench:memory",
        "build",
      ]),
    );
  });

  it("are each one command line, which npm runs as it is", async () => {
    for (const name of COMMANDS) expect(scripts[name], name).toMatch(SCRIPT);
    // Through npm, as typed: the arguments reach the command, and npm adds nothing to what it prints.
    for (const name of ["start", "keys"]) {
      const dataDir = join(tmp, `npm-${name}`);
      const [help, bad] = await Promise.all([
        npmRun(name, ["--help"], join(dataDir, "a")),
        npmRun(name, ["--no-such-option"], join(dataDir, "b")),
      ]);
      expect([help.code, help.stderr], name).toEqual([0, ""]);
      expect(help.stdout).toEqual((await runs.get(name)!.help).stdout);
      expect([bad.code, bad.stdout], name).toEqual([2, ""]);
      expect(bad.stderr).toEqual((await runs.get(name)!.bad).stderr);
      expect(() => statSync(dataDir)).toThrow(/ENOENT/);
    }
  });

  describe.each(COMMANDS)("%s", (name) => {
    it("answers --help with its usage on standard output and exit 0, touching nothing", async () => {
      const { dataDir, help } = runs.get(name)!;
      const run = await help;
      expect(run.stdout).toMatch(/^usage: /);
      expect(run.stdout).toContain(name === "start" ? "npm start" : `npm run ${name}`);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(() => statSync(join(dataDir, "a"))).toThrow(/ENOENT/);
    });

    it("answers an unknown option with the usage on standard error and exit 2, touching nothing", async () => {
      const { dataDir, bad } = runs.get(name)!;
      const run = await bad;
      expect(run.stderr).toContain("Unknown option '--no-such-option'");
      expect(run.stderr).toContain("usage: ");
      expect(run.stdout).toBe("");
      expect(run.code).toBe(2);
      expect(() => statSync(join(dataDir, "b"))).toThrow(/ENOENT/);
    });
  });

  it.each(OPENING)("%s answers an unknown option from its command line alone, loading no package", async (name) => {
    await runs.get(name)!.bad;
    const loaded = readFileSync(modulesFile(name), "utf8").split("\n").filter(Boolean);
    expect(
      loaded.some((url) => url.includes("/src/cli/")),
      "the hook saw the command's entry load",
    ).toBe(true);
    // The run's build is in node_modules/.cache (test/support/built.ts): the packages are the rest of node_modules.
    const build = pathToFileURL(inject("built")).href;
    expect(loaded.filter((url) => url.includes("/node_modules/") && !url.startsWith(build))).toEqual([]);
  });

  it("wrote none of the repository's printed files", async () => {
    await Promise.all([...runs.values()].flatMap((r) => [r.help, r.bad]));
    expect(stamps()).toEqual(before);
  });
});
