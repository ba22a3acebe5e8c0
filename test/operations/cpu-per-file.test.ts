/**
 * test/support/cpu-per-file.ts: the CPU seconds it reads from /proc, of the
 * process and of the children it has waited for, and the line it writes of a
 * file.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { cpuTimes, fileLine } from "../support/cpu-per-file.js";

describe("cpuTimes", () => {
  it("reads the fields after a command name that holds spaces and parentheses", () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
    const stat = "42 (a (b) c) S 1 42 42 0 -1 4194560 10 0 0 0 250 50 700 100 20 0 1 0";
    expect(cpuTimes(stat)).toEqual({ self: 3, children: 8 });
  });

  it("counts a child's CPU once the child has ended and been waited for", () => {
    const before = cpuTimes();
    const burned = spawnSync(process.execPath, ["-e", "const end = Date.now() + 300; while (Date.now() < end);"]);
    expect(burned.status).toBe(0);
    const after = cpuTimes();
    expect(after.children - before.children).toBeGreaterThanOrEqual(0.2);
    expect(after.self).toBeGreaterThanOrEqual(before.self);
  });
});

describe("fileLine", () => {
  it("gives a file's CPU and wall seconds, when it started and the worker that ran it", () => {
    const start = { self: 10.004, children: 2, at: Date.parse("2026-12-06T13:00:00.250Z") };
    const end = { self: 12.5, children: 9.126, at: Date.parse("2026-12-06T13:00:07.750Z") };
    expect(fileLine("test/a.test.ts", start, end, 4242)).toEqual({
      file: "test/a.test.ts",
      self: 2.5,
      children: 7.13,
      wall: 7.5,
      started: "2026-12-06T13:00:00.250Z",
      worker: 4242,
    });
  });
});
