/**
 * What every command that opens the database shares (docs/contract.md §7): read the
 * configuration, open the database, apply pending migrations; and one way to
 * end a command with an exit code and a one-line message.
 *
 * On PostgreSQL, the embedded server included, a command opens the database
 * itself: it joins the embedded server a gateway or another command runs, or
 * starts it for its own work and stops it after (src/db/embedded.ts).
 *
 * A DATA_DIR still written by PGlite has one owner (src/db/owner.ts).
 * When a gateway owns it, the command runs inside the gateway, sent over the
 * gateway's command socket (./channel.ts): a key it creates works at once,
 * and an import is visible at once. When another command owns it, the
 * command refuses with exit 2 and touches nothing. Otherwise the command
 * takes the directory for as long as it runs.
 */
import { mkdirSync } from "node:fs";
import { ConfigError, loadConfig } from "../config.js";
import { type Database, openDatabase } from "../db/driver.js";
import { isPGliteDir } from "../db/embedded.js";
import { migrate } from "../db/migrate.js";
import { drawOnStderr, type Progress } from "../observe/progress.js";
import { claim, ownedMessage, ownerOf } from "../db/owner.js";
import { readArgs } from "./args.js";
import { forward } from "./channel.js";
import { fetchInput } from "./fetch.js";
import { answerUsage, type CommandIO, type CommandSpec, oneLine, openInput, type WithDatabase } from "./command.js";

/** Opens the configured database and applies its pending migrations. */
export async function openMigrated(
  env: NodeJS.ProcessEnv = process.env,
  progress?: Progress,
  role = "command",
): Promise<{ db: Database; applied: string[] }> {
  const config = loadConfig(env);
  progress?.phase("opening");
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, role });
  try {
    progress?.phase("migrating");
    return { db, applied: await migrate(db) };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Runs a command: `main` resolves to the exit code; anything it throws is
 * printed as `<prefix>: <message>` on stderr and exits 1 (2 for a bad
 * configuration, which is the user's to fix like a usage error).
 */
export function run(prefix: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${prefix}: ${oneLine(error)}\n`);
      process.exit(error instanceof ConfigError ? 2 : 1);
    },
  );
}

/** This process's standard streams as a command's. */
export const processIO: CommandIO = {
  out: (text) => process.stdout.write(text),
  // On a terminal, a line of text first clears the progress bar it may be drawn over.
  err: (text) => process.stderr.write(process.stderr.isTTY ? `\r\x1b[K${text}` : text),
  tty: process.stderr.isTTY === true,
  // An http(s) URL is fetched (`npm run ingest -- --fetch`), with the time limit and retries configured.
  openInput: (path) => {
    if (!/^https?:\/\//i.test(path)) return openInput(path);
    const { timeoutMs, retries } = loadConfig().ingest;
    return fetchInput(path, { timeoutMs, retries, onRetry: (message) => processIO.err(message) });
  },
  progressSink: drawOnStderr,
};

/**
 * Runs a command from the command line: on a PostgreSQL server directly; on
 * the embedded database through its owning gateway, or as the owner.
 */
export function runCommand(spec: CommandSpec): void {
  run(spec.prefix, async () => {
    const args = process.argv.slice(2);
    // --help and usage mistakes are answered here, before the configuration
    // is read or a database or gateway is touched.
    const read = readArgs(spec.line, args);
    if (!read.ok) return answerUsage(processIO, read);
    const config = loadConfig();
    const withOpened = opener(spec.name);
    if (config.databaseUrl || !isPGliteDir(config.dataDir)) return spec.run(args, processIO, withOpened);
    const owner = ownerOf(config.dataDir);
    if (owner && spec.exclusive) return refuse(spec, ownedMessage(config.dataDir, owner));
    const stillOwner = () => ownerOf(config.dataDir)?.pid === owner?.pid;
    if (owner?.socket) return forward(owner.socket, spec, args, processIO, stillOwner);
    // The directory is taken when the command opens the database, not before:
    // a usage mistake creates nothing and is told as such, whoever owns it.
    const withOwned: WithDatabase = async (work, progress) => {
      mkdirSync(config.dataDir, { recursive: true });
      const claimed = claim(config.dataDir, spec.name);
      if (!claimed.held) throw new Owned(ownedMessage(config.dataDir, claimed.owner));
      try {
        return await withOpened(work, progress);
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
const opener =
  (role: string): WithDatabase =>
  async (work, progress) => {
    const { db, applied } = await openMigrated(process.env, progress, role);
    try {
      return await work(db, applied);
    } finally {
      progress?.phase("closing");
      await db.close();
    }
  };
