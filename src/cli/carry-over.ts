/** The command line of {@link carryOverCommand} (src/cli/commands/carry-over.ts), answered first from ./lines/carry-over.ts (./entry.ts). */
import { runEntry } from "./entry.js";
import { LINE } from "./lines/carry-over.js";

await runEntry(LINE, async () => (await import("./commands/carry-over.js")).carryOverCommand);
