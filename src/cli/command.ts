/**
 * What a command is (docs/contract.md §7): its arguments, where it writes,
 * what it reads and the database it is given (./open.ts runs it).
 */
import { open } from "node:fs/promises";
import { Readable } from "node:stream";
import { inspect } from "node:util";
import type { Database } from "../db/driver.js";
import type { Progress, ProgressSink } from "../observe/progress.js";
import type { UsageAnswer } from "./args.js";

/** Where a command writes, and what it reads. */
export interface CommandIO {
  out(text: string): void;
  err(text: string): void;
  /** Standard error is a terminal. */
  tty: boolean;
  /** Opens the command's input: a file, or `-` for standard input. */
  openInput(path: string): Promise<CommandInput>;
  /** Where the command's progress is drawn: on the terminal's standard error, as a bar or JSON lines. */
  progressSink(): ProgressSink;
}

export interface CommandInput {
  input: Readable;
  /** Its size in bytes, when it is known (a file's, not standard input's). */
  size: number | null;
  /** Why reading stopped early, if it did. */
  readError(): Error | undefined;
}

/**
 * Runs `work` on the migrated database (and closes it, if the command opened
 * it), telling `progress` when it opens, migrates and closes.
 */
export type WithDatabase = <T>(work: (db: Database, applied: string[]) => Promise<T>, progress?: Progress) => Promise<T>;

/** A command: its arguments, where it writes, and its database; resolves to the exit code. */
export type Command = (args: string[], io: CommandIO, withDatabase: WithDatabase) => Promise<number>;

export interface CommandSpec {
  /** Its name (`keys`, `import`, `db:migrate`), as the embedded server lists its connections. */
  name: string;
  /** Prefix of the one-line message when it fails. */
  prefix: string;
  run: Command;
}

/** Gives the answer of a command line that is not run (`--help`, or a usage error); resolves to its exit code. */
export function answerUsage(io: CommandIO, read: UsageAnswer): number {
  io[read.stream](read.text);
  return read.code;
}

/** An error's message on one line. */
export const oneLine = (error: unknown): string =>
  (error instanceof Error
    ? error.message
    : typeof error === "object" && error !== null
      ? inspect(error, { breakLength: Infinity })
      : String(error)
  )
    .replace(/\s*\n\s*/g, " ")
    .trim();

/**
 * Opens a file (or standard input for `-`) as a stream. A read error ends the
 * stream early instead of erroring it (the importer would wait forever on an
 * errored source); `readError()` tells it afterwards. Throws at once when the
 * file cannot be opened.
 */
export async function openInput(path: string): Promise<CommandInput> {
  let source: Readable;
  let size: number | null = null;
  if (path === "-") {
    source = process.stdin;
  } else {
    const file = await open(path, "r").catch((error: NodeJS.ErrnoException) => {
      throw new Error(`cannot read ${path}: ${error.code === "ENOENT" ? "no such file" : oneLine(error)}`);
    });
    const stat = await file.stat();
    if (stat.isDirectory()) {
      await file.close();
      throw new Error(`cannot read ${path}: it is a directory`);
    }
    size = stat.isFile() ? stat.size : null;
    source = file.createReadStream();
  }
  return guarded(source, path === "-" ? "standard input" : path, size);
}

/** A stream whose read error ends it early and is told by `readError()`. */
export function guarded(source: Readable, name: string, size: number | null): CommandInput {
  let failure: Error | undefined;
  async function* chunks() {
    try {
      for await (const chunk of source) yield chunk as Buffer;
    } catch (error) {
      failure = new Error(`cannot read ${name}: ${oneLine(error)}`);
    }
  }
  return { input: Readable.from(chunks(), { objectMode: false }), size, readError: () => failure };
}
