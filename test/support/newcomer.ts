/**
 * The newcomer's clone and install (test/newcomer.test.ts), and the global
 * setup of its vitest project, which starts that install when the run
 * starts.
 *
 * The install (`npm ci`, offline, from a copy of this run's npm cache) is
 * 50 CPU-s and 40 s here. The newcomer's file runs after the rest of the
 * suite, with the machine to itself; its install needs neither, so it runs
 * from the start of the run beside the suite, at the lowest CPU priority
 * (`nice -n 19`), on what the suite leaves idle: the suite's timing cases
 * keep the CPU they would have without it, and the newcomer finds its
 * install done. Its output and exit status are written to files, which the
 * newcomer's case reads and checks as its own.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
import { VARIABLES } from "../../src/config.js";
import { type ServerUser, serverUser } from "../../src/db/postgres-programs.js";

const ROOT = join(import.meta.dirname, "..", "..");
const run = promisify(execFile);

/**
 * The environment a newcomer's shell has: this one's, without what the test
 * run or npm put in it (npm_*, the test servers, the run's compile cache, the
 * gateway's own variables).
 */
export function newcomerEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      /^(npm_|TEST_|VITEST|OTEL_)/.test(name) ||
      ["TEST", "NODE_ENV", "NODE_OPTIONS", "NODE_V8_COVERAGE", "NODE_COMPILE_CACHE"].includes(name)
    )
      continue;
    if (name in VARIABLES) continue;
    env[name] = value;
  }
  return { ...env, HOME: home, HOST: "127.0.0.1" };
}

/** A command, at the lowest CPU priority when `low` (what runs beside the suite). */
const command = (low: boolean, program: string, args: string[]) => (low ? run("nice", ["-n", "19", program, ...args]) : run(program, args));

/** A clone of this repository at `dir`, with the uncommitted work (changed, new and deleted files) laid over it. */
async function cloneInto(dir: string, low = false): Promise<void> {
  await command(low, "git", ["clone", "--quiet", "--no-hardlinks", ROOT, dir]);
  const list = (...args: string[]) =>
    execFileSync("git", ["ls-files", "-z", ...args], { cwd: ROOT, encoding: "utf8" })
      .split("\0")
      .filter(Boolean);
  for (const file of list("--modified", "--others", "--exclude-standard")) {
    const from = join(ROOT, file);
    const to = join(dir, file);
    if (existsSync(from)) {
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(from, to);
    } else rmSync(to, { force: true });
  }
}

/**
 * The npm cache that this run's own `npm install` filled, as a new home's
 * `.npm` at `to`, so that the install is offline: the suite needs no network
 * once `npm install` has run. Its index is copied; its content, hundreds of
 * megabytes that npm never changes (files named by their hash), is linked,
 * and stays root's, readable by all (`user` may write only its folders); on
 * another file system than the cache's, it is copied.
 */
async function copyNpmCache(to: string, user: ServerUser | undefined, low = false): Promise<void> {
  const cache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8", env: newcomerEnv(process.env.HOME ?? "/root") }).trim();
  const content = join(cache, "_cacache", "content-v2");
  if (!existsSync(content)) throw new Error(`no npm cache at ${cache}: run npm install first`);
  mkdirSync(join(to, "_cacache"), { recursive: true });
  for (const entry of readdirSync(join(cache, "_cacache"))) {
    if (entry !== "content-v2") await command(low, "cp", ["-r", join(cache, "_cacache", entry), join(to, "_cacache", entry)]);
  }
  // Linked where the home is on the cache's file system; copied where it is not (a run's tmpfs, test/support/temp-root.ts).
  const sameDevice = statSync(content).dev === statSync(to).dev;
  await command(low, "cp", [sameDevice ? "-al" : "-a", content, join(to, "_cacache", "content-v2")]);
  // Every folder, and every file but the linked content, is the user's.
  const owner = user && `${user.uid}:${user.gid}`;
  if (owner)
    await command(low, "find", [to, "(", "-type", "d", "-o", "-not", "-path", "*/content-v2/*", ")", "-exec", "chown", owner, "{}", "+"]);
}

/** A case's folder: its home and its clone ("gw with spaces"), owned by `user`, the folder of mode `mode`. */
export interface NewcomerFolder {
  folder: string;
  home: string;
  repo: string;
}

/**
 * Fills a case's folder at `folder` (which exists) with its home and a fresh
 * clone, owned by `user`, the folder of mode `mode`; with `cache`, a copy of
 * the npm cache in its home too. `low`: its commands at the lowest CPU priority.
 */
async function prepareFolder(
  folder: string,
  user: ServerUser | undefined,
  mode: number,
  options: { cache: boolean; low?: boolean },
): Promise<NewcomerFolder> {
  const home = join(folder, "home");
  const repo = join(folder, "gw with spaces");
  mkdirSync(home);
  await cloneInto(repo, options.low);
  if (user) await command(options.low ?? false, "chown", ["-R", `${user.uid}:${user.gid}`, folder]);
  if (options.cache) await copyNpmCache(join(home, ".npm"), user, options.low);
  chmodSync(folder, mode);
  if (user) chownSync(folder, user.uid, user.gid);
  return { folder, home, repo };
}

/** A new case folder (see {@link prepareFolder}). */
export const newcomerFolder = (user: ServerUser | undefined, mode: number, cache: boolean) =>
  prepareFolder(mkdtempSync(join(tmpdir(), "newcomer-")), user, mode, { cache });

/** The README's install, as the newcomer types it (npm ci: npm install on a clean tree with the lockfile), offline. */
const INSTALL = ["ci", "--no-audit", "--no-fund", "--offline"] as const;

/** Where the early install is, and where its output and exit status go. */
export interface EarlyInstall extends NewcomerFolder {
  /** Standard output and error of `npm ci`, as it goes. */
  output: string;
  /** Its exit status (or the signal that ended it), written when it ends. */
  status: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The non-root case's folder, whose install the setup starts with the run. */
    newcomerInstall: EarlyInstall;
  }
}

/** The user the non-root case runs as: as root, the embedded server's (`postgres`); otherwise this one. */
export const newcomerUser = (): ServerUser | undefined => (process.getuid?.() === 0 ? serverUser() : undefined);

/**
 * Vitest global setup of the newcomer's project: the non-root case's folder
 * named at once, then, without holding up the run, made (its clone and npm
 * cache) and its install started, all at the lowest CPU priority.
 */
export default function setup(project: TestProject): () => Promise<void> {
  const user = newcomerUser();
  const folder = mkdtempSync(join(tmpdir(), "newcomer-"));
  const paths = { home: join(folder, "home"), repo: join(folder, "gw with spaces") };
  const install: EarlyInstall = { folder, ...paths, output: join(folder, "install.log"), status: join(folder, "install.status") };
  project.provide("newcomerInstall", install);
  let child: ChildProcess | undefined;
  const ended = (status: string) => writeFileSync(install.status, status);
  void (async () => {
    const made = await prepareFolder(folder, user, 0o700, { cache: true, low: true });
    const output = openSync(install.output, "w");
    child = spawn("nice", ["-n", "19", "npm", ...INSTALL], {
      cwd: made.repo,
      env: newcomerEnv(made.home),
      detached: true, // its own process group, killed whole if the run ends first
      stdio: ["ignore", output, output],
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
    closeSync(output);
    child.once("error", (error) => ended(`error: ${error.message}`));
    child.once("exit", (code, signal) => ended(code === null ? `signal ${signal}` : String(code)));
  })().catch((error: unknown) => {
    writeFileSync(install.output, `the case's folder could not be made: ${(error as Error).message}\n`);
    ended("error");
  });
  return async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone
      }
    }
    rmSync(folder, { recursive: true, force: true });
  };
}

/** The early install's end: its exit status and output, once it has ended (or an error after `withinMs`). */
export async function earlyInstallResult(install: EarlyInstall, withinMs: number): Promise<{ status: string; output: string }> {
  const deadline = Date.now() + withinMs;
  while (!existsSync(install.status)) {
    if (Date.now() > deadline) throw new Error(`npm ci did not end within ${withinMs} ms:\n${readFileSync(install.output, "utf8")}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { status: readFileSync(install.status, "utf8").trim(), output: readFileSync(install.output, "utf8") };
}
