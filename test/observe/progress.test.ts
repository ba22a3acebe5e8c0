/**
 * Progress of long work (src/observe/progress.ts): what a line says, when
 * the tracker hands its state on, and a drawer that keeps drawing while the
 * main thread is held.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { type ProgressSink, type ProgressState, progressJson, progressLine, Tracker } from "../../src/observe/progress.js";

const T0 = Date.UTC(2026, 10, 25, 8);
const state = (over: Partial<ProgressState>): ProgressState => ({
  task: "import",
  phase: "validating",
  startedAt: T0 - 3_000,
  phaseStartedAt: T0 - 2_000,
  done: 8_000_000,
  total: 20_000_000,
  unit: "bytes",
  rows: { universities: 15, observations: 12_340 },
  ...over,
});

describe("a progress line", () => {
  it("on a terminal: phase, bar, amount of the total, rate, ETA, time since the start and records", () => {
    expect(progressLine(state({}), T0, 120)).toBe(
      "import: validating  ▕████░░░░░░▏  40%  8.0/20.0 MB  4.0 MB/s  ETA 0:03  0:03  12,355 records",
    );
  });

  it("drops whole parts from the end rather than wrap a narrow terminal", () => {
    const line = progressLine(state({}), T0, 62);
    expect(line).toBe("import: validating  ▕████░░░░░░▏  40%  8.0/20.0 MB  4.0 MB/s");
    expect(line.length).toBeLessThan(62);
  });

  it("without a total: a spinner, what is done and the rate, no ETA", () => {
    expect(progressLine(state({ total: null }), T0, 120)).toMatch(
      /^import: validating {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] {2}8\.0 MB {2}4\.0 MB\/s {2}0:03 {2}12,355 records$/,
    );
  });

  it("as JSON: every figure, with percent, rate and ETA", () => {
    expect(JSON.parse(progressJson(state({}), T0))).toEqual({
      progress: "import",
      phase: "validating",
      elapsed_s: 3,
      done: 8_000_000,
      total: 20_000_000,
      unit: "bytes",
      percent: 40,
      rate_per_s: 4_000_000,
      eta_s: 3,
      rows: { universities: 15, observations: 12_340 },
    });
  });

  it("a phase measured in seconds is done as the clock says", () => {
    const line = JSON.parse(progressJson(state({ unit: "seconds", total: 10, done: 0 }), T0));
    expect(line).toMatchObject({ done: 2, percent: 20, rate_per_s: 1, eta_s: 8 });
  });

  it("nothing is said of a rate before anything is done", () => {
    expect(JSON.parse(progressJson(state({ done: 0 }), T0))).toMatchObject({ rate_per_s: null, eta_s: null, percent: 0 });
  });
});

describe("a tracker", () => {
  it("hands on every phase at once, other changes at most every 100 ms, and ends with `done` and the rows", async () => {
    const seen: ProgressState[] = [];
    let ended = false;
    const sink: ProgressSink = { update: (s) => seen.push(s), end: async () => void (ended = true) };
    // The clock stands still unless the test moves it: a busy machine cannot make 100 ms pass in the loop.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const tracker = new Tracker("t", sink);
      tracker.phase("a", { total: 1_000, unit: "rows" });
      for (let i = 1; i <= 1_000; i++) tracker.set(i); // within 100 ms: none of these is handed on
      tracker.rows("courses", 5);
      tracker.phase("b");
      vi.setSystemTime(Date.now() + 99);
      tracker.set(2); // 99 ms after the last: not handed on either
      vi.setSystemTime(Date.now() + 21);
      tracker.set(1);
      await tracker.end();
    } finally {
      vi.useRealTimers();
    }
    expect(seen.map((s) => [s.phase, s.done, s.total, s.unit])).toEqual([
      ["a", 0, 1_000, "rows"],
      ["b", 0, null, "steps"],
      ["b", 1, null, "steps"],
      ["done", 0, null, "steps"],
    ]);
    expect(seen.at(-1)!.rows).toEqual({ courses: 5 });
    expect(ended).toBe(true);
    // Each state handed on is a copy: later changes do not alter what was sent.
    expect(seen[0]!.phase).toBe("a");
  });
});

describe("the drawer", () => {
  it("keeps writing JSON lines while the main thread is held, and the last line says done", async () => {
    const started = Date.now();
    const lines: { at: number; line: { phase: string; done: number } }[] = [];
    const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "..", "support", "blocked-progress.ts"), "7"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let partial = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => {
      const parts = (partial + d).split("\n");
      partial = parts.pop()!;
      for (const line of parts) lines.push({ at: Date.now() - started, line: JSON.parse(line) });
    });
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect(code).toBe(0);
    expect(stdout).toBe("ended\n");
    // Drawn every 2 s while held for 7 s: the phase at once, then at least twice more before the end
    // (with a second to spare for a drawer thread that a busy machine starts or wakes late).
    const held = lines.filter((l) => l.line.phase === "holding");
    expect(held.length).toBeGreaterThanOrEqual(3);
    const gaps = held.slice(1).map((l, i) => l.at - held[i]!.at);
    expect(Math.max(...gaps)).toBeLessThan(4_000);
    expect(lines.at(-1)!.line.phase).toBe("done");
  }, 30_000);
});
