/** `npm run db:migrate`: applies the pending migrations of the configured database. */
import type { Command, CommandSpec } from "../command.js";

const migrateCli: Command = (_args, io, withDatabase) =>
  withDatabase(async (_db, applied) => {
    if (applied.length === 0) io.out("database is up to date\n");
    for (const name of applied) io.out(`applied ${name}\n`);
    return 0;
  });

export const migrateCommand: CommandSpec = { name: "db:migrate", prefix: "db:migrate failed", run: migrateCli };
