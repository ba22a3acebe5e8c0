/**
 * The command line of {@link importCommand} (src/cli/commands/import.ts). With
 * OpenTelemetry asked for, its SDK starts before the command's modules are
 * imported, and the command is one trace (src/observe/tracing.ts).
 */
import { startTracing } from "../observe/tracing.js";

await startTracing("uedu-import");
const [{ importCommand }, { runCommand }] = await Promise.all([import("./commands/import.js"), import("./open.js")]);
runCommand(importCommand);
