/**
 * HEAP_GROWTH_PERCENT (src/observe/heap.ts): the process tells V8 how far the
 * heap may grow between full collections, and V8 then collects sooner.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { setHeapGrowth } from "../../src/observe/heap.js";

const run = promisify(execFile);

/**
 * Peak heap size (MiB) of a process that keeps about 30 MiB alive while it
 * allocates seven times that, after `setHeapGrowth(percent)`: the shape of a
 * gateway under load, whose answers in flight live long enough to be promoted.
 * The peaks, MiB, with 0 and 25: 162-169 and 93-99 on Node 20, 195 and 100 on
 * 22, 238 and 142 on 24, 169 and 92 on 26 (ten times, 2,000,000 rows, cost
 * each process about 9 CPU-s on Node 20 instead of 1.8, for the same gap).
 */
async function peakHeap(percent: number): Promise<number> {
  const script = `
    import v8 from "node:v8";
    import { setHeapGrowth } from "./src/observe/heap.ts";
    setHeapGrowth(${percent});
    const ring = new Array(40_000);
    let peak = 0;
    for (let i = 0; i < 300_000; i++) {
      ring[i % ring.length] = { i, payload: new Array(64).fill(i), text: ("row " + i).repeat(8) };
      if (i % 1000 === 0) peak = Math.max(peak, v8.getHeapStatistics().total_heap_size);
    }
    console.log(peak / 2 ** 20);`;
  const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: process.cwd() });
  return Number(stdout.trim());
}

describe("heap growth", () => {
  it("is V8's --heap-growing-percent, set by the process for itself; 0 leaves V8's rule", () => {
    const set: string[] = [];
    setHeapGrowth(100, (flags) => set.push(flags));
    setHeapGrowth(0, (flags) => set.push(flags));
    expect(set).toEqual(["--heap-growing-percent=100"]);
    expect(loadConfig({}).heapGrowthPercent).toBe(50);
    expect(loadConfig({ HEAP_GROWTH_PERCENT: "0" }).heapGrowthPercent).toBe(0);
    expect(() => loadConfig({ HEAP_GROWTH_PERCENT: "-1" })).toThrow(/HEAP_GROWTH_PERCENT must be an integer from 0 to 400/);
  });

  it("keeps a churning process's heap smaller than V8's own rule does", async () => {
    const [own, held] = await Promise.all([peakHeap(0), peakHeap(25)]);
    expect(own).toBeGreaterThan(60);
    expect(held).toBeLessThan(own * 0.95);
  }, 60_000);
});
