/** The command line of {@link keysCommand} (src/cli/commands/keys.ts). */
import { keysCommand } from "./commands/keys.js";
import { runCommand } from "./open.js";

runCommand(keysCommand);
