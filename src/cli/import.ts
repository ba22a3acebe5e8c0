/** The command line of {@link importCommand} (src/cli/commands/import.ts). */
import { importCommand } from "./commands/import.js";
import { runCommand } from "./open.js";

runCommand(importCommand);
