/**
 * The command line of {@link ingestCommand} (src/cli/commands/ingest.ts). `--help` and a
 * usage mistake are answered from the line alone (./lines/ingest.ts). Then, with
 * OpenTelemetry asked for, its SDK starts before the command's modules are
 * imported, and the command is one trace (src/observe/tracing.ts).
 */
import { commandLine } from "./args.js";
import { LINE } from "./lines/ingest.js";
import { startTracing } from "../observe/tracing.js";

commandLine(LINE);
await startTracing("uedu-ingest");
const { ingestCommand } = await import("./commands/ingest.js");
const { runCommand } = await import("./open.js");
runCommand(ingestCommand);
