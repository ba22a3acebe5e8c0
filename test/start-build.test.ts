/**
 * `npm start` runs the built JavaScript of dist/, built first whenever the
 * sources changed since (scripts/built.mjs): once per change, under a lock
 * that starts in one folder share, and again after a failed build. The build
 * here is a stand-in that writes dist/ and counts itself; the newcomer's path
 * (test/newcomer.test.ts) runs the real one through `npm start` as written.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "./support/temp.js";

const BUILT = new URL("../scripts/built.mjs", import.meta.url).href;
const { ensureBuilt, sourcesDigest } = (await import(BUILT)) as {
  ensureBuilt(root: string, say: (what: string) => void, build?: (root: string) => number | null): void;
  sourcesDigest(root: string): string;
};

let root: string;
let builds: number;
const said: string[] = [];
/** A build that writes dist/ as scripts/build.mjs does, and counts itself. */
const build =
  (status = 0) =>
  (at: string) => {
    builds++;
    if (status !== 0) return status;
    rmSync(join(at, "dist"), { recursive: true, force: true });
    mkdirSync(join(at, "dist", "src"), { recursive: true });
    writeFileSync(join(at, "dist", "src", "main.js"), "");
    return 0;
  };

beforeEach(() => {
  root = tempDir("start-build-");
  builds = 0;
  said.length = 0;
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "src", "main.ts"), "export {};\n");
  writeFileSync(join(root, "tsconfig.json"), "{}\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the build npm start runs", () => {
  it("is made on the first start, not again while the sources stay, and again once one changes", () => {
    const say = (what: string) => said.push(what);
    ensureBuilt(root, say, build());
    expect(builds).toBe(1);
    expect(said).toEqual([expect.stringMatching(/^building dist\/ from the sources/)]);
    expect(readFileSync(join(root, "dist", ".sources"), "utf8")).toBe(sourcesDigest(root));
    ensureBuilt(root, say, build());
    expect(builds).toBe(1);
    writeFileSync(join(root, "src", "main.ts"), "export const changed = 1;\n");
    ensureBuilt(root, say, build());
    expect(builds).toBe(2);
    // A file that is no source of the build changes nothing.
    writeFileSync(join(root, "README.md"), "# notes\n");
    ensureBuilt(root, say, build());
    expect(builds).toBe(2);
    // A change to how the build compiles does: the rewrite of Prisma's query compiler loader, say.
    mkdirSync(join(root, "scripts"));
    writeFileSync(join(root, "scripts", "query-compiler.mjs"), "export {};\n");
    ensureBuilt(root, say, build());
    expect(builds).toBe(3);
    // Nor does a build whose entry is gone count as one.
    rmSync(join(root, "dist", "src", "main.js"));
    ensureBuilt(root, say, build());
    expect(builds).toBe(4);
  });

  it("says a failed build with its exit status, leaves no lock and no stamp, and tries again at the next start", () => {
    expect(() => ensureBuilt(root, () => undefined, build(2))).toThrow(
      expect.objectContaining({ message: "the build failed (exit 2)", exitCode: 2 }),
    );
    expect(existsSync(join(root, "dist.lock"))).toBe(false);
    expect(existsSync(join(root, "dist", ".sources"))).toBe(false);
    ensureBuilt(root, () => undefined, build());
    expect(builds).toBe(2);
  });

  it("takes over the lock of a start that died while building", () => {
    mkdirSync(join(root, "dist.lock"));
    writeFileSync(join(root, "dist.lock", "pid"), "2147483646");
    ensureBuilt(root, () => undefined, build());
    expect(builds).toBe(1);
    expect(existsSync(join(root, "dist.lock"))).toBe(false);
  });

  it("builds once when starts in one folder begin together", async () => {
    const count = join(root, "builds.txt");
    writeFileSync(count, "");
    // Each process's build takes a while, appends a line, and writes dist/ as the real one does.
    const script = `
      import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
      import { join } from "node:path";
      const { ensureBuilt } = await import(${JSON.stringify(BUILT)});
      ensureBuilt(process.argv[1], () => {}, (at) => {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
        appendFileSync(${JSON.stringify(count)}, "built\\n");
        mkdirSync(join(at, "dist", "src"), { recursive: true });
        writeFileSync(join(at, "dist", "src", "main.js"), "");
        return 0;
      });`;
    const run = () =>
      new Promise<number | null>((resolve) =>
        spawn(process.execPath, ["--input-type=module", "-e", script, root], { stdio: "inherit" }).on("close", resolve),
      );
    expect(await Promise.all([run(), run(), run()])).toEqual([0, 0, 0]);
    expect(readFileSync(count, "utf8")).toBe("built\n");
  });
});
