/** The command line of {@link keysCommand} (src/cli/commands/keys.ts), answered first from ./lines/keys.ts (./entry.ts). */
import { runEntry } from "./entry.js";
import { LINE } from "./lines/keys.js";

await runEntry(LINE, async () => (await import("./commands/keys.js")).keysCommand);
