/**
 * How a benchmark reports: its progress on standard error (a bar on a
 * terminal, JSON lines elsewhere; src/observe/progress.ts), its results on
 * standard output, and last the time it took.
 */
import { progressOnStderr, type Tracker } from "../src/observe/progress.js";

export interface BenchReport {
  /** Where the benchmark is: its phases, with a total when they have one. */
  progress: Tracker;
  /** Prints one result line on standard output (clearing the bar first when both go to the terminal). */
  say(text: string): void;
  /** Ends the progress and prints the time the benchmark took. */
  finish(): Promise<void>;
}

export function benchReport(task: string): BenchReport {
  const progress = progressOnStderr(task);
  return {
    progress,
    say(text) {
      if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
      process.stdout.write(`${text}\n`);
    },
    async finish() {
      await progress.end();
      process.stdout.write(`${task}: done in ${progress.elapsedSeconds().toFixed(1)} s\n`);
    },
  };
}
