/**
 * Where a run's CPU goes, file by file (issue 68): with `TEST_CPU_LOG` set to
 * a path, each test file appends one JSON line to it when it ends, with the
 * CPU seconds its worker spent on it (`self`), the CPU seconds of the
 * processes it started and that ended (`children`: gateways, commands, npm,
 * browsers, and what they waited for in turn), its wall seconds, when it
 * started and which worker ran it (`started`, `worker`: where the run's two
 * cores wait, file by file, see {@link FileLine}).
 *
 * Not counted in `children`: servers that detach from the process that
 * started them (an embedded PostgreSQL that a gateway starts), and the run's
 * own PostgreSQL and Redis servers (test/support/global-setup.ts); process
 * accounting (`accton`) counts those. Without the variable, nothing is
 * measured or written.
 *
 *     TEST_CPU_LOG=/tmp/cpu.jsonl npm test
 */
import { appendFileSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";

/** Clock ticks a second of /proc's times (USER_HZ: 100 on Linux). */
const TICKS = 100;

/** CPU seconds of a process, and of the children it has waited for. */
export interface CpuTimes {
  self: number;
  children: number;
}

/** This process's CPU seconds, and those of the children it has waited for, from /proc/self/stat. */
export function cpuTimes(stat = readFileSync("/proc/self/stat", "utf8")): CpuTimes {
  // The fields after the command's name (which may hold spaces), from the third: utime is the 14th, cstime the 17th.
  const fields = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  const [utime, stime, cutime, cstime] = fields.slice(11, 15) as [number, number, number, number];
  return { self: (utime + stime) / TICKS, children: (cutime + cstime) / TICKS };
}

/** CPU seconds, and when they were read (ms since the epoch). */
export interface Reading extends CpuTimes {
  at: number;
}

/** One line of the log: a test file, from its first hook to its last. */
export interface FileLine {
  /** The file, from the repository's root. */
  file: string;
  /** CPU seconds of its worker. */
  self: number;
  /** CPU seconds of the processes it started that ended and were waited for. */
  children: number;
  /** Wall seconds. */
  wall: number;
  /** When it started (ISO 8601): with `wall` and `worker`, the run's files on a time line. */
  started: string;
  /** The pid of the worker that ran it. */
  worker: number;
}

/** The line of `file`, from the readings at its start and end, run by `worker`. */
export function fileLine(file: string, start: Reading, end: Reading, worker: number): FileLine {
  return {
    file,
    self: Number((end.self - start.self).toFixed(2)),
    children: Number((end.children - start.children).toFixed(2)),
    wall: (end.at - start.at) / 1000,
    started: new Date(start.at).toISOString(),
    worker,
  };
}

const log = process.env.TEST_CPU_LOG;
if (log) {
  let start: Reading = { self: 0, children: 0, at: 0 };
  let file = "";
  beforeAll(() => {
    start = { ...cpuTimes(), at: Date.now() };
    file = relative(process.cwd(), expect.getState().testPath ?? "");
  });
  // Registered first, so run last of the file's afterAll hooks: what they stop is counted.
  afterAll(() => {
    const line = fileLine(file, start, { ...cpuTimes(), at: Date.now() }, process.pid);
    appendFileSync(log, `${JSON.stringify(line)}\n`);
  });
}
