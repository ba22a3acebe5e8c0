/**
 * How far V8 lets the heap grow between two full collections. Left to its
 * own rule, under sustained load V8 lets the old generation grow to three or
 * four times what is live before it collects: the gateway, with 40 MiB live,
 * peaked at 330–450 MiB resident. Growing by at most `HEAP_GROWTH_PERCENT`
 * (default 50: half again what was live) held the same load at about 225 MiB
 * (100: 250–270 MiB), for 3–5% of its requests per second.
 *
 * This sets when V8 collects, not how much it may hold: unlike
 * `--max-old-space-size`, no answer can make it end the process. It is V8's
 * `--heap-growing-percent`, which V8 reads at each collection, so a process
 * sets it for itself at start (each worker of WEB_CONCURRENCY too), however
 * it was started.
 */
import v8 from "node:v8";

/** Sets V8's heap growth to `percent`; 0 leaves V8's own rule. */
export function setHeapGrowth(percent: number, setFlags: (flags: string) => void = v8.setFlagsFromString): void {
  if (percent > 0) setFlags(`--heap-growing-percent=${Math.round(percent)}`);
}
