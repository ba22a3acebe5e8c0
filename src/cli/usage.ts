/** The command line of {@link usageCommand} (src/cli/commands/usage.ts), answered first from ./lines/usage.ts (./entry.ts). */
import { runEntry } from "./entry.js";
import { LINE } from "./lines/usage.js";

await runEntry(LINE, async () => (await import("./commands/usage.js")).usageCommand);
