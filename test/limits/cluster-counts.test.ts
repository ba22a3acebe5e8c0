/**
 * A worker of WEB_CONCURRENCY counts each request through the primary
 * (src/limits/rate-limits.ts). Run in a real node:cluster pair
 * (test/support/cluster-counts.ts).
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");

async function counts(mode: "busy" | "silent") {
  const { stdout } = await run(join(ROOT, "node_modules", ".bin", "tsx"), [join(ROOT, "test", "support", "cluster-counts.ts"), mode], {
    cwd: ROOT,
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as { outcome: Record<string, unknown>; ms: number };
}

describe("a worker's count through the primary", () => {
  it("answered while the worker was busy past the wait is read, not refused as late", async () => {
    const { outcome, ms } = await counts("busy");
    expect(ms).toBeGreaterThanOrEqual(3_000);
    // The second request of the key: one of each window used before it.
    expect(outcome).toEqual({ allowed: true, remaining: [58, 9_998] });
  });

  it("not answered by the primary is Unavailable (a 503 with Retry-After), after the wait", async () => {
    const { outcome, ms } = await counts("silent");
    expect(outcome).toEqual({ error: expect.stringMatching(/primary's rate-limit count took longer than 2000 ms/), unavailable: true });
    expect(ms).toBeGreaterThanOrEqual(2_000);
  }, 40_000);
});
