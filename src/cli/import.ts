/**
 * The command line of {@link importCommand} (src/cli/commands/import.ts), answered first
 * from ./lines/import.ts (./entry.ts). With OpenTelemetry asked for, its SDK starts
 * before the command's modules are imported, and the command is one trace
 * (src/observe/tracing.ts).
 */
import { runEntry } from "./entry.js";
import { LINE } from "./lines/import.js";
import { startTracing } from "../observe/tracing.js";

await runEntry(LINE, async () => {
  await startTracing("uedu-import");
  return (await import("./commands/import.js")).importCommand;
});
