/**
 * What every agency adapter turns its payload into: stations and
 * observations in the platform export's own record shapes, validated by the
 * importer's own rules (src/import/records.ts), and the records it could not
 * use, each with its position in the payload and the reason.
 *
 * Unlike the platform export, a feed is not all or nothing: one station's
 * broken sensor must not stop a country's feed, so a bad record is skipped
 * and reported while the rest is kept.
 */
import type { StationKind, StationSource } from "../generated/prisma/enums.js";
import { checkRecord, type Problem, type Stored } from "../import/records.js";

/** The observation fields a feed may set; those a source does not report are left as they are stored. */
export type ObservationField = Exclude<keyof Stored<"observations">, "station_id" | "observed_at">;

export interface FeedItem {
  /** Where the record stands in the payload, like `records.Station[12]`. */
  position: string;
  station: Stored<"stations">;
  observation: Stored<"observations">;
  /** Millimetres since local midnight (CWA), turned into the hour's `precip_mm` when stored. */
  precipRunningTotalMm?: number | null;
}

/** A record left out, and why. */
export interface Skipped {
  position: string;
  /** A short reason, the same for every record skipped alike: the summary counts by it. */
  reason: string;
  /** What exactly was wrong with this record. */
  detail: string;
}

/** One payload of one agency, read. */
export interface Feed {
  source: StationSource;
  /** How many records the payload held. */
  read: number;
  /** The observation fields this source reports. */
  fields: readonly ObservationField[];
  items: FeedItem[];
  skipped: Skipped[];
}

/** A payload that is not what its agency sends at all (nothing is stored). */
export class FeedError extends Error {
  override name = "FeedError";
}

/** The source, kind and country of every station a source reports: what a station record takes from its feed. */
export const SOURCE_STATIONS: { [S in StationSource]: { source: S; kind: StationKind; country: "TW" | "US" } } = {
  cwa: { source: "cwa", kind: "weather", country: "TW" },
  moenv: { source: "moenv", kind: "air", country: "TW" },
  nws: { source: "nws", kind: "weather", country: "US" },
  airnow: { source: "airnow", kind: "air", country: "US" },
};

/** A value read from a payload, or why it could not be. */
export type Read<T> = { ok: true; value: T } | { ok: false; reason: string; detail: string };

export const skip = (reason: string, detail: string): { ok: false; reason: string; detail: string } => ({ ok: false, reason, detail });

/**
 * A number that may come as a number or as its decimal text; `missing`
 * values (`""`, a sentinel like CWA's -99) and null or absent are null.
 */
export function numberOf(field: string, value: unknown, missing: readonly (string | number)[] = []): Read<number | null> {
  if (value === null || value === undefined) return { ok: true, value: null };
  if (typeof value === "string") {
    const text = value.trim();
    if (text === "" || missing.includes(text)) return { ok: true, value: null };
    const n = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isFinite(n)) return skip("not a number", `${field}: not a number: ${JSON.stringify(value)}`);
    return { ok: true, value: missing.includes(n) ? null : n };
  }
  if (typeof value === "number" && Number.isFinite(value)) return { ok: true, value: missing.includes(value) ? null : value };
  return skip("not a number", `${field}: not a number: ${JSON.stringify(value)}`);
}

/**
 * Where the fields of a station and its observation came from in the
 * agency's record (`observation.observed_at` from `publishtime`), so that a
 * value the platform's rules refuse is reported by the agency's own field
 * name and value.
 */
export type Origins = Partial<Record<`station.${string}` | `observation.${string}`, { field: string; value: unknown }>>;

/**
 * Validates a station and its observation by the platform export's rules.
 * A refused value is named as the agency sent it (`publishtime: not a time:
 * "2026/13/45 25:00:00"`) where `origins` says where it came from, and by the
 * platform's field otherwise.
 */
export function checkItem(
  position: string,
  station: Record<string, unknown>,
  observation: Record<string, unknown>,
  origins: Origins,
  precipRunningTotalMm?: number | null,
): Read<FeedItem> {
  const s = checkRecord("stations", "station", station);
  if (!s.ok) return refused("invalid station", s, origins[`station.${s.field ?? ""}`]);
  const o = checkRecord("observations", "observation", { station_id: s.record.id, ...observation });
  if (!o.ok) return refused("invalid observation", o, origins[`observation.${o.field ?? ""}`]);
  const item: FeedItem = { position, station: s.record, observation: o.record };
  if (precipRunningTotalMm !== undefined) item.precipRunningTotalMm = precipRunningTotalMm;
  return { ok: true, value: item };
}

function refused(reason: string, problem: Problem, origin: Origins[keyof Origins]) {
  if (!origin) return skip(reason, problem.problem);
  if (problem.field === "observed_at") return skip("bad time", `${origin.field}: not a time: ${JSON.stringify(origin.value ?? null)}`);
  return skip(reason, `${origin.field}: ${problem.message}: ${JSON.stringify(origin.value ?? null)}`);
}

/**
 * The records of a payload: the array at the path `keys`, or (where the
 * agency sends one, `bare`) the payload itself when it is an array.
 */
export function recordsOf(payload: unknown, keys: readonly string[], what: string, bare = false): { list: unknown[]; at: string } {
  if (bare && Array.isArray(payload)) return { list: payload, at: "" };
  let node: unknown = payload;
  for (const key of keys) node = isObject(node) ? node[key] : undefined;
  if (!Array.isArray(node)) {
    throw new FeedError(
      `not ${what}: expected ${keys.length ? `${keys.join(".")} to be an array` : "an array"}${bare && keys.length ? ", or an array" : ""}`,
    );
  }
  return { list: node, at: keys.join(".") };
}

/**
 * A feed of `source` from a payload's records: `readOne` reads each, given
 * its position (`records.Station[12]`); what it cannot read is skipped.
 */
export function feedOf(
  source: StationSource,
  fields: readonly ObservationField[],
  { list, at }: { list: unknown[]; at: string },
  readOne: (where: string, raw: unknown) => Read<FeedItem>,
): Feed {
  const feed: Feed = { source, read: list.length, fields, items: [], skipped: [] };
  list.forEach((raw, i) => {
    const where = `${at}[${i}]`;
    const item = readOne(where, raw);
    if (item.ok) feed.items.push(item.value);
    else feed.skipped.push({ position: where, reason: item.reason, detail: item.detail });
  });
  return feed;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
