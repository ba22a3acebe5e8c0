/**
 * The command line of {@link backupCommand} (src/cli/commands/backup.ts). `--help` and a
 * usage mistake are answered from the line alone (./lines/backup.ts); only a
 * command line that runs loads the command and what opens the database.
 */
import { commandLine } from "./args.js";
import { BACKUP } from "./lines/backup.js";

commandLine(BACKUP);
const { backupCommand } = await import("./commands/backup.js");
const { runCommand } = await import("./open.js");
runCommand(backupCommand);
