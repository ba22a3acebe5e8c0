/** The command line of {@link migrateCommand} (src/cli/commands/migrate.ts), answered first from ./lines/migrate.ts (./entry.ts). */
import { runEntry } from "./entry.js";
import { LINE } from "./lines/migrate.js";

await runEntry(LINE, async () => (await import("./commands/migrate.js")).migrateCommand);
