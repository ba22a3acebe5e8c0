/** The command line of {@link restoreCommand} (src/cli/commands/backup.ts), answered first from ./lines/backup.ts (./entry.ts). */
import { runEntry } from "./entry.js";
import { RESTORE } from "./lines/backup.js";

await runEntry(RESTORE, async () => (await import("./commands/backup.js")).restoreCommand);
