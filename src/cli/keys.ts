/**
 * The command line of {@link keysCommand} (src/cli/commands/keys.ts). `--help` and a
 * usage mistake are answered from the line alone (./lines/keys.ts); only a
 * command line that runs loads the command and what opens the database.
 */
import { commandLine } from "./args.js";
import { LINE } from "./lines/keys.js";

commandLine(LINE);
const { keysCommand } = await import("./commands/keys.js");
const { runCommand } = await import("./open.js");
runCommand(keysCommand);
