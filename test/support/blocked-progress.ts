/**
 * A task whose main thread is held, as the embedded database holds it while
 * it opens or commits: it starts a phase, blocks for the seconds given as
 * its argument, then ends. Its progress must be drawn all the while.
 */
import { progressOnStderr } from "../../src/observe/progress.js";

const seconds = Number(process.argv[2] ?? "5");
const progress = progressOnStderr("blocked");
progress.phase("holding", { total: 10, unit: "steps" });
progress.set(3);
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, seconds * 1000);
progress.set(7);
await progress.end();
process.stdout.write("ended\n");
