import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import type { ExportRecords } from "../import/read.js";
import { EXPORT_FORMAT, type SectionName } from "../import/records.js";
import { buildCourses } from "./courses.js";
import { observationBatches } from "./observations.js";
import { buildHubPacks } from "./packs.js";
import { buildConferences, buildPapers } from "./papers.js";
import { buildStations } from "./stations.js";
import { floorHour, isoInstant } from "./time.js";
import type {
  DemoExportOptions,
  ExportConference,
  ExportCourse,
  ExportHubPack,
  ExportObservation,
  ExportPaper,
  ExportStation,
  ExportUniversity,
} from "./types.js";
import { DEMO_UNIVERSITIES } from "./universities.js";

const DEMO_DEFAULT_SEED = 20240901;
const DEMO_DEFAULT_DAYS = 35;
/** Observation rows per yielded chunk. */
const OBSERVATION_ROWS_PER_CHUNK = 1000;
/** Records of the other arrays per yielded chunk. */
const RECORDS_PER_CHUNK = 100;

export interface ResolvedDemoOptions {
  seed: number;
  /** Start of the current hour (or of the hour of options.now), ms since the epoch. */
  nowMs: number;
  days: number;
}

function resolveDemoOptions(options: DemoExportOptions = {}): ResolvedDemoOptions {
  const seed = options.seed ?? DEMO_DEFAULT_SEED;
  const days = options.days ?? DEMO_DEFAULT_DAYS;
  const now = options.now ?? new Date();
  if (!Number.isInteger(seed)) throw new RangeError("seed must be an integer");
  if (!Number.isInteger(days) || days < 1 || days > 400) throw new RangeError("days must be an integer from 1 to 400");
  if (Number.isNaN(now.getTime())) throw new RangeError("now must be a valid date");
  return { seed: seed >>> 0, nowMs: floorHour(now.getTime()), days };
}

/** Everything of the export except observations, which stay lazy. */
export interface DemoDataset {
  format: typeof EXPORT_FORMAT;
  exported_at: string;
  universities: ExportUniversity[];
  courses: ExportCourse[];
  papers: ExportPaper[];
  conferences: ExportConference[];
  hub_packs: ExportHubPack[];
  stations: ExportStation[];
  /** Observation rows, oldest hour first, in batches (generated on demand, never all held at once). */
  observationBatches(batchSize?: number): Generator<ExportObservation[]>;
}

export function buildDemoDataset(options: DemoExportOptions = {}): DemoDataset {
  const { seed, nowMs, days } = resolveDemoOptions(options);
  const universities = DEMO_UNIVERSITIES.map((u) => ({ ...u }));
  const stations = buildStations(seed, universities);
  return {
    format: EXPORT_FORMAT,
    exported_at: isoInstant(nowMs),
    universities,
    courses: buildCourses(seed, universities),
    papers: buildPapers(),
    conferences: buildConferences(),
    hub_packs: buildHubPacks(seed, nowMs),
    stations: stations.map((s) => s.station),
    observationBatches: (batchSize = OBSERVATION_ROWS_PER_CHUNK) => observationBatches(seed, stations, nowMs, days, batchSize),
  };
}

/**
 * The JSON text of one export document, in chunks: the header, then each
 * array a hundred records at a time, then the observations a thousand rows
 * per chunk. The concatenation is one valid JSON document.
 */
export function* demoExportChunks(options: DemoExportOptions = {}): Generator<string> {
  const data = buildDemoDataset(options);
  yield `{"format":${JSON.stringify(data.format)},\n"exported_at":${JSON.stringify(data.exported_at)}`;
  for (const [section, batches] of sectionBatches(data)) yield* arrayChunks(section, batches);
  yield "}\n";
}

/** Each record section of the export, in the document's order, as batches of its records (a chunk of text each). */
function sectionBatches(data: DemoDataset): [SectionName, Iterable<readonly unknown[]>][] {
  return [
    ["universities", chunked(data.universities, RECORDS_PER_CHUNK)],
    ["courses", chunked(data.courses, RECORDS_PER_CHUNK)],
    ["papers", chunked(data.papers, RECORDS_PER_CHUNK)],
    ["conferences", chunked(data.conferences, RECORDS_PER_CHUNK)],
    ["hub_packs", chunked(data.hub_packs, 20)],
    ["stations", chunked(data.stations, RECORDS_PER_CHUNK)],
    ["observations", data.observationBatches(OBSERVATION_ROWS_PER_CHUNK)],
  ];
}

/** `items` (an array, or a generator too large to hold) in batches of `size`. */
export function* chunked<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let batch: T[] = [];
  for (const item of items) {
    batch.push(item);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

/** The JSON text of one member of the export, `,"key":[…]`, a batch of records per chunk. */
export function* arrayChunks(key: string, batches: Iterable<readonly unknown[]>): Generator<string> {
  let first = true;
  let opened = false;
  for (const batch of batches) {
    if (batch.length === 0) continue;
    const body = batch.map((record) => JSON.stringify(record)).join(",\n");
    yield `${opened ? "" : `,\n${JSON.stringify(key)}:[`}${first ? "\n" : ",\n"}${body}`;
    first = false;
    opened = true;
  }
  yield opened ? "\n]" : `,\n${JSON.stringify(key)}:[]`;
}

/**
 * The same export as `demoExportChunks`, as records handed straight to an
 * import (`importExport`): the gateway's first start stores the demo data
 * without writing its JSON text and parsing it back, which was about a third
 * of that import's CPU. Each record is a plain JSON value, equal to what the
 * text gives (test/demo/export.test.ts).
 */
export function demoExportRecords(options: DemoExportOptions = {}): ExportRecords {
  return {
    async visit(visitor) {
      const data = buildDemoDataset(options);
      await visitor.header("format", data.format);
      await visitor.header("exported_at", data.exported_at);
      for (const [section, batches] of sectionBatches(data)) {
        let index = 0;
        for (const batch of batches) {
          for (const record of batch) {
            // A promise only when a batch is being written: awaited then, and only then.
            const pending = visitor.record(section, index++, record);
            if (pending) await pending;
          }
        }
      }
    },
  };
}

/** The export as a byte stream (pulls chunks only as fast as the consumer reads). */
export function demoExportStream(options: DemoExportOptions = {}): Readable {
  return Readable.from(demoExportChunks(options), { objectMode: false });
}

export interface DemoWriteStats {
  chunks: number;
  bytes: number;
}

/** Writes the export to `out`, waiting for 'drain' whenever the stream asks to. Does not end `out`. */
export function writeDemoExport(out: NodeJS.WritableStream, options: DemoExportOptions = {}): Promise<DemoWriteStats> {
  return writeChunks(out, demoExportChunks(options));
}

/** Writes an export's chunks to `out`, waiting for 'drain' whenever the stream asks to. Does not end `out`. */
async function writeChunks(out: NodeJS.WritableStream, exportChunks: Iterable<string>, stopped = () => false): Promise<DemoWriteStats> {
  let chunks = 0;
  let bytes = 0;
  for (const chunk of exportChunks) {
    if (stopped()) break;
    chunks++;
    bytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await drained(out);
  }
  return { chunks, bytes };
}

function drained(out: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: unknown): void => {
      out.off("drain", onDrain);
      out.off("error", onError);
      out.off("close", onClose);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = (): void => done();
    const onError = (err: unknown): void => done(err ?? new Error("stream error"));
    const onClose = (): void => done(new Error("stream closed before the export was written"));
    out.on("drain", onDrain);
    out.on("error", onError);
    out.on("close", onClose);
  });
}

/** Writes the demo export to a file (or to standard output for "-"). */
export function writeDemoExportFile(path: string, options: DemoExportOptions = {}): Promise<DemoWriteStats> {
  return writeExportFile(path, demoExportChunks(options));
}

/**
 * Writes an export's chunks (the demo's, the taiwan dataset's) to a file, or
 * to standard output for "-". A reader that stops early (`| head`) closes the
 * pipe: the export ends there, as a Unix filter's output does, with no error.
 */
export async function writeExportFile(path: string, exportChunks: Iterable<string>): Promise<DemoWriteStats> {
  if (path === "-") {
    let closed = false;
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code === "EPIPE") closed = true;
    };
    process.stdout.on("error", onError);
    try {
      return await writeChunks(process.stdout, exportChunks, () => closed);
    } catch (err) {
      if (closed) return { chunks: 0, bytes: 0 };
      throw err;
    } finally {
      process.stdout.off("error", onError);
    }
  }
  const out = createWriteStream(path);
  try {
    const stats = await writeChunks(out, exportChunks);
    out.end();
    await once(out, "finish");
    return stats;
  } catch (err) {
    out.destroy();
    throw err;
  }
}
