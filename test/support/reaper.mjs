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
import { rmSync } from "node:fs";

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

process.stdin.on("close", reap);
process.stdin.on("end", reap);

let reaping = false;
function reap() {
  if (reaping) return;
  reaping = true;
  for (const { pid } of watched.values()) {
    if (!pid) continue; // stopped already; only its directory is left
    signal(pid, "SIGCONT"); // a frozen server cannot die
    signal(pid, "SIGKILL");
  }
  // Give the kernel a moment to release the files, then delete.
  setTimeout(() => {
    for (const { dir } of watched.values()) {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
      } catch {
        // nothing more can be done
      }
    }
    process.exit(0);
  }, 200);
}
