/**
 * The process logger's batched standard output (src/logger.ts): lines wait
 * for a batch or the next flush, a full batch goes at once in whole lines,
 * and what waits is written when the process exits.
 */
import { execFile } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { BATCH_BYTES, batchedDestination, createLogger, FLUSH_MS } from "../../src/logger.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A logger writing to a file of its own, and the lines the file holds so far. */
function fileLogger() {
  const dir = mkdtempSync(join(tmpdir(), "uedu-log-"));
  dirs.push(dir);
  const path = join(dir, "log");
  const fd = openSync(path, "w");
  const log = createLogger("info", batchedDestination(fd));
  const lines = () =>
    readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => line !== "");
  return { log, lines, close: () => closeSync(fd) };
}

describe("the logger's output", () => {
  it("holds a few lines until the next flush, then writes them", async () => {
    const { log, lines, close } = fileLogger();
    for (let i = 0; i < 3; i++) log.info({ i }, "request");
    // Well before the flush: a line written one by one would be in the file by now.
    await sleep(FLUSH_MS / 3);
    expect(lines()).toEqual([]);
    await sleep(FLUSH_MS * 5);
    expect(lines().map((line) => JSON.parse(line).i)).toEqual([0, 1, 2]);
    close();
  });

  it("writes a full batch at once, in whole lines, and the rest by the flush", async () => {
    const { log, lines, close } = fileLogger();
    const filler = "x".repeat(280);
    const count = Math.ceil((BATCH_BYTES * 2) / 300);
    for (let i = 0; i < count; i++) log.info({ i, filler }, "request");
    await sleep(FLUSH_MS / 3);
    const early = lines();
    expect(early.length).toBeGreaterThan(0);
    expect(early.length).toBeLessThan(count);
    for (const line of early) expect(JSON.parse(line).filler).toBe(filler);
    await sleep(FLUSH_MS * 5);
    expect(lines().map((line) => JSON.parse(line).i)).toEqual([...Array(count).keys()]);
    close();
  });

  it("writes what waits at once when the logger is flushed", async () => {
    const { log, lines, close } = fileLogger();
    log.info({ i: 0 }, "request");
    log.flush();
    await sleep(FLUSH_MS / 3);
    expect(lines().map((line) => JSON.parse(line).i)).toEqual([0]);
    close();
  });

  it("writes what waits when the process exits", async () => {
    const script = `
      import { createLogger } from "./src/logger.ts";
      const log = createLogger("info");
      log.info({ last: true }, "stopped");
      process.exit(0);`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: process.cwd(),
    });
    expect(
      stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).msg),
    ).toEqual(["stopped"]);
  });
});
