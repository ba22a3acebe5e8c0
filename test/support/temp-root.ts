/**
 * Vitest global setup, first of each project's: where the run's temporary
 * folders go.
 *
 * The suite makes and removes files by the hundred thousand (clusters,
 * DATA_DIRs, database copies, an install). On ext4, as this machine's /tmp,
 * a file made after many were removed is slow to make: the kernel scans its
 * inode tables for recently deleted inodes. A `CREATE DATABASE … TEMPLATE`
 * (some 130 a run, 475 files each) cost 0.25 CPU-s, 92% of it in the
 * kernel's `__ext4_new_inode`. On a tmpfs that cost is gone.
 *
 * So, unless TMPDIR is set, the run's temporary folder is a folder of its own
 * on /dev/shm when that is a tmpfs with room ({@link NEEDED_BYTES} free) that
 * lets programs run from it (the newcomer's install runs its binaries there):
 * TMPDIR names it for the run and every process it starts, and it is removed
 * at the end; one that a killed run left is removed by the next. Otherwise
 * nothing changes. What is tested is the same either way.
 *
 * The run's Node processes also share one module compile cache (Node 22.1
 * and later; Node 20 has none): NODE_COMPILE_CACHE names a folder of the run
 * in that temporary folder, unless it or NODE_DISABLE_COMPILE_CACHE is set.
 * The run starts some 480 Node processes (gateways, commands, workers); the
 * cache takes 13% off a gateway's start on Node 24.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import type { TestProject } from "vitest/node";
import { runFolder } from "./temp.js";

/** Where a tmpfs is found on Linux. */
const SHM = "/dev/shm";
/** statfs's type of a tmpfs. */
const TMPFS_MAGIC = 0x01021994;
/** The most the run holds there at once is about 2 GiB (the newcomer's cache copy, install and clusters): twice that free. */
export const NEEDED_BYTES = 4 * 1024 ** 3;

/** What is known of the place a run's temporary folder could go. */
export interface Candidate {
  /** TMPDIR as the run found it. */
  tmpdir: string | undefined;
  /** The place's file system type (statfs), or undefined when it does not exist. */
  type: number | undefined;
  /** Bytes free there. */
  free: number;
  /** Whether it is mounted noexec. */
  noexec: boolean;
}

/** Why the run keeps its temporary folders where they are, or undefined when it moves them to the tmpfs. */
export function whyNotTmpfs(candidate: Candidate): string | undefined {
  if (candidate.tmpdir) return "TMPDIR is set";
  if (candidate.type === undefined) return `there is no ${SHM}`;
  if (candidate.type !== TMPFS_MAGIC) return `${SHM} is not a tmpfs`;
  if (candidate.noexec) return `${SHM} is mounted noexec`;
  if (candidate.free < NEEDED_BYTES)
    return `${SHM} has ${(candidate.free / 1024 ** 3).toFixed(1)} GiB free, under ${NEEDED_BYTES / 1024 ** 3}`;
  return undefined;
}

/** Whether the mount that holds `path` is mounted noexec (/proc/self/mounts; the longest mount point that is a prefix). */
function mountedNoexec(path: string): boolean {
  let best = { point: "", noexec: false };
  try {
    for (const line of readFileSync("/proc/self/mounts", "utf8").split("\n")) {
      const [, point, , options] = line.split(" ");
      if (!point || !options) continue;
      const inside = path === point || path.startsWith(point.endsWith("/") ? point : `${point}/`);
      if (inside && point.length >= best.point.length) best = { point, noexec: options.split(",").includes("noexec") };
    }
  } catch {
    return true; // not Linux: keep to the default
  }
  return best.noexec;
}

function candidate(): Candidate {
  try {
    const stats = statfsSync(SHM);
    return { tmpdir: process.env.TMPDIR, type: stats.type, free: stats.bavail * stats.bsize, noexec: mountedNoexec(SHM) };
  } catch {
    return { tmpdir: process.env.TMPDIR, type: undefined, free: 0, noexec: false };
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's temporary folder on a tmpfs, or null when it stays in the system's. */
    tempRoot: string | null;
    /** Why it stays in the system's, when `tempRoot` is null. */
    tempRootWhy: string | null;
    /** The run's module compile cache (NODE_COMPILE_CACHE), or null when the environment had decided. */
    compileCache: string | null;
  }
}

/** The run's folder, shared by its projects (one process; on globalThis, whichever copies of this module vitest loads). */
interface SharedRoot {
  dir: string | undefined;
  why: string | undefined;
  /** The run's compile cache folder, when the run named one. */
  cache: string | undefined;
  users: number;
}
const ROOT = Symbol.for("uedu.test-temp-root");
const shared = globalThis as { [ROOT]?: SharedRoot };

function makeRoot(): Pick<SharedRoot, "dir" | "why"> {
  const why = whyNotTmpfs(candidate());
  if (why) {
    process.stdout.write(`test temporary folders: in the system's (${why})\n`);
    return { dir: undefined, why };
  }
  const dir = runFolder(SHM, "uedu-test-");
  mkdirSync(dir, { recursive: true });
  // As /tmp: anyone may make a folder there (the embedded server's user, the newcomer's), and remove only their own.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  process.stdout.write(`test temporary folders: ${dir} (a tmpfs)\n`);
  return { dir, why: undefined };
}

/** Names a compile cache folder of the run for its Node processes, unless the environment already decides. */
function makeCompileCache(): string | undefined {
  if (process.env.NODE_COMPILE_CACHE !== undefined || process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const dir = runFolder(tmpdir(), "uedu-compile-cache-");
  mkdirSync(dir, { recursive: true });
  process.env.NODE_COMPILE_CACHE = dir;
  return dir;
}

export default function setup(project: TestProject): () => void {
  // In this order: the compile cache goes in the temporary folder makeRoot chose.
  const root = (shared[ROOT] ??= { ...makeRoot(), cache: makeCompileCache(), users: 0 });
  root.users += 1;
  project.provide("tempRoot", root.dir ?? null);
  project.provide("tempRootWhy", root.why ?? null);
  project.provide("compileCache", root.cache ?? null);
  return () => {
    root.users -= 1;
    if (root.users > 0) return;
    delete shared[ROOT];
    if (root.cache) {
      rmSync(root.cache, { recursive: true, force: true });
      delete process.env.NODE_COMPILE_CACHE;
    }
    if (root.dir) {
      rmSync(root.dir, { recursive: true, force: true });
      delete process.env.TMPDIR;
    }
  };
}
