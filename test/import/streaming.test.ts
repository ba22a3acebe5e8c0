/**
 * A large export streams: 200,000 observations (over 200 MB of JSON, built
 * chunk by chunk by a generator) import with the heap staying bounded.
 */
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { importExport, type ImportProgress } from "../../src/import/apply.js";
import { freshPGlite } from "../support/databases.js";
import { generatedExport } from "./helpers.js";

const STATIONS = 50;
const HOURS = 4_000;
const PADDING = 1_000; // an unknown field per observation: the importer must ignore it, and not hold it
const MB = 1024 * 1024;

let db: Database;
beforeAll(async () => {
  db = await freshPGlite();
}, 60_000);
afterAll(async () => {
  await db?.close();
});

describe("a large export", () => {
  it("imports 200,000 observations with the heap bounded", async () => {
    const source = generatedExport(STATIONS, HOURS, PADDING);
    let bytes = 0;
    let peak = 0;
    const sample = () => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    };
    const counted = Readable.from(
      (async function* () {
        for await (const chunk of source) {
          bytes += Buffer.byteLength(chunk as string);
          sample();
          yield chunk;
        }
      })(),
      { objectMode: false },
    );
    const progress: ImportProgress[] = [];
    const start = process.memoryUsage().heapUsed;
    const timer = setInterval(sample, 25);
    try {
      const summary = await importExport(db, counted, {
        onProgress: (p) => {
          sample();
          progress.push(p);
        },
      });
      expect(summary).toMatchObject({ universities: 3, stations: STATIONS, observations: STATIONS * HOURS });
    } finally {
      clearInterval(timer);
    }

    expect(bytes).toBeGreaterThan(200 * MB);
    expect(peak - start).toBeLessThan(150 * MB);
    expect(progress.filter((p) => p.section === "observations").map((p) => p.records)).toEqual([
      50_000, 100_000, 150_000, 200_000, 200_000,
    ]);
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
