/** The command line of {@link migrateCommand} (src/cli/commands/migrate.ts). */
import { migrateCommand } from "./commands/migrate.js";
import { runCommand } from "./open.js";

runCommand(migrateCommand);
