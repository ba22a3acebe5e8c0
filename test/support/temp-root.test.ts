/**
 * The run's temporary folder (temp-root.ts): on a tmpfs with room unless
 * TMPDIR is set, and where the workers make their temporary folders; and
 * the run's module compile cache there, for every Node process it starts.
 */
import { execFileSync } from "node:child_process";
import nodeModule from "node:module";
import { readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { type Candidate, NEEDED_BYTES, whyNotTmpfs } from "./temp-root.js";

/** statfs's type of a tmpfs, written here again as the test's own oracle: a wrong one in temp-root.ts would never choose the tmpfs. */
const TMPFS = 0x01021994;
const EXT4 = 0xef53;
const roomy: Candidate = { tmpdir: undefined, type: TMPFS, free: NEEDED_BYTES, noexec: false };

describe("the run's temporary folder", () => {
  it("goes to a tmpfs with room that lets programs run", () => {
    expect(whyNotTmpfs(roomy)).toBeUndefined();
  });

  it.each([
    [{ tmpdir: "/var/tmp" }, "TMPDIR is set"],
    [{ type: undefined }, "there is no /dev/shm"],
    [{ type: EXT4 }, "/dev/shm is not a tmpfs"],
    [{ noexec: true }, "/dev/shm is mounted noexec"],
    [{ free: 64 * 1024 ** 2 }, "/dev/shm has 0.1 GiB free, under 4"],
  ] as const)("stays in the system's when %o: %s", (change, why) => {
    expect(whyNotTmpfs({ ...roomy, ...change })).toBe(why);
  });

  it("is where this worker makes its temporary folders, when the setup chose a tmpfs", () => {
    const root = inject("tempRoot");
    if (root === null) {
      const why = inject("tempRootWhy");
      expect(why).toEqual(expect.any(String));
      // A reason that holds: the mount table agrees that /dev/shm is not a tmpfs.
      if (why === "/dev/shm is not a tmpfs") {
        const shm = readFileSync("/proc/self/mounts", "utf8")
          .split("\n")
          .map((line) => line.split(" "));
        expect(shm.filter(([, point, type]) => point === "/dev/shm" && type === "tmpfs")).toEqual([]);
      }
      return;
    }
    expect(root).toMatch(/^\/dev\/shm\/uedu-test-\d+$/);
    expect(tmpdir()).toBe(root);
    expect(statfsSync(root).type).toBe(TMPFS);
  });

  it("holds the run's module compile cache, which the Node processes it starts write to (Node 22.1 and later)", () => {
    const cache = inject("compileCache");
    if (cache === null) return; // NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE was set before the run
    expect(process.env.NODE_COMPILE_CACHE).toBe(cache);
    expect(dirname(cache)).toBe(tmpdir());
    expect(basename(cache)).toMatch(/^uedu-compile-cache-\d+$/);
    // Node 20 has no compile cache: the probe runs on the conformance suite's Node (24 in .ci/run) when one is
    // named. Other processes of the run write to the same folder meanwhile (that Node's among them), so the
    // test asks only that the folder grows.
    const node = "enableCompileCache" in nodeModule ? process.execPath : process.env.CONFORMANCE_NODE;
    if (node === undefined) return;
    // A module no process of the run loaded before: its compiled code is written as its process ends.
    const source = `export const stamp = ${JSON.stringify(`${process.pid}-${Date.now()}`)};\n`;
    const file = join(tmpdir(), `compile-cache-probe-${process.pid}-${Date.now()}.mjs`);
    writeFileSync(file, source);
    const entries = () => readdirSync(cache, { recursive: true }).length;
    try {
      const before = entries();
      execFileSync(node, [file]);
      expect(entries()).toBeGreaterThan(before);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
