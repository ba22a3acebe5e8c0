/**
 * A large export streams: 200,000 observations (over 200 MB of JSON, built
 * chunk by chunk by a generator) import with the heap staying bounded.
 *
 * What is bounded is the live heap, measured after a full collection. The
 * heap in use without one counts garbage awaiting collection, which depends
 * on the V8 version, not on the importer: its peak was under 150 MB on Node
 * 20 and 170 to 210 MB on Node 24, for a live heap of 2 to 4 MB on both. An
 * importer that kept the text it read (simulated by keeping each chunk as a
 * string) peaks at 213 MB live.
 */
import { Readable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { importExport } from "../../src/import/apply.js";
import type { Progress } from "../../src/observe/progress.js";
import { freshDatabase } from "../support/databases.js";
import { generatedExport } from "./helpers.js";

const STATIONS = 50;
const HOURS = 4_000;
const PADDING = 1_000; // an unknown field per observation: the importer must ignore it, and not hold it
const MB = 1024 * 1024;

setFlagsFromString("--expose-gc");
/** A full collection (the flag above makes `gc` exist in contexts made after it). */
const collect = runInNewContext("gc") as () => void;

let db: Database;
beforeAll(async () => {
  db = await freshDatabase();
}, 60_000);
afterAll(async () => {
  await db?.close();
});

describe("a large export", () => {
  it("imports 200,000 observations with the heap bounded", async () => {
    const source = generatedExport(STATIONS, HOURS, PADDING);
    let bytes = 0;
    let peak = 0;
    let chunks = 0;
    const sample = () => {
      collect();
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    };
    const counted = Readable.from(
      (async function* () {
        for await (const chunk of source) {
          bytes += Buffer.byteLength(chunk as string);
          if (++chunks % 100 === 0) sample();
          yield chunk;
        }
      })(),
      { objectMode: false },
    );
    // What the importer tells of its progress, as it tells it.
    const phases: { name: string; total: number | null | undefined; unit?: string }[] = [];
    const done: number[] = [];
    let observationsCounted = 0;
    const progress: Progress = {
      phase: (name, options) => phases.push({ name, total: options?.total, unit: options?.unit }),
      set: (n) => {
        done.push(n);
      },
      rows: (section, n) => {
        if (section === "observations") observationsCounted = n;
      },
    };
    collect();
    const start = process.memoryUsage().heapUsed;
    const timer = setInterval(sample, 500);
    try {
      const summary = await importExport(db, counted, { progress, size: 123 });
      expect(summary).toMatchObject({ universities: 3, stations: STATIONS, observations: STATIONS * HOURS });
    } finally {
      clearInterval(timer);
    }

    expect(bytes).toBeGreaterThan(200 * MB);
    expect(peak - start).toBeLessThan(50 * MB);
    expect(phases).toEqual([
      { name: "validating", total: 123, unit: "bytes" },
      { name: "checking references", total: undefined, unit: undefined },
      { name: "writing", total: 3 + STATIONS + STATIONS * HOURS, unit: "rows" },
      { name: "committing", total: undefined, unit: undefined },
    ]);
    expect(observationsCounted).toBe(STATIONS * HOURS);
    // Bytes read while validating, a chunk at a time, up to the whole export; then rows written, up to all of them.
    const bytesTold = done.slice(0, done.indexOf(bytes) + 1);
    expect(bytesTold.length).toBeGreaterThan(100);
    expect(bytesTold).toEqual([...bytesTold].sort((a, b) => a - b));
    expect(done.slice(bytesTold.length).at(-1)).toBe(3 + STATIONS + STATIONS * HOURS);
    expect(await db.query(`SELECT count(*)::int AS n, count(DISTINCT station_id)::int AS s FROM observation`)).toEqual([
      { n: 200_000, s: STATIONS },
    ]);
    expect(
      await db.query(
        `SELECT pm25_ugm3, aqi, temp_c FROM observation WHERE station_id = 'st-7' AND observed_at = '2026-01-01T00:00:00Z'::timestamptz + interval '1234 hours'`,
      ),
    ).toEqual([{ pm25_ugm3: (1234 + 7) % 80, aqi: (1234 * 7) % 200, temp_c: null }]);
  }, 120_000);
});
