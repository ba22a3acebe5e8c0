/** The command line of {@link grantsCommand} (src/cli/commands/grants.ts), answered first from ./lines/grants.ts (./entry.ts). */
import { runEntry } from "./entry.js";
import { LINE } from "./lines/grants.js";

await runEntry(LINE, async () => (await import("./commands/grants.js")).grantsCommand);
