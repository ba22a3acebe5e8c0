/**
 * The command line of {@link carryOverCommand} (src/cli/commands/carry-over.ts). `--help` and a
 * usage mistake are answered from the line alone (./lines/carry-over.ts); only a
 * command line that runs loads the command and what opens the database.
 */
import { commandLine } from "./args.js";
import { LINE } from "./lines/carry-over.js";

commandLine(LINE);
const { carryOverCommand } = await import("./commands/carry-over.js");
const { runCommand } = await import("./open.js");
runCommand(carryOverCommand);
