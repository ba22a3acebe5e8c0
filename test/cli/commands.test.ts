/**
 * Every `npm run` command behaves like a command: `--help` prints its usage
 * and exits 0, an unknown option prints the usage and exits 2, and neither
 * touches anything (an empty DATA_DIR stays empty, no file is written). The
 * commands are those of package.json that run a TypeScript entry (and the
 * build), so a new one is checked without being listed here.
 */
import { spawn } from "node:child_process";
import { readFileSync, rmSync, statSync } from "node:fs";

import { join } from "node:path";
import pLimit from "p-limit";
import { afterAll, describe, expect, it } from "vitest";
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

/** `npm run -s <name> -- <args>` with an empty DATA_DIR and no database or Redis configured. */
function npmRun(name: string, args: string[], dataDir: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, UEDU_API_KEY: "k" };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "-s", name, "--", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
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
        help: limit(() => npmRun(name, ["--help"], join(dataDir, "a"))),
        bad: limit(() => npmRun(name, ["--no-such-option"], join(dataDir, "b"))),
      },
    ];
  }),
);
const before = stamps();

describe("every npm run command", () => {
  it("covers the commands an operator runs", () => {
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

  it("wrote none of the repository's printed files", async () => {
    await Promise.all([...runs.values()].flatMap((r) => [r.help, r.bad]));
    expect(stamps()).toEqual(before);
  });
});
