/** The command line of {@link restoreCommand} (src/cli/commands/backup.ts). */
import { restoreCommand } from "./commands/backup.js";
import { runCommand } from "./open.js";

runCommand(restoreCommand);
