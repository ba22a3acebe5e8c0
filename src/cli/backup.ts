/** The command line of {@link backupCommand} (src/cli/commands/backup.ts). */
import { backupCommand } from "./commands/backup.js";
import { runCommand } from "./open.js";

runCommand(backupCommand);
