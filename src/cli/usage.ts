/**
 * The command line of {@link usageCommand} (src/cli/commands/usage.ts). `--help` and a
 * usage mistake are answered from the line alone (./lines/usage.ts); only a
 * command line that runs loads the command and what opens the database.
 */
import { commandLine } from "./args.js";
import { LINE } from "./lines/usage.js";

commandLine(LINE);
const { usageCommand } = await import("./commands/usage.js");
const { runCommand } = await import("./open.js");
runCommand(usageCommand);
