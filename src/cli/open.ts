/**
 * What every command that opens the database shares (CONTRACT §7): read the
 * configuration, open the database, apply pending migrations; and one way to
 * end a command with an exit code and a one-line message.
 */
import { open } from "node:fs/promises";
import { Readable } from "node:stream";
import { loadConfig } from "../config.js";
import { type Database, openDatabase } from "../db/driver.js";
import { migrate } from "../db/migrate.js";

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
  (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " ").trim();

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

/**
 * Opens a file (or standard input for `-`) as a stream. A read error ends the
 * stream early instead of erroring it (the importer would wait forever on an
 * errored source); `readError()` tells it afterwards. Throws at once when the
 * file cannot be opened.
 */
export async function openInput(path: string): Promise<{ input: Readable; readError: () => Error | undefined }> {
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
  let failure: Error | undefined;
  async function* chunks() {
    try {
      for await (const chunk of source) yield chunk as Buffer;
    } catch (error) {
      failure = new Error(`cannot read ${path === "-" ? "standard input" : path}: ${oneLine(error)}`);
    }
  }
  return { input: Readable.from(chunks(), { objectMode: false }), readError: () => failure };
}
