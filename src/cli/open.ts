/**
 * What every command that opens the database shares (docs/contract.md §7): read the
 * configuration, open the database, apply pending migrations; and one way to
 * end a command with an exit code and a one-line message.
 *
 * A command opens the database itself: DATABASE_URL's server, or the
 * embedded one, which it joins when a gateway or another command runs it, or
 * starts for its own work and stops after (src/db/embedded.ts). A DATA_DIR
 * still written by PGlite is carried over first (src/db/carry-over.ts).
 */
import { ConfigError, loadConfig } from "../config.js";
import { CarryOverError, openCarryingOver } from "../db/carry-over.js";
import type { Database } from "../db/driver.js";
import { migrate } from "../db/migrate.js";
import { cannotMigrate, isPermissionDenied, probe } from "../db/start-failures.js";
import { drawOnStderr, type Progress } from "../observe/progress.js";
import { inSpan, stopTracing } from "../observe/tracing.js";
import { fetchInput } from "./fetch.js";
import { type CommandIO, type CommandSpec, oneLine, openInput, type WithDatabase } from "./command.js";

/**
 * Opens the configured database and applies its pending migrations: as the
 * schema's owner (DATABASE_OWNER_URL) when it is set, since every command
 * either changes the data or reads more than serving may (docs/roles.md).
 */
export async function openMigrated(
  env: NodeJS.ProcessEnv = process.env,
  progress?: Progress,
  role = "command",
): Promise<{ db: Database; applied: string[] }> {
  const config = loadConfig(env);
  const as = config.ownerUrl
    ? { setting: "DATABASE_OWNER_URL" as const, url: config.ownerUrl }
    : config.databaseUrl
      ? { setting: "DATABASE_URL" as const, url: config.databaseUrl }
      : undefined;
  progress?.phase("opening");
  if (as) await probe(as.setting, as.url, config.timeouts.acquireMs);
  const db = await openCarryingOver({ databaseUrl: as?.url, dataDir: config.dataDir, role }, (phase) =>
    progress
      ? progress.phase(`carrying PGlite's data over: ${phase}`)
      : process.stderr.write(`${role}: carrying PGlite's data over: ${phase}…\n`),
  );
  try {
    progress?.phase("migrating");
    return { db, applied: await migrate(db) };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw as && isPermissionDenied(error) ? cannotMigrate(as.setting, as.url, error) : error;
  }
}

/**
 * Runs a command: `main` resolves to the exit code; anything it throws is
 * printed as `<prefix>: <message>` on stderr and exits 1 (2 for a bad
 * configuration, which is the user's to fix like a usage error, and for a
 * DATA_DIR that a process of an earlier version holds).
 */
export function run(prefix: string, main: () => Promise<number>): void {
  // With tracing on, the spans not yet exported go before the process ends.
  const exit = (code: number) => void stopTracing().finally(() => process.exit(code));
  main().then(exit, (error: unknown) => {
    process.stderr.write(`${prefix}: ${oneLine(error)}\n`);
    exit(error instanceof ConfigError || (error instanceof CarryOverError && error.inUse) ? 2 : 1);
  });
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
 * Runs a command from the command line, once its entry has answered `--help`
 * and usage mistakes (./entry.ts), before the configuration is read or a
 * database is touched.
 */
export function runCommand(spec: CommandSpec): void {
  run(spec.prefix, async () => {
    const args = process.argv.slice(2);
    // With tracing on, the command is one trace, its phases spans under it.
    return inSpan(spec.name, { "process.command": spec.name }, async (span) => {
      const code = await spec.run(args, processIO, opener(spec.name));
      if (code !== 0) span.fail(`exit ${code}`);
      return code;
    });
  });
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
