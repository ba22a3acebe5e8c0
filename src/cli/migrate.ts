/**
 * The command line of {@link migrateCommand} (src/cli/commands/migrate.ts). `--help` and a
 * usage mistake are answered from the line alone (./lines/migrate.ts); only a
 * command line that runs loads the command and what opens the database.
 */
import { commandLine } from "./args.js";
import { LINE } from "./lines/migrate.js";

commandLine(LINE);
const { migrateCommand } = await import("./commands/migrate.js");
const { runCommand } = await import("./open.js");
runCommand(migrateCommand);
