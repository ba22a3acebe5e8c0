/**
 * The command line of {@link ingestCommand} (src/cli/commands/ingest.ts). With
 * OpenTelemetry asked for, its SDK starts before the command's modules are
 * imported, and the command is one trace (src/observe/tracing.ts).
 */
import { startTracing } from "../observe/tracing.js";

await startTracing("uedu-ingest");
const [{ ingestCommand }, { runCommand }] = await Promise.all([import("./commands/ingest.js"), import("./open.js")]);
runCommand(ingestCommand);
