/** The command line of {@link backupCommand} (src/cli/commands/backup.ts), answered first from ./lines/backup.ts (./entry.ts). */
import { runEntry } from "./entry.js";
import { BACKUP } from "./lines/backup.js";

await runEntry(BACKUP, async () => (await import("./commands/backup.js")).backupCommand);
