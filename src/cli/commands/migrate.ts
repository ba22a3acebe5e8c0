/** `npm run db:migrate`: applies the pending migrations of the configured database. */
import { readArgs } from "../args.js";
import { LINE } from "../lines/migrate.js";
import { answerUsage, type Command, type CommandSpec } from "../command.js";

const migrateCli: Command = async (args, io, withDatabase) => {
  const read = readArgs(LINE, args);
  if (!read.ok) return answerUsage(io, read);
  return withDatabase(async (_db, applied) => {
    if (applied.length === 0) io.out("database is up to date\n");
    for (const name of applied) io.out(`applied ${name}\n`);
    return 0;
  });
};

export const migrateCommand: CommandSpec = { name: "db:migrate", prefix: "db:migrate failed", run: migrateCli };
