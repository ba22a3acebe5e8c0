// The built JavaScript that `npm start` runs (dist/, scripts/build.mjs),
// kept in step with the sources: a digest of every file the build reads is
// written beside the build, and a start whose sources no longer match it
// builds again first (without the type check, which `npm test` does; a few
// seconds, once after each change). Starts at once in one folder (a double
// launch, WEB_CONCURRENCY's workers) build one after the other, under a lock,
// and the later ones find the build done.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

/** What the build reads: its sources, the files it copies, and how it compiles. */
const INPUTS = [
  "src",
  "rest",
  "graphql",
  "prisma/migrations",
  "tsconfig.json",
  "tsconfig.build.json",
  "scripts/build.mjs",
  "scripts/query-compiler.mjs",
];
/** Where the digest of the sources of the build in dist/ is kept. */
const STAMP = ".sources";
/** How long a start waits for another one's build before it says so and stops. */
const WAIT_MS = 180_000;

/** Every file under `path`, depth first, in a stable order. */
function files(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => files(join(path, name)));
}

/** The digest of the sources in `root`: each file's path and bytes. */
export function sourcesDigest(root) {
  const hash = createHash("sha256");
  for (const input of INPUTS) {
    for (const file of files(join(root, input))) {
      hash.update(relative(root, file));
      hash.update("\0");
      hash.update(readFileSync(file));
      hash.update("\0");
    }
  }
  return hash.digest("hex");
}

const current = (root, digest) => {
  try {
    return readFileSync(join(root, "dist", STAMP), "utf8") === digest && existsSync(join(root, "dist", "src", "main.js"));
  } catch {
    return false;
  }
};

/** Whether the process that wrote a lock is still running. */
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
};

/** `npm run build -- --no-check` in `root`: its exit status (tsc prints why it failed on standard error). */
const npmRunBuild = (root) =>
  spawnSync(process.execPath, [join(root, "scripts", "build.mjs"), "--no-check"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] })
    .status;

/**
 * Builds dist/ from the sources in `root` unless it is built from them
 * already; `say` tells what it does. Throws with the build's exit status
 * when it fails. `build`: how (tests count the builds).
 */
export function ensureBuilt(root, say, build = npmRunBuild) {
  if (current(root, sourcesDigest(root))) return;
  const lock = join(root, "dist.lock");
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      let owner = 0;
      try {
        owner = Number(readFileSync(join(lock, "pid"), "utf8"));
      } catch {
        // just made, its pid not written yet
      }
      if (owner > 0 && !alive(owner)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() - started > WAIT_MS)
        throw new Error(`another start has been building dist/ for over ${WAIT_MS / 60_000} minutes (${lock})`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    // Another start may have built it while this one waited.
    const digest = sourcesDigest(root);
    if (current(root, digest)) return;
    say("building dist/ from the sources (once after each change; npm run build checks the types too)");
    const status = build(root);
    if (status !== 0) throw Object.assign(new Error(`the build failed (exit ${status})`), { exitCode: status ?? 1 });
    writeFileSync(join(root, "dist", STAMP), digest);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
