/**
 * A command's process (src/cli/keys.ts and the others that open the
 * database): its command line is read first, and `--help` or a usage mistake
 * is answered from it alone (./lines/); only a command line that runs loads
 * the command, then what opens the database (./open.ts), in that order, so
 * that what `load` starts first (the tracing SDK, which hooks pg's loading)
 * comes before them. `--help` costs 0.07 CPU-s instead of 0.14-0.23.
 */
import { type CommandLine, commandLine } from "./args.js";
import type { CommandSpec } from "./command.js";

/** Answers a command line that is not run, else runs the command that `load` gives. */
export async function runEntry(line: CommandLine, load: () => Promise<CommandSpec>): Promise<void> {
  commandLine(line);
  const spec = await load();
  const { runCommand } = await import("./open.js");
  runCommand(spec);
}
