/**
 * A primary and one worker of node:cluster, for `test/limits/cluster-counts.test.ts`.
 * The worker counts one request of a key through the primary (`RateLimits`
 * with `cluster`), and prints `{"outcome": …}` on one line:
 *
 * - `cluster-counts.ts busy`: the primary counts, and the worker's event
 *   loop is busy for longer than the wait for the primary's answer right
 *   after it asks (a long synchronous stretch);
 * - `cluster-counts.ts silent`: no primary counter answers.
 */
import cluster from "node:cluster";
import { RateLimiterClusterMaster } from "rate-limiter-flexible";
import { isUnavailable } from "../../src/db/availability.js";
import { RateLimits } from "../../src/limits/rate-limits.js";

const mode = process.argv[2];
if (mode !== "busy" && mode !== "silent") throw new Error("usage: cluster-counts.ts busy|silent");

if (cluster.isPrimary) {
  if (mode === "busy") new RateLimiterClusterMaster();
  cluster.fork().on("exit", (code) => process.exit(code ?? 1));
} else {
  const limits = new RateLimits({ defaults: { perMinute: 60, perDay: 10_000 }, cluster: true });
  const own = { perMinute: null, perDay: null };
  // A first count, as a gateway's first request: the worker's counters are set up with the primary.
  if (mode === "busy") await limits.take(1, own);
  const started = performance.now();
  const taken = limits.take(1, own).then(
    (decision) => ({ allowed: decision.allowed, remaining: decision.windows.map((w) => w.remaining) }),
    (error: unknown) => ({ error: String(error), unavailable: isUnavailable(error) }),
  );
  if (mode === "busy") while (performance.now() - started < 3_000);
  const outcome = await taken;
  process.stdout.write(`${JSON.stringify({ outcome, ms: Math.round(performance.now() - started) })}\n`);
  process.exit(0);
}
