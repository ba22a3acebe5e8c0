/**
 * The `taiwan` dataset (issue 54): the catalogue the seed describes at full
 * size, for the benchmarks and for tests at any smaller size. About 150
 * universities in Taiwan, each offering thousands of sections a semester,
 * kept over several years, is over a million public courses:
 * - 160 schools: the demo's 15, and 145 more placed over Taiwan with 6 to 14
 *   departments each;
 * - 1,000,000 public courses (and one in eleven private besides) over 10
 *   semesters, 110-1 to 114-2, growing; titles as varied as real ones,
 *   composed from each department's topics in Chinese and English;
 * - the demo's papers and conferences, 3,000 Packs;
 * - the seed's 1,215 weather and 84 air stations, with 90 days of hourly
 *   observations (2.8 million rows; `days: 0` leaves them out).
 *
 * Written as one export document (docs/contract.md §6) in chunks, never held
 * whole: `npm run demo-data -- --dataset taiwan` writes it for `npm run import`.
 */
import { Readable } from "node:stream";
import { aqiFromConcentrations, standardForCountry } from "../domain/environment/index.js";
import { EXPORT_FORMAT } from "../import/records.js";
import { streamCourses } from "./courses.js";
import { arrayChunks, chunked } from "./generate.js";
import { buildHubPacks } from "./packs.js";
import { buildConferences, buildPapers } from "./papers.js";
import { hashString, hashUnit, Rng } from "./random.js";
import { taiwanScale } from "./taiwan-scale.js";
import { floorHour, HOUR_MS, isoInstant } from "./time.js";
import type { ExportHubPack, ExportObservation, ExportStation } from "./types.js";
import { DEMO_UNIVERSITIES } from "./universities.js";

/** The ten semesters, oldest first, with their share of the courses (the platform grows). */
const SEMESTERS: ReadonlyArray<readonly [string, number]> = [
  ["110-1", 6],
  ["110-2", 7],
  ["111-1", 8],
  ["111-2", 9],
  ["112-1", 10],
  ["112-2", 11],
  ["113-1", 11],
  ["113-2", 12],
  ["114-1", 13],
  ["114-2", 13],
];

export interface TaiwanOptions {
  /** Seed of everything random (default 20240901, the demo's). */
  seed?: number;
  /** Public courses (default 1,000,000). */
  courses?: number;
  /** Schools, the demo's 15 among them (default 160). */
  schools?: number;
  /** Packs (default 3,000). */
  packs?: number;
  /** Days of hourly observations up to `now` (default 90; 0 for none). */
  days?: number;
  /** End of the observation window; truncated to the hour (default: the current hour). */
  now?: Date;
}

const DEFAULTS = { seed: 20240901, courses: 1_000_000, schools: 160, packs: 3_000, days: 90 };

/** The export's JSON text in chunks: a hundred records each, observations a thousand rows each. */
export function* taiwanExportChunks(options: TaiwanOptions = {}): Generator<string> {
  const o = { ...DEFAULTS, ...options };
  for (const [name, value, min] of [
    ["courses", o.courses, 0],
    ["schools", o.schools, DEMO_UNIVERSITIES.length],
    ["packs", o.packs, 0],
    ["days", o.days, 0],
  ] as const) {
    if (!Number.isInteger(value) || value < min) throw new RangeError(`${name} must be an integer of at least ${min}`);
  }
  const nowMs = floorHour((o.now ?? new Date()).getTime());
  // The draws of the bench's large set, so that its schools and stations are these.
  const random = new Rng(o.seed).derive("bench-large");
  const taiwan = taiwanScale(() => random.next());
  const universities = [...DEMO_UNIVERSITIES.map((u) => ({ ...u })), ...taiwan.schools(o.schools - DEMO_UNIVERSITIES.length, 1_000, "T")];
  const stations = taiwan.stations();
  yield `{"format":${JSON.stringify(EXPORT_FORMAT)},\n"exported_at":${JSON.stringify(isoInstant(nowMs))}`;
  yield* arrayChunks("universities", chunked(universities, 100));
  yield* arrayChunks("courses", chunked(streamCourses(o.seed, universities, { publicCount: o.courses, semesters: SEMESTERS }), 100));
  yield* arrayChunks("papers", chunked(buildPapers(), 100));
  yield* arrayChunks("conferences", chunked(buildConferences(), 100));
  yield* arrayChunks("hub_packs", chunked(packs(o.seed, nowMs, o.packs), 20));
  yield* arrayChunks("stations", chunked(stations, 100));
  yield* arrayChunks("observations", chunked(observations(o.seed, stations, nowMs, o.days), 1_000));
  yield "}\n";
}

/** The export as a byte stream (pulls chunks only as fast as the consumer reads). */
export function taiwanExportStream(options: TaiwanOptions = {}): Readable {
  return Readable.from(taiwanExportChunks(options), { objectMode: false });
}

/** `count` Packs: the demo's forty or so, drawn again with further seeds, with new ids. */
function* packs(seed: number, nowMs: number, count: number): Generator<ExportHubPack> {
  const ids = new Set<string>();
  for (let round = 0; ids.size < count; round++) {
    for (const pack of buildHubPacks(seed + round, nowMs)) {
      if (ids.size === count) return;
      if (ids.has(pack.id)) continue;
      ids.add(pack.id);
      yield pack;
    }
  }
}

/**
 * Hourly rows of every station over `days` up to `nowMs`: weather stations a
 * temperature on a daily swing, humidity and now and then rain; air stations
 * PM2.5, PM10 and the AQI Taiwan's standard gives them.
 */
function* observations(seed: number, stations: readonly ExportStation[], nowMs: number, days: number): Generator<ExportObservation> {
  const last = nowMs / HOUR_MS;
  const standard = standardForCountry("TW")!;
  const keys = stations.map((s) => hashString(s.id));
  for (let hour = last - days * 24 + 1; hour <= last; hour++) {
    const observed_at = isoInstant(hour * HOUR_MS);
    for (const [i, station] of stations.entries()) {
      const u = (n: number) => hashUnit(seed, keys[i]!, hour, n);
      if (station.kind === "weather") {
        const rain = u(3) < 0.1;
        yield {
          station_id: station.id,
          observed_at,
          temp_c: Math.round(10 * (20 + 6 * Math.sin((2 * Math.PI * (hour % 24)) / 24) + u(1))) / 10,
          rh: Math.round(70 + 20 * u(2)),
          precip_mm: rain ? Math.round(40 * u(4)) / 10 : 0,
        };
      } else {
        const pm25 = Math.round(10 * (10 + 20 * u(5))) / 10;
        const pm10 = Math.round(20 + 30 * u(6));
        yield {
          station_id: station.id,
          observed_at,
          pm25_ugm3: pm25,
          pm10_ugm3: pm10,
          aqi: aqiFromConcentrations(standard, { pm25, pm10 }),
        };
      }
    }
  }
}
