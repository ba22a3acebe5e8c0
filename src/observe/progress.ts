/**
 * Progress of long work (an import, a benchmark), told honestly wherever
 * standard error goes:
 *   - on a terminal, one line redrawn five times a second: the phase, a bar
 *     when the phase has a total, how much is done, the rate, the ETA, the
 *     rows counted so far and the time since the start;
 *   - anywhere else (CI, nohup, systemd, a pipe), one JSON line at each new
 *     phase and at least every two seconds in between.
 *
 * The work only changes a state (`Tracker`); a renderer draws it. The local
 * renderer draws from a worker thread (./progress-worker.ts) that writes
 * straight to the file descriptor, so it keeps drawing while the main thread
 * is held by a long synchronous step (PGlite, read by a carry-over, runs
 * PostgreSQL in the main thread and blocks it for seconds while it opens).
 */
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { type PhaseSpans, phaseSpans } from "./tracing.js";
import { FILES_ROOT } from "../files.js";

/** What `done` and `total` count. */
export type ProgressUnit = "bytes" | "rows" | "steps" | "seconds";

/** Where a long task is: what a renderer draws. */
export interface ProgressState {
  /** The task (`import`, `bench:cost`). */
  task: string;
  /** The phase it is in (`opening`, `validating`, `committing`). */
  phase: string;
  /** When the task and the phase started (ms since the epoch). */
  startedAt: number;
  phaseStartedAt: number;
  /** How much of the phase is done, of `total` when it is known. */
  done: number;
  total: number | null;
  unit: ProgressUnit;
  /** Rows counted so far, by section. */
  rows: Record<string, number>;
}

/** What long work tells of its progress. */
export interface Progress {
  /** A new phase starts, with its total when it is known (`done` starts at 0). */
  phase(name: string, options?: { total?: number | null | undefined; unit?: ProgressUnit }): void;
  /** How much of the phase is done. */
  set(done: number): void;
  /** How many rows of a section have been counted so far. */
  rows(section: string, count: number): void;
}

/** Draws states: in this process, or elsewhere. */
export interface ProgressSink {
  update(state: ProgressState): void;
  /** The task ended: the last state is drawn and the drawing stops. */
  end(): Promise<void>;
}

/** A task's state, handed to its sink at each phase and at most every 100 ms in between. */
export class Tracker implements Progress {
  private readonly state: ProgressState;
  private sentAt = 0;

  /** With tracing on, a span for each phase (src/observe/tracing.ts). */
  private readonly spans: PhaseSpans | undefined;

  constructor(
    task: string,
    private readonly sink: ProgressSink,
    now = Date.now(),
  ) {
    this.state = { task, phase: "starting", startedAt: now, phaseStartedAt: now, done: 0, total: null, unit: "steps", rows: {} };
    this.spans = phaseSpans(task);
  }

  phase(name: string, options: { total?: number | null | undefined; unit?: ProgressUnit } = {}): void {
    this.spans?.phase(name);
    this.enter(name, options);
  }

  private enter(name: string, options: { total?: number | null | undefined; unit?: ProgressUnit } = {}): void {
    Object.assign(this.state, {
      phase: name,
      phaseStartedAt: Date.now(),
      done: 0,
      total: options.total ?? null,
      unit: options.unit ?? "steps",
    });
    this.send(true);
  }

  set(done: number): void {
    this.state.done = done;
    this.send(false);
  }

  rows(section: string, count: number): void {
    this.state.rows[section] = count;
    this.send(false);
  }

  /** Seconds since the task started. */
  elapsedSeconds(): number {
    return (Date.now() - this.state.startedAt) / 1000;
  }

  /** Ends the task: its last state (phase `done` or `failed`, with the rows) is drawn. */
  async end(outcome: "done" | "failed" = "done"): Promise<void> {
    this.spans?.end(outcome === "failed");
    this.enter(outcome);
    await this.sink.end();
  }

  private send(now: boolean): void {
    const at = Date.now();
    if (!now && at - this.sentAt < 100) return;
    this.sentAt = at;
    this.sink.update(structuredClone(this.state));
  }
}

/** How a renderer draws: redrawing one terminal line, or JSON lines. */
export type ProgressMode = "bar" | "json";

/** How often each mode draws (ms). */
export const DRAW_EVERY_MS: Record<ProgressMode, number> = { bar: 200, json: 2_000 };

const UNITS: Record<ProgressUnit, (n: number) => string> = {
  bytes: (n) => `${(n / 1e6).toFixed(1)} MB`,
  rows: (n) => `${Math.round(n).toLocaleString("en-US")} rows`,
  steps: (n) => `${Math.round(n).toLocaleString("en-US")} steps`,
  seconds: (n) => `${n.toFixed(0)} s`,
};

const clock = (seconds: number) => {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};

/**
 * How much of the phase is done (a phase that lasts a given time is done as
 * the clock says), its rate (per second, over the whole phase) and the
 * seconds left at that rate, when they can be told.
 */
function pace(state: ProgressState, now: number): { done: number; rate: number | null; eta: number | null } {
  const seconds = (now - state.phaseStartedAt) / 1000;
  const done = state.unit === "seconds" ? Math.min(seconds, state.total ?? seconds) : state.done;
  const rate = seconds > 0.2 && done > 0 ? done / seconds : null;
  const eta = rate && state.total !== null ? Math.max(0, (state.total - done) / rate) : null;
  return { done, rate, eta };
}

/** One JSON progress line (no newline), as written when standard error is not a terminal. */
export function progressJson(state: ProgressState, now: number): string {
  const { done, rate, eta } = pace(state, now);
  const round = (n: number | null) => (n === null ? null : Math.round(n * 10) / 10);
  return JSON.stringify({
    progress: state.task,
    phase: state.phase,
    elapsed_s: round((now - state.startedAt) / 1000),
    done: round(done),
    total: state.total,
    unit: state.unit,
    percent: state.total ? round((100 * Math.min(done, state.total)) / state.total) : null,
    rate_per_s: round(rate),
    eta_s: round(eta),
    rows: state.rows,
  });
}

const BAR_WIDTH = 10;
const SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

/** The terminal line of a state (no carriage return), cut to `columns`. */
export function progressLine(state: ProgressState, now: number, columns = 80): string {
  const { done, rate, eta } = pace(state, now);
  const show = UNITS[state.unit];
  const parts = [`${state.task}: ${state.phase}`];
  if (state.total) {
    const share = Math.min(1, done / state.total);
    const full = Math.round(share * BAR_WIDTH);
    parts.push(`▕${"█".repeat(full)}${"░".repeat(BAR_WIDTH - full)}▏${(share * 100).toFixed(0).padStart(4)}%`);
    parts.push(
      state.unit === "bytes"
        ? `${(done / 1e6).toFixed(1)}/${show(state.total)}`
        : `${Math.round(done).toLocaleString("en-US")}/${show(state.total)}`,
    );
  } else {
    parts.push(SPINNER[Math.floor(now / 200) % SPINNER.length]!);
    if (done > 0) parts.push(show(done));
  }
  if (rate !== null) parts.push(`${show(rate)}/s`);
  if (eta !== null) parts.push(`ETA ${clock(eta)}`);
  parts.push(clock((now - state.startedAt) / 1000));
  const records = Object.values(state.rows).reduce((a, b) => a + b, 0);
  if (records > 0) parts.push(`${records.toLocaleString("en-US")} records`);
  // Longer than the terminal is wide, the line would wrap and the next \r redraw only its end:
  // the last parts go first, then the line is cut.
  while (parts.length > 1 && parts.join("  ").length >= columns) parts.pop();
  return [...parts.join("  ")].slice(0, Math.max(20, columns - 1)).join("");
}

/** Messages to the drawing thread. */
export type ToDrawer = { update: ProgressState } | { end: true };

/**
 * Draws on file descriptor `fd` (2: standard error) from a worker thread.
 * `columns` is the terminal's width (for `bar`).
 */
function drawOn(fd: number, mode: ProgressMode, columns = 80): ProgressSink {
  const options = { workerData: { fd, mode, columns }, stdout: false, stderr: false };
  const worker = import.meta.url.endsWith(".ts")
    ? // Unbuilt, the worker is TypeScript too, and a worker gets no loader from --import:
      // it registers tsx itself (with the copy this module came through), then loads the drawer.
      new Worker(
        `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})` +
          `.then(({ register }) => { register(); return import(${JSON.stringify(new URL("progress-worker.ts", import.meta.url).href)}); });`,
        { ...options, eval: true },
      )
    : // Built, it is an entry of its own at its source's place in the build (scripts/build.mjs).
      new Worker(join(FILES_ROOT, "src", "observe", "progress-worker.js"), options);
  worker.unref(); // a task that never ends its progress must not keep the process alive
  const ended = new Promise<void>((resolve) => {
    worker.once("message", () => resolve());
    worker.once("error", () => resolve());
    worker.once("exit", () => resolve());
  });
  return {
    update: (state) => worker.postMessage({ update: state } satisfies ToDrawer),
    end: async () => {
      worker.postMessage({ end: true } satisfies ToDrawer);
      await ended;
      await worker.terminate();
    },
  };
}

/** Progress of this process's task on its standard error: a bar on a terminal, JSON lines elsewhere. */
export function progressOnStderr(task: string): Tracker {
  return new Tracker(task, drawOnStderr());
}

/** A drawer on this process's standard error: a bar on a terminal (80 columns if it does not say), JSON lines elsewhere. */
export const drawOnStderr = (): ProgressSink => (process.stderr.isTTY ? drawOn(2, "bar", process.stderr.columns || 80) : drawOn(2, "json"));
