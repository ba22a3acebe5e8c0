/**
 * The command line of {@link grantsCommand} (src/cli/commands/grants.ts). `--help` and a
 * usage mistake are answered from the line alone (./lines/grants.ts); only a
 * command line that runs loads the command and what opens the database.
 */
import { commandLine } from "./args.js";
import { LINE } from "./lines/grants.js";

commandLine(LINE);
const { grantsCommand } = await import("./commands/grants.js");
const { runCommand } = await import("./open.js");
runCommand(grantsCommand);
