/**
 * Runs one of the command-line entries (`src/cli/<script>.ts`, from the run's
 * build: `built.ts`) as a process on an embedded DATA_DIR, with `input` on its
 * standard input.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { builtCommand } from "./built.js";

const ROOT = join(import.meta.dirname, "..", "..");

export interface CliRun {
  code: number | null;
  stdout: string;
  /** Standard error without the JSON progress lines (src/observe/progress.ts). */
  stderr: string;
  /** The JSON progress lines, parsed, with when each arrived (ms since the start); only with `options.progress`. */
  progress?: ProgressLine[];
  /** Whether the hold began (its phase was reported); only with `options.hold`. */
  held?: boolean;
}

/**
 * Holds the command (SIGSTOP, then SIGCONT), as a busy machine would hold it,
 * once it first reports a phase: so that a test sees a phase last, or a
 * transaction stay open, however fast this machine runs it.
 */
export interface CliHold {
  /** The progress phase whose first line starts the hold. */
  phase: string;
  /** How long after that line the command is stopped, in ms (0 by default). */
  afterMs?: number;
  /** How long it stays stopped, in ms. */
  forMs: number;
  /** Run while it is stopped, with its pid; it stays stopped until this ends too. A failure fails the run. */
  during?: (pid: number) => Promise<void>;
}

/** One JSON progress line of a command whose standard error is not a terminal. */
export interface ProgressLine {
  progress: string;
  phase: string;
  elapsed_s: number;
  done: number;
  total: number | null;
  unit: string;
  percent: number | null;
  rate_per_s: number | null;
  eta_s: number | null;
  rows: Record<string, number>;
  /** When the test received it, in ms since the command started. */
  receivedMs: number;
}

const PROGRESS_LINE = /^\{"progress":.*\n/gm;

/** Takes the JSON progress lines out of a standard error. */
const withoutProgress = (stderr: string) => stderr.replace(PROGRESS_LINE, "");

export interface CliOptions {
  /** What the command reads on standard input (a string, or chunks written one by one). */
  input?: string | Iterable<string>;
  /** Called with the process once it is started (to kill it, for instance). */
  started?: (child: ChildProcess) => void;
  timeoutMs?: number;
  /** More environment variables; `undefined` removes one (DATABASE_URL is removed unless given). */
  env?: Record<string, string | undefined>;
  /** Also return the progress lines, parsed. */
  progress?: boolean;
  /** Told of each progress line as it arrives. */
  onProgress?: (line: ProgressLine) => void;
  /** Hold the command once it reports a phase. */
  hold?: CliHold;
}

export function cli(dataDir: string, script: string, args: string[], options: CliOptions = {}): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const timeoutMs = options.timeoutMs ?? 90_000;
  return new Promise((resolve, reject) => {
    // Its own process group, so that a test can kill it and whatever it started together (kill(-pid)).
    const [node, ...command] = builtCommand(`src/cli/${script}.ts`);
    const child = spawn(node, [...command, ...args], {
      cwd: ROOT,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    const startedAt = Date.now();
    const progress: ProgressLine[] = [];
    let partial = "";
    let held = false;
    let holdFailure: unknown;
    const hold = ({ afterMs = 0, forMs, during }: CliHold) => {
      held = true;
      setTimeout(() => {
        child.kill("SIGSTOP");
        Promise.all([new Promise((r) => setTimeout(r, forMs)), during?.(child.pid!)])
          .catch((error: unknown) => {
            holdFailure = error;
          })
          .finally(() => child.kill("SIGCONT"));
      }, afterMs);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${script} ${args.join(" ")} did not finish in ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => {
      stderr += d;
      const lines = (partial + d).split("\n");
      partial = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{"progress":')) continue;
        const parsed: ProgressLine = { ...JSON.parse(line), receivedMs: Date.now() - startedAt };
        progress.push(parsed);
        if (options.hold && !held && parsed.phase === options.hold.phase) hold(options.hold);
        options.onProgress?.(parsed);
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (holdFailure !== undefined) reject(holdFailure);
      else {
        resolve({
          code,
          stdout,
          stderr: withoutProgress(stderr),
          ...(options.progress ? { progress } : {}),
          ...(options.hold ? { held } : {}),
        });
      }
    });
    child.stdin.on("error", () => undefined); // the command may end before reading everything
    options.started?.(child);
    const input = options.input ?? "";
    if (typeof input === "string") child.stdin.end(input);
    else {
      void (async () => {
        for (const chunk of input) {
          if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once("drain", r));
        }
        child.stdin.end();
      })();
    }
  });
}
