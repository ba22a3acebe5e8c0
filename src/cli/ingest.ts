/** The command line of {@link ingestCommand} (src/cli/commands/ingest.ts). */
import { ingestCommand } from "./commands/ingest.js";
import { runCommand } from "./open.js";

runCommand(ingestCommand);
