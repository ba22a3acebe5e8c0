/**
 * The command line of {@link ingestCommand} (src/cli/commands/ingest.ts), answered first
 * from ./lines/ingest.ts (./entry.ts). With OpenTelemetry asked for, its SDK starts
 * before the command's modules are imported, and the command is one trace
 * (src/observe/tracing.ts).
 */
import { runEntry } from "./entry.js";
import { LINE } from "./lines/ingest.js";
import { startTracing } from "../observe/tracing.js";

await runEntry(LINE, async () => {
  await startTracing("uedu-ingest");
  return (await import("./commands/ingest.js")).ingestCommand;
});
