import { once } from "node:events";
import { Writable } from "node:stream";
import { setImmediate as tick } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { type ExportVisitor, readExport } from "../../src/import/read.js";
import {
  demoExportChunks,
  demoExportRecords,
  demoExportStream,
  observe,
  buildStations,
  DEMO_UNIVERSITIES,
  writeDemoExport,
} from "../../src/demo/index.js";

const NOW = new Date("2026-11-20T00:00:00Z");

function text(options: Parameters<typeof demoExportChunks>[0]): { text: string; chunks: string[] } {
  const chunks = [...demoExportChunks(options)];
  return { text: chunks.join(""), chunks };
}

describe("demo export document", () => {
  const first = text({ now: NOW });

  it("is one valid JSON document of the platform-export/1 format", () => {
    const doc = JSON.parse(first.text) as Record<string, unknown>;
    expect(doc.format).toBe("platform-export/1");
    expect(doc.exported_at).toBe("2026-11-20T00:00:00Z");
    expect(Object.keys(doc)).toEqual([
      "format",
      "exported_at",
      "universities",
      "courses",
      "papers",
      "conferences",
      "hub_packs",
      "stations",
      "observations",
    ]);
  });

  it("is byte-identical for the same seed and now", () => {
    expect(text({ now: NOW }).text).toBe(first.text);
  });

  it("truncates now to the hour", () => {
    expect(text({ now: new Date("2026-11-20T00:59:59.999Z"), days: 1 }).text).toBe(text({ now: NOW, days: 1 }).text);
  });

  it("depends on the seed", () => {
    expect(text({ now: NOW, seed: 2, days: 1 }).text).not.toBe(text({ now: NOW, days: 1 }).text);
  });

  it("is cut in chunks of at most 1 MB, observations 1000 rows at a time", () => {
    expect(first.chunks.length).toBeGreaterThan(50);
    for (const c of first.chunks) expect(Buffer.byteLength(c)).toBeLessThanOrEqual(1024 * 1024);
    const rowChunks = first.chunks.filter((c) => c.includes('"observed_at"'));
    expect(rowChunks.length).toBeGreaterThan(50);
    for (const c of rowChunks.slice(0, -1)) expect(c.split('"observed_at"').length - 1).toBe(1000);
  });

  it("differs only in timestamps when now changes", () => {
    const later = new Date(NOW.getTime() + 5 * 3_600_000);
    const a = JSON.parse(text({ now: NOW, days: 2 }).text);
    const b = JSON.parse(text({ now: later, days: 2 }).text);
    for (const key of ["universities", "courses", "papers", "conferences", "stations"]) expect(b[key]).toEqual(a[key]);
    const strip = (packs: { versions: { published_at?: string }[] }[]) =>
      packs.map((p) => ({ ...p, versions: p.versions.map(({ published_at: _, ...v }) => v) }));
    expect(strip(b.hub_packs)).toEqual(strip(a.hub_packs));
    // The same instant carries the same values whatever the window.
    const key = (o: { station_id: string; observed_at: string }) => `${o.station_id}@${o.observed_at}`;
    const older = new Map<string, unknown>(a.observations.map((o: { station_id: string; observed_at: string }) => [key(o), o]));
    let shared = 0;
    for (const o of b.observations) {
      if (older.has(key(o))) {
        shared++;
        expect(o).toEqual(older.get(key(o)));
      }
    }
    expect(shared).toBeGreaterThan(1000);
  });

  it("observe() is a pure function of seed, station and hour", () => {
    const stations = buildStations(3, DEMO_UNIVERSITIES);
    const s = stations[0]!;
    expect(observe(3, s, 500_000)).toEqual(observe(3, s, 500_000));
  });

  it("writeDemoExport respects backpressure and writes the same bytes", async () => {
    const parts: Buffer[] = [];
    let maxBuffered = 0;
    const out = new Writable({
      highWaterMark: 64 * 1024,
      write(chunk: Buffer, _enc, cb) {
        parts.push(chunk);
        maxBuffered = Math.max(maxBuffered, this.writableLength);
        void tick().then(() => cb());
      },
    });
    let drains = 0;
    out.on("drain", () => drains++);
    const stats = await writeDemoExport(out, { now: NOW });
    out.end();
    await once(out, "finish");
    const written = Buffer.concat(parts).toString("utf8");
    expect(written).toBe(first.text);
    expect(stats.bytes).toBe(Buffer.byteLength(first.text));
    expect(stats.chunks).toBe(first.chunks.length);
    expect(drains).toBeGreaterThan(10);
    expect(maxBuffered).toBeLessThan(2 * 1024 * 1024);
  });

  it("demoExportStream yields the same document", async () => {
    const parts: Buffer[] = [];
    for await (const chunk of demoExportStream({ now: NOW, days: 1 })) parts.push(Buffer.from(chunk as Buffer));
    expect(Buffer.concat(parts).toString("utf8")).toBe(text({ now: NOW, days: 1 }).text);
  });

  it("demoExportRecords hands an import the same headers and records, in the same order, as reading its text", async () => {
    /** Each call a visitor receives, as `[kind, section or key, index, value]`. */
    const calls = (into: unknown[][]): ExportVisitor => ({
      header: (key, value) => void into.push(["header", key, value]),
      record: (section, index, value) => void into.push(["record", section, index, value]),
    });
    const fromText: unknown[][] = [];
    const fromRecords: unknown[][] = [];
    await readExport(demoExportStream({ now: NOW, days: 2 }), calls(fromText));
    await demoExportRecords({ now: NOW, days: 2 }).visit(calls(fromRecords));
    expect(fromText.length).toBeGreaterThan(5_000);
    // Strictly: a field the text would drop (undefined) or change (a Date, NaN) would differ here.
    expect(fromRecords).toStrictEqual(fromText);
  });

  it("demoExportRecords waits for what the visitor returns before handing over the next record", async () => {
    let pending = 0;
    let seen = 0;
    await demoExportRecords({ now: NOW, days: 1 }).visit({
      header: () => undefined,
      record: () => {
        expect(pending).toBe(0);
        seen++;
        if (seen % 500 !== 0) return;
        pending++;
        return tick().then(() => void pending--);
      },
    });
    expect(seen).toBeGreaterThan(1_000);
  });

  it("rejects bad options", () => {
    expect(() => [...demoExportChunks({ days: 0 })]).toThrow(/days/);
    expect(() => [...demoExportChunks({ now: new Date("nope") })]).toThrow(/now/);
  });
});
