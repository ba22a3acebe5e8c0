/** The command line of {@link carryOverCommand} (src/cli/commands/carry-over.ts). */
import { carryOverCommand } from "./commands/carry-over.js";
import { runCommand } from "./open.js";

runCommand(carryOverCommand);
