/**
 * The README's two commands, run as a newcomer runs them (issue 42): a fresh
 * clone, `npm ci` (what `npm install` does on a clean tree with the
 * lockfile), then `npm start` in the clone's own folder with DATA_DIR,
 * DATABASE_URL and REDIS_URL unset. Only the port is set, to a free one.
 *
 * Each case checks that the demo data is served with the key the start
 * prints, that `npm run keys -- create` works beside the running gateway,
 * that a second start reuses the data (no new key; the first ones work), and
 * that no PostgreSQL server is left once the gateway has stopped. The cases:
 * a non-root user (as root: the `postgres` user, with a home of its own), root
 * in a world-readable folder, and root in a folder of mode 0700 (root's home
 * on a new cloud machine, which the server's user cannot enter).
 *
 * The install is offline, from a copy of the npm cache that this run's own
 * `npm install` filled, in the case's new home: no network after it. The
 * non-root user installs, as most newcomers do, and its first start builds
 * dist/; the root cases link that install and copy that build (see
 * `sharedInstall`, `sharedBuild`). Root's own `npm ci` is CI's (.ci/run).
 *
 * The clone is of this repository with its uncommitted work laid over it,
 * so that the test runs what is being changed; on CI's clean clone it is
 * exactly a clone of `main`. This file runs after the rest of the suite,
 * beside the topology files only (vitest.config.ts): its install and first
 * starts would slow the suite's timed cases.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { VARIABLES } from "../src/config.js";
import { CLUSTER_DIR, postmasterPid, ROOT_HOME } from "../src/db/cluster-dir.js";
import { stopServer } from "../src/db/embedded.js";
import { isRunning, type ServerUser, serverUser } from "../src/db/postgres-programs.js";
import { freePorts } from "./support/servers.js";

const ROOT = join(import.meta.dirname, "..");
const asRoot = process.getuid?.() === 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where each case's folder is, to remove at the end (and the clusters a case put in ROOT_HOME). */
const made: string[] = [];
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of children) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // gone
    }
  }
  for (const path of made) {
    await stopServer(path).catch(() => undefined);
    rmSync(path, { recursive: true, force: true });
  }
}, 60_000);

/**
 * The environment a newcomer's shell has: this one's, without what the test
 * run or npm put in it (npm_*, the test servers, the run's compile cache, the
 * gateway's own variables).
 */
function newcomerEnv(home: string): NodeJS.ProcessEnv {
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

/** A clone of this repository at `dir`, with the uncommitted work (changed, new and deleted files) laid over it. */
function cloneInto(dir: string): void {
  execFileSync("git", ["clone", "--quiet", "--no-hardlinks", ROOT, dir]);
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

const run = promisify(execFile);

/**
 * The npm cache that this run's own `npm install` filled, as a new home's
 * `.npm` at `to`, so that the install is offline: the suite needs no network
 * once `npm install` has run. Its index is copied; its content, hundreds of
 * megabytes that npm never changes (files named by their hash), is linked,
 * and stays root's, readable by all (`user` may write only its folders); on
 * another file system than the cache's, it is copied.
 */
async function copyNpmCache(to: string, user: ServerUser | undefined): Promise<void> {
  const cache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8", env: newcomerEnv(process.env.HOME ?? "/root") }).trim();
  const content = join(cache, "_cacache", "content-v2");
  expect(existsSync(content), `no npm cache at ${cache}: run npm install first`).toBe(true);
  mkdirSync(join(to, "_cacache"), { recursive: true });
  for (const entry of readdirSync(join(cache, "_cacache"))) {
    if (entry !== "content-v2") await run("cp", ["-r", join(cache, "_cacache", entry), join(to, "_cacache", entry)]);
  }
  // Linked where the home is on the cache's file system; copied where it is not (a run's tmpfs, test/support/temp-root.ts).
  const sameDevice = statSync(content).dev === statSync(to).dev;
  await run("cp", [sameDevice ? "-al" : "-a", content, join(to, "_cacache", "content-v2")]);
  // Every folder, and every file but the linked content, is the user's.
  const owner = user && `${user.uid}:${user.gid}`;
  if (owner) await run("find", [to, "(", "-type", "d", "-o", "-not", "-path", "*/content-v2/*", ")", "-exec", "chown", owner, "{}", "+"]);
}

interface Run {
  code: number | null;
  output: string;
}

/** Runs `npm ...args` in `cwd` as `user` (undefined: as this process), to its end. */
function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv, user: ServerUser | undefined, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn("npm", args, { cwd, env, detached: true, ...(user ? { uid: user.uid, gid: user.gid } : {}) });
    children.add(child);
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, output });
    });
  });
}

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  base: string;
}

/** `npm start` in `cwd`, until it serves (the readiness probe answers 200), or fails with its output. */
async function npmStart(cwd: string, env: NodeJS.ProcessEnv, user: ServerUser | undefined): Promise<Started> {
  const [port] = await freePorts(1);
  const child = spawn("npm", ["start"], {
    cwd,
    env: { ...env, PORT: String(port) },
    detached: true,
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  });
  children.add(child);
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  void exited.then(() => children.delete(child));
  const base = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 240_000; Date.now() < deadline; await sleep(250)) {
    if (child.exitCode !== null) throw new Error(`npm start ended with ${child.exitCode}:\n${output}`);
    const ready = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    // Ready, and the start's own lines (where the gateway is, and any new key) are out.
    if (ready && /^Metrics: /m.test(output)) return { child, output: () => output, exited, base };
  }
  throw new Error(`npm start did not serve within 240 s:\n${output}`);
}

/** SIGTERM, as Ctrl-C or a service manager stops it; resolves with the exit code. */
async function stop(started: Started): Promise<number | null> {
  process.kill(-started.child.pid!, "SIGTERM");
  return started.exited;
}

async function universities(base: string, key: string): Promise<{ status: number; items: number }> {
  const response = await fetch(`${base}/api/v1/universities`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await response.json()) as { items?: unknown[] };
  return { status: response.status, items: body.items?.length ?? 0 };
}

interface Case {
  /** Who runs the commands: an unprivileged user, or undefined for this process's (root's, in these cases). */
  user: ServerUser | undefined;
  /** The mode of the folder the clone is made in. */
  mode: number;
  /** Whether the cluster must be kept in ROOT_HOME, linked from DATA_DIR/postgres (root, with a folder closed to the server's user). */
  relocated: boolean;
  /** Installs as the README says and shares it (`publish`), or links the shared install (`reuse`). */
  install: "publish" | "reuse";
}

/** A value one case makes and the others wait for; a failure fails them at once. */
function shared<T>() {
  let publish!: (value: T) => void;
  let fail!: (error: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => {
    publish = resolve;
    fail = reject;
  });
  promise.catch(() => undefined);
  return { promise, publish, fail };
}

/**
 * The one `npm install` of the run, the non-root user's, shared: root passes
 * every permission check, so the root cases link its `node_modules` and
 * generated code (whatever their owner and folder mode) instead of extracting
 * the same 750 packages again (two installs were a minute of the suite's CPU).
 */
const sharedInstall = shared<string>();
/**
 * Its build of dist/ too, which its first `npm start` makes: the root cases
 * copy it (its stamp of the sources holds relative paths only, so their
 * `npm start` finds it current) instead of bundling the same sources again
 * (4.5 CPU-s each); making the build is the non-root case's.
 */
const sharedBuild = shared<string>();

/** `npm ci` in `repo`, offline, as `user`: it succeeds, and warns of nothing the project can prevent. */
async function npmInstall(repo: string, env: NodeJS.ProcessEnv, user: ServerUser | undefined): Promise<void> {
  const installed = await npm(["ci", "--no-audit", "--no-fund", "--offline"], repo, env, user, 420_000);
  expect(installed.code, installed.output).toBe(0);

  // A clean install: no warning the project can prevent. Every install script is approved or
  // denied (package.json's allowScripts), Scarf's analytics never run, and what npm may still
  // warn of is only a dependency's own engines on Node 20 (some declare Node 22.15).
  const warnings = installed.output.split("\n").filter((line) => /^npm warn/.test(line) && !/^npm warn EBADENGINE/.test(line));
  expect(warnings, installed.output).toEqual([]);
  expect(installed.output).not.toMatch(/scarf/i);
  // On every maintained line (22, 24, 26) not even those: the project's engines and its dependencies' all hold.
  if (Number(process.versions.node.split(".")[0]) >= 22) expect(installed.output).not.toMatch(/EBADENGINE/);
}

/** The README's commands in a fresh clone; see the module's comment for what is checked. */
async function newcomer({ user, mode, relocated, install }: Case): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "newcomer-"));
  made.push(folder);
  const home = join(folder, "home");
  const repo = join(folder, "gw with spaces");
  mkdirSync(home);
  cloneInto(repo);
  if (user) await run("chown", ["-R", `${user.uid}:${user.gid}`, folder]);
  // The case that links root's install runs no npm install, so it needs no cache.
  if (install !== "reuse") await copyNpmCache(join(home, ".npm"), user);
  chmodSync(folder, mode);
  if (user) chownSync(folder, user.uid, user.gid);
  const env = newcomerEnv(home);
  // The newcomer runs the Node this suite runs on (CI runs it on each line):
  // its folder on PATH must be one `user` may enter, or PATH finds another.
  const node = await run("node", ["--version"], { env, ...(user ? { uid: user.uid, gid: user.gid } : {}) });
  expect(node.stdout.trim(), `the newcomer's PATH finds another Node than ${process.execPath}: can it enter that folder?`).toBe(
    process.version,
  );

  if (install === "reuse") {
    const installed = await sharedInstall.promise;
    await run("cp", ["-al", join(installed, "node_modules"), join(repo, "node_modules")]);
    await run("cp", ["-r", join(installed, "src", "generated"), join(repo, "src", "generated")]);
    await run("cp", ["-r", join(await sharedBuild.promise, "dist"), join(repo, "dist")]);
  } else {
    await npmInstall(repo, env, user);
    sharedInstall.publish(repo);
  }

  // The first start (which builds dist/ where there is none): demo data, a development key printed once with a curl line.
  const first = await npmStart(repo, env, user);
  if (install === "publish") {
    expect(first.output()).toMatch(/^npm start: building dist\/ from the sources/m);
    sharedBuild.publish(repo);
  } else expect(first.output()).not.toMatch(/building dist\//);
  const key = /Authorization: Bearer (uedu_\w+)/.exec(first.output())?.[1];
  expect(key, first.output()).toBeDefined();
  expect(await universities(first.base, key!)).toEqual({ status: 200, items: 15 });
  // A command beside it, as the README says: it joins the running server.
  const created = await npm(["run", "--silent", "keys", "--", "create", "--name", "beside", "--json"], repo, env, user, 120_000);
  expect(created.code, created.output).toBe(0);
  const beside = (JSON.parse(created.output.trim()) as { key: string }).key;
  expect(await universities(first.base, beside)).toEqual({ status: 200, items: 15 });
  expect(await stop(first)).toBe(0);
  expect(first.output()).not.toMatch(/^\s+at /m);

  const cluster = realpathSync(join(repo, "data", CLUSTER_DIR));
  if (cluster.startsWith(`${ROOT_HOME}/`)) made.push(cluster);
  expect(cluster.startsWith(`${ROOT_HOME}/`)).toBe(relocated);
  expect(lstatSync(join(repo, "data", CLUSTER_DIR)).isSymbolicLink()).toBe(relocated);
  const serverRuns = () => {
    const pid = postmasterPid(cluster);
    return pid !== undefined && isRunning(pid);
  };
  expect(serverRuns()).toBe(false);

  // The second start: the same data, no new key.
  const second = await npmStart(repo, env, user);
  expect(second.output()).not.toMatch(/development key was created/);
  expect(await universities(second.base, key!)).toEqual({ status: 200, items: 15 });
  expect(await universities(second.base, beside)).toEqual({ status: 200, items: 15 });
  expect(await stop(second)).toBe(0);
  expect(serverRuns()).toBe(false);
  expect(realpathSync(join(repo, "data", CLUSTER_DIR))).toBe(cluster);
  // Nothing above DATA_DIR was loosened.
  expect(lstatSync(folder).mode & 0o777).toBe(mode);
}

describe.concurrent("the README's `npm install && npm start` on a fresh clone, DATA_DIR unset", () => {
  it(
    "as a non-root user, in a folder of their own",
    // A failure before its install and build are shared fails the cases waiting for them too, at once.
    () =>
      newcomer({ user: asRoot ? serverUser() : undefined, mode: 0o700, relocated: false, install: "publish" }).catch((error: unknown) => {
        sharedInstall.fail(error);
        sharedBuild.fail(error);
        throw error;
      }),
    600_000,
  );
  it.runIf(asRoot)(
    "as root, in a world-readable folder",
    () => newcomer({ user: undefined, mode: 0o755, relocated: false, install: "reuse" }),
    600_000,
  );
  it.runIf(asRoot)(
    "as root, in a folder of mode 0700 that the server's user cannot enter: the cluster is kept in ROOT_HOME",
    () => newcomer({ user: undefined, mode: 0o700, relocated: true, install: "reuse" }),
    600_000,
  );
});

describe("the lockfile that `npm install` reads", () => {
  it("gives every package's tarball address (.npmrc keeps them), so that `npm ci` reads no registry document", () => {
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string; resolved?: string; link?: boolean }>;
    };
    const entries = Object.entries(lock.packages).filter(([path, entry]) => path !== "" && !entry.link);
    expect(entries.length).toBeGreaterThan(700);
    const without = entries.filter(([, entry]) => !entry.resolved?.startsWith("https://registry.npmjs.org/")).map(([path]) => path);
    expect(without, "run `npm install` in the repository's folder, where .npmrc sets omit-lockfile-registry-resolved=false").toEqual([]);
  });
});
