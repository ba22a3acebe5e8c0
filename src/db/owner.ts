/**
 * The owner lock of a DATA_DIR written by PGlite (the embedded engine of
 * earlier versions). PGlite is a single-process database: two processes with
 * the same directory open corrupt it, so a gateway or command of an earlier
 * version that opens such a directory first takes `owner.lock` in it, a small
 * JSON file naming its pid, its start time and what it is (`gateway`,
 * `import`…). The carry-over (./carry-over.ts) takes the same lock, in the
 * same format: it refuses while an earlier version's process has the
 * directory, and no such process can open it while the carry-over runs.
 *
 * A lock whose process is gone (killed, crashed) is stale: the next process
 * takes it over. "Gone" is checked by the pid and, on Linux, by the process's
 * start time too, so a recycled pid does not keep a dead owner alive.
 */
import { randomUUID } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { procStat } from "./postgres-programs.js";

export interface OwnerInfo {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux), when known. */
  startTicks: number | null;
  /** What the owner is: `gateway`, or the command that holds the directory. */
  role: string;
  /** Where an earlier version's gateway took commands (a Unix socket); null in the carry-over's lock. */
  socket: string | null;
  since: string;
}

export type Claim = { held: true; release(): void; info: OwnerInfo } | { held: false; owner: OwnerInfo };

export const LOCK_FILE = "owner.lock";

/** A process's start time in clock ticks since boot, or null where /proc is not there. */
export function startTicksOf(pid: number): number | null {
  return procStat(pid)?.startTicks ?? null;
}

/**
 * Whether the process a lock names is still running: it exists, is not a
 * zombie (killed, not yet reaped: a container without an init reaps late),
 * and started when the lock says (not a recycled pid).
 */
function isAlive(info: Pick<OwnerInfo, "pid" | "startTicks">): boolean {
  try {
    process.kill(info.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  const stat = procStat(info.pid);
  if (!stat) return true;
  return stat.state !== "Z" && stat.state !== "X" && (info.startTicks === null || stat.startTicks === info.startTicks);
}

function readLock(path: string): OwnerInfo | null {
  try {
    const info = JSON.parse(readFileSync(path, "utf8")) as OwnerInfo;
    return Number.isInteger(info.pid) ? info : null;
  } catch {
    return null; // missing, or torn by a crash while it was written: not a live owner
  }
}

/** The live owner of `dir`, if any (another process's, or this one's). */
export function ownerOf(dir: string): OwnerInfo | null {
  const info = readLock(join(dir, LOCK_FILE));
  return info && isAlive(info) ? info : null;
}

/**
 * Takes `dir` for this process, or says who holds it. The directory must
 * exist. A stale lock is moved aside under a unique name before a new one is
 * created exclusively, so of two processes taking over the same stale lock
 * only one can win.
 */
export function claim(dir: string, role: string): Claim {
  const path = join(dir, LOCK_FILE);
  const info: OwnerInfo = { pid: process.pid, startTicks: startTicksOf(process.pid), role, socket: null, since: new Date().toISOString() };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      try {
        writeSync(fd, `${JSON.stringify(info)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      let released = false;
      return {
        held: true,
        info,
        release() {
          if (released) return;
          released = true;
          if (readLock(path)?.pid === process.pid) unlinkSync(path);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const current = readLock(path);
    if (current && isAlive(current)) return { held: false, owner: current };
    // Stale: move it aside. If another process replaced it meanwhile, what was
    // moved is that process's live lock, and it goes back.
    const aside = `${path}.${randomUUID()}`;
    try {
      renameSync(path, aside);
    } catch {
      continue; // someone else moved it first: try again
    }
    const moved = readLock(aside);
    if (moved && isAlive(moved)) {
      renameSync(aside, path);
      return { held: false, owner: moved };
    }
    unlinkSync(aside);
  }
  const owner = readLock(path);
  if (owner) return { held: false, owner };
  throw new Error(`cannot take ${path}: it keeps changing`);
}

/** One line saying who holds the directory and what to do. */
export function ownedMessage(dir: string, owner: OwnerInfo): string {
  const what = owner.role === "gateway" ? "a running gateway" : `a running \`${owner.role}\``;
  const then = owner.role === "gateway" ? "stop it first (Ctrl-C or SIGTERM)" : "wait for it to finish";
  return `${dir} is in use by ${what} (pid ${owner.pid}, since ${owner.since}); ${then}, or use another DATA_DIR`;
}
