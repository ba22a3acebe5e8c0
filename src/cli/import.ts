/**
 * The command line of {@link importCommand} (src/cli/commands/import.ts). `--help` and a
 * usage mistake are answered from the line alone (./lines/import.ts). Then, with
 * OpenTelemetry asked for, its SDK starts before the command's modules are
 * imported, and the command is one trace (src/observe/tracing.ts).
 */
import { commandLine } from "./args.js";
import { LINE } from "./lines/import.js";
import { startTracing } from "../observe/tracing.js";

commandLine(LINE);
await startTracing("uedu-import");
const { importCommand } = await import("./commands/import.js");
const { runCommand } = await import("./open.js");
runCommand(importCommand);
