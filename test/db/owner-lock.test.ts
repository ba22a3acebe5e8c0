/** The owner lock of a PGlite DATA_DIR (src/db/owner.ts), in one process: what counts as a live owner. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { claim, LOCK_FILE, ownerOf, startTicksOf } from "../../src/db/owner.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "owner-lock-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (content: string) => writeFileSync(join(dir, LOCK_FILE), content);

it("takes a free directory, records pid and start time, and gives it back", () => {
  const claimed = claim(dir, "import");
  expect(claimed.held).toBe(true);
  const info = JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8"));
  expect(info).toMatchObject({ pid: process.pid, role: "import", socket: null });
  expect(info.startTicks).toBe(startTicksOf(process.pid));
  expect(ownerOf(dir)?.pid).toBe(process.pid);
  if (claimed.held) claimed.release();
  expect(readdirSync(dir)).toEqual([]);
  expect(ownerOf(dir)).toBeNull();
});

it("a live owner keeps it", () => {
  const first = claim(dir, "db:carry-over");
  const second = claim(dir, "db:carry-over");
  expect(second).toEqual({ held: false, owner: expect.objectContaining({ pid: process.pid, role: "db:carry-over", socket: null }) });
  if (first.held) first.release();
});

it("a recycled pid (same pid, another start time) is not the owner", () => {
  write(JSON.stringify({ pid: process.pid, startTicks: (startTicksOf(process.pid) ?? 0) + 1, role: "gateway", socket: null, since: "" }));
  expect(ownerOf(dir)).toBeNull();
  const claimed = claim(dir, "keys");
  expect(claimed.held).toBe(true);
  expect(readdirSync(dir)).toEqual([LOCK_FILE]); // the stale one is not left aside
});

it("a lock torn by a crash while it was written is taken over", () => {
  write('{"pid": 12');
  expect(claim(dir, "import").held).toBe(true);
});
