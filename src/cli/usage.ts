/** The command line of {@link usageCommand} (src/cli/commands/usage.ts). */
import { usageCommand } from "./commands/usage.js";
import { runCommand } from "./open.js";

runCommand(usageCommand);
