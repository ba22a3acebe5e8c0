/**
 * The watchdog of the private test servers (see `servers.ts`).
 *
 * A process that starts servers also starts one reaper, detached, whose
 * standard input is a pipe from that process. It reads one JSON line per
 * change: `{"id":"pg-1","pid":1234,"dir":"/tmp/uedu-pg-x"}` to watch a server
 * (its process group and its directory), `{"id":"pg-1","done":true}` once the
 * owner has removed it itself. When the pipe closes, the owner is gone, however
 * it ended: exit, crash, Ctrl-C or SIGKILL. The reaper then kills every server
 * still watched, deletes its directory, and exits.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";

/** @type {Map<string, { pid: number; dir: string }>} */
const watched = new Map();
let pending = "";

// Ctrl-C in a terminal signals the whole foreground group; the reaper is in a
// group of its own, but ignore it anyway: it must outlive its owner.
process.on("SIGINT", () => undefined);
process.on("SIGHUP", () => undefined);

process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  let newline;
  while ((newline = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    try {
      const message = JSON.parse(line);
      if (message.done) watched.delete(message.id);
      else watched.set(message.id, { pid: message.pid, dir: message.dir });
    } catch {
      // not ours; ignore
    }
  }
});

/** Sends a signal to a process group, ignoring one that is already gone. */
function signal(pid, name) {
  try {
    process.kill(-pid, name);
    return true;
  } catch {
    return false;
  }
}

/** Sends a signal to each of `pids`, ignoring those already gone. */
function each(pids, name) {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // gone
    }
  }
}

process.stdin.on("close", reap);
process.stdin.on("end", reap);

/**
 * `root` and its descendants. PostgreSQL's backends each call setsid(), so
 * signalling the postmaster's group leaves them to notice its death by
 * themselves, still holding files in the directory meanwhile.
 */
function tree(root) {
  const parents = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // pid (comm) state ppid ...; comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) {
    for (const [pid, parent] of parents) if (parent === found[i]) found.push(pid);
  }
  return found;
}

/** How long the reaper keeps trying to delete a directory that processes still write into. */
const DELETE_WITHIN_MS = 10_000;

let reaping = false;
function reap() {
  if (reaping) return;
  reaping = true;
  for (const { pid } of watched.values()) {
    if (!pid) continue; // stopped already; only its directory is left
    const pids = existsSync("/proc") ? tree(pid) : [pid];
    signal(pid, "SIGCONT"); // a frozen server cannot die
    each(pids, "SIGCONT");
    signal(pid, "SIGKILL");
    each(pids, "SIGKILL");
  }
  // Delete once the kernel has released the files, trying again while anything is left.
  const deadline = Date.now() + DELETE_WITHIN_MS;
  const sweep = () => {
    for (const { dir } of watched.values()) {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
      } catch {
        // tried again below
      }
    }
    if ([...watched.values()].some(({ dir }) => existsSync(dir)) && Date.now() < deadline) setTimeout(sweep, 100);
    else process.exit(0);
  };
  setTimeout(sweep, 100);
}
