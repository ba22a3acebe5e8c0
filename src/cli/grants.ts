/** The command line of {@link grantsCommand} (src/cli/commands/grants.ts). */
import { grantsCommand } from "./commands/grants.js";
import { runCommand } from "./open.js";

runCommand(grantsCommand);
