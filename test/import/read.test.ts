/**
 * readExport (src/import/read.ts) over bytes as a file or a pipe delivers
 * them: any chunking, a byte-order mark, and a visitor that makes it wait.
 */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { type ExportVisitor, readExport } from "../../src/import/read.js";

const DOCUMENT = {
  format: "platform-export/1",
  universities: [{ id: 1, name_zh: "國立臺灣大學", name_en: 'National "Taiwan" University \\ 📐' }],
  courses: [],
  observations: [
    { station_id: "466920", observed_at: "2026-11-19T16:00:00Z", temp_c: 20.5, rh: 80 },
    { station_id: "moenv-1", observed_at: "2026-11-19T16:00:00Z", aqi: 48, note: null, list: [1, { a: true }] },
  ],
  exported_at: "2026-11-20T00:00:00Z",
};

/** What the visitor is told, in order. */
async function read(input: Readable, wait = false): Promise<unknown[]> {
  const seen: unknown[] = [];
  const visitor: ExportVisitor = {
    header: (key, value) => void seen.push(["header", key, value]),
    record: (section, index, value) => {
      seen.push([section, index, value]);
      // A batch being written: the next record must wait for it.
      if (wait) return new Promise<void>((resolve) => setTimeout(() => resolve(void seen.push("written")), 5));
    },
  };
  await readExport(input, visitor);
  return seen;
}

const bytes = Buffer.from(JSON.stringify(DOCUMENT));
const inChunks = (data: Buffer, size: number) =>
  Readable.from(
    Array.from({ length: Math.ceil(data.length / size) }, (_, i) => data.subarray(i * size, (i + 1) * size)),
    { objectMode: false },
  );

describe("readExport", () => {
  it("hands over each header and record in document order, with each section's index", async () => {
    expect(await read(inChunks(bytes, bytes.length))).toEqual([
      ["header", "format", "platform-export/1"],
      ["universities", 0, DOCUMENT.universities[0]],
      ["observations", 0, DOCUMENT.observations[0]],
      ["observations", 1, DOCUMENT.observations[1]],
      ["header", "exported_at", "2026-11-20T00:00:00Z"],
    ]);
  });

  it("reads the same whatever the chunks, a character's bytes or a token split between two", async () => {
    const whole = await read(inChunks(bytes, bytes.length));
    for (const size of [1, 2, 3, 7, 64]) expect(await read(inChunks(bytes, size)), `chunks of ${size} bytes`).toEqual(whole);
  });

  it("drops a UTF-8 byte-order mark at the start, as an editor on Windows may write one", async () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
    expect(await read(inChunks(withBom, 2))).toEqual(await read(inChunks(bytes, 2)));
  });

  it("waits for a visitor's promise before the next record", async () => {
    const seen = await read(inChunks(bytes, bytes.length), true);
    expect(
      seen.filter((s) => (Array.isArray(s) && s[0] !== "header" ? true : s === "written")).map((s) => (s === "written" ? s : "record")),
    ).toEqual(["record", "written", "record", "written", "record", "written"]);
  });

  it("counts the bytes read, chunk by chunk", async () => {
    const counts: number[] = [];
    await readExport(inChunks(bytes, 100), { header() {}, record() {}, bytes: (n) => counts.push(n) });
    expect(counts.at(-1)).toBe(bytes.length);
    expect(counts).toHaveLength(Math.ceil(bytes.length / 100));
  });
});
