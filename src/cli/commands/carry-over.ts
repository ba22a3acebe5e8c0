/**
 * `npm run db:carry-over`: carries a DATA_DIR written by PGlite (the embedded
 * engine before the embedded PostgreSQL) into the embedded PostgreSQL, checks
 * it row for row, and keeps PGlite's files beside it (src/db/carry-over.ts).
 * `npm start` and every command do the same by themselves when they find
 * such a directory; this one does only that, and says what it did.
 */
import { loadConfig } from "../../config.js";
import { CarryOverError, carryOver } from "../../db/carry-over.js";
import { readArgs } from "../args.js";
import { LINE } from "../lines/carry-over.js";
import { answerUsage, type Command, type CommandSpec } from "../command.js";

const count = (n: number) => n.toLocaleString("en-US");

const carry: Command = async (args, io) => {
  const read = readArgs(LINE, args);
  if (!read.ok) return answerUsage(io, read);
  const config = loadConfig();
  if (config.databaseUrl) {
    io.err("db:carry-over: DATABASE_URL is set; the carry-over fills the embedded PostgreSQL of DATA_DIR: unset DATABASE_URL\n");
    return 2;
  }
  let carried: Awaited<ReturnType<typeof carryOver>>;
  try {
    carried = await carryOver(config.dataDir, (phase) => io.err(`db:carry-over: ${phase}…\n`));
  } catch (error) {
    if (!(error instanceof CarryOverError && error.inUse)) throw error;
    io.err(`db:carry-over failed: ${error.message}\n`);
    return 2;
  }
  const { tables, kept } = carried;
  const rows = tables.reduce((sum, t) => sum + t.rows, 0);
  io.out(
    `carried ${count(rows)} rows of ${tables.length} tables from PGlite into the embedded PostgreSQL, checked row for row; PGlite's files are kept in ${kept}\n`,
  );
  return 0;
};

export const carryOverCommand: CommandSpec = {
  name: "db:carry-over",
  prefix: "db:carry-over failed",
  run: carry,
};
