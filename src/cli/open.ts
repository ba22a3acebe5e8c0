/**
 * What every command that opens the database shares (CONTRACT §7): read the
 * configuration, open the database, apply pending migrations; and one way to
 * end a command with an exit code and a one-line message.
 *
 * On the embedded database the directory has one owner (src/db/owner.ts).
 * When a gateway owns it, the command runs inside the gateway, sent over the
 * gateway's command socket (./channel.ts): a key it creates works at once,
 * and an import is visible at once. When another command owns it, the
 * command refuses with exit 2 and touches nothing. Otherwise the command
 * takes the directory for as long as it runs.
 */
import { mkdirSync } from "node:fs";
import { open } from "node:fs/promises";
import { Readable } from "node:stream";
import { inspect } from "node:util";
import { loadConfig } from "../config.js";
import { type Database, openDatabase } from "../db/driver.js";
import { migrate } from "../db/migrate.js";
import { claim, ownedMessage, ownerOf } from "../db/owner.js";
import { forward } from "./channel.js";

/** Where a command writes, and what it reads. */
export interface CommandIO {
  out(text: string): void;
  err(text: string): void;
  /** Standard error is a terminal (progress may be drawn on one line). */
  tty: boolean;
  /** Opens the command's input: a file, or `-` for standard input. */
  openInput(path: string): Promise<CommandInput>;
}

export interface CommandInput {
  input: Readable;
  /** Why reading stopped early, if it did. */
  readError(): Error | undefined;
}

/** Runs `work` on the migrated database (and closes it, if the command opened it). */
export type WithDatabase = <T>(work: (db: Database, applied: string[]) => Promise<T>) => Promise<T>;

/** A command: its arguments, where it writes, and its database; resolves to the exit code. */
export type Command = (args: string[], io: CommandIO, withDatabase: WithDatabase) => Promise<number>;

export interface CommandSpec {
  /** The name the owner knows it by (`keys`, `import`, `db:migrate`). */
  name: string;
  /** Prefix of the one-line message when it fails. */
  prefix: string;
  run: Command;
  /** The argument that names the command's input file (or `-`), if it reads one. */
  inputOf?: (args: string[]) => string | undefined;
  /** The arguments as a gateway that owns the database must see them (paths made absolute). */
  sendArgs?: (args: string[]) => string[];
  /** The command replaces the database: it never runs inside a gateway, and refuses while one serves. */
  exclusive?: boolean;
}

/** Opens the configured database and applies its pending migrations. */
export async function openMigrated(env: NodeJS.ProcessEnv = process.env): Promise<{ db: Database; applied: string[] }> {
  const config = loadConfig(env);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    return { db, applied: await migrate(db) };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
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
 * Runs a command: `main` resolves to the exit code; anything it throws is
 * printed as `<prefix>: <message>` on stderr and exits 1.
 */
export function run(prefix: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${prefix}: ${oneLine(error)}\n`);
      process.exit(1);
    },
  );
}

/** This process's standard streams as a command's. */
export const processIO: CommandIO = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  tty: process.stderr.isTTY === true,
  openInput,
};

/**
 * Runs a command from the command line: on a PostgreSQL server directly; on
 * the embedded database through its owning gateway, or as the owner.
 */
export function runCommand(spec: CommandSpec): void {
  run(spec.prefix, async () => {
    const args = process.argv.slice(2);
    const config = loadConfig();
    if (config.databaseUrl) return spec.run(args, processIO, withOpened);
    const owner = ownerOf(config.dataDir);
    if (owner && spec.exclusive) return refuse(spec, ownedMessage(config.dataDir, owner));
    const stillOwner = () => ownerOf(config.dataDir)?.pid === owner?.pid;
    if (owner?.socket) return forward(owner.socket, spec, spec.sendArgs?.(args) ?? args, processIO, stillOwner);
    // The directory is taken when the command opens the database, not before:
    // a usage mistake creates nothing and is told as such, whoever owns it.
    const withOwned: WithDatabase = async (work) => {
      mkdirSync(config.dataDir, { recursive: true });
      const claimed = claim(config.dataDir, spec.name);
      if (!claimed.held) throw new Owned(ownedMessage(config.dataDir, claimed.owner));
      try {
        return await withOpened(work);
      } finally {
        claimed.release();
      }
    };
    try {
      return await spec.run(args, processIO, withOwned);
    } catch (error) {
      if (error instanceof Owned) return refuse(spec, error.message);
      throw error;
    }
  });
}

/** Someone else took the directory between the check and the claim. */
class Owned extends Error {}

function refuse(spec: CommandSpec, message: string): number {
  process.stderr.write(`${spec.prefix}: ${message}\n`);
  return 2;
}

/** `WithDatabase` for a command that opens the database itself. */
const withOpened: WithDatabase = async (work) => {
  const { db, applied } = await openMigrated();
  try {
    return await work(db, applied);
  } finally {
    await db.close();
  }
};

/**
 * Opens a file (or standard input for `-`) as a stream. A read error ends the
 * stream early instead of erroring it (the importer would wait forever on an
 * errored source); `readError()` tells it afterwards. Throws at once when the
 * file cannot be opened.
 */
export async function openInput(path: string): Promise<CommandInput> {
  let source: Readable;
  if (path === "-") {
    source = process.stdin;
  } else {
    const file = await open(path, "r").catch((error: NodeJS.ErrnoException) => {
      throw new Error(`cannot read ${path}: ${error.code === "ENOENT" ? "no such file" : oneLine(error)}`);
    });
    if ((await file.stat()).isDirectory()) {
      await file.close();
      throw new Error(`cannot read ${path}: it is a directory`);
    }
    source = file.createReadStream();
  }
  return guarded(source, path === "-" ? "standard input" : path);
}

/** A stream whose read error ends it early and is told by `readError()`. */
export function guarded(source: Readable, name: string): CommandInput {
  let failure: Error | undefined;
  async function* chunks() {
    try {
      for await (const chunk of source) yield chunk as Buffer;
    } catch (error) {
      failure = new Error(`cannot read ${name}: ${oneLine(error)}`);
    }
  }
  return { input: Readable.from(chunks(), { objectMode: false }), readError: () => failure };
}
