/**
 * Stores one agency feed (./feed.ts) in one transaction: upserts its stations
 * and the observation fields its source reports, turns CWA's running
 * precipitation totals into hourly amounts, ranks the stations around every
 * school again when a station is new or has moved, rebuilds the daily
 * aggregates of the dates it touched, and tells every gateway that the data
 * changed. The same feed twice changes nothing the second time.
 */
import { announceChange } from "../db/changes.js";
import type { Database } from "../db/driver.js";
import type { Progress } from "../observe/progress.js";
import { type HourAtMidnight, hourlyAmount, midnightOfHour } from "../domain/environment/index.js";
import { rebuildStationDaysOf } from "../import/daily.js";
import { refreshRankings } from "../import/stations.js";
import type { Feed, FeedItem, ObservationField, Skipped } from "./feed.js";

type Tx = Pick<Database, "exec" | "query">;

const HOUR_MS = 3_600_000;
/** The time zone of CWA's running totals: they restart at midnight in Taiwan. */
const CWA_TIME_ZONE = "Asia/Taipei";
const CHUNK = 2000;

/** What one feed did. */
export interface IngestSummary {
  source: Feed["source"];
  /** Records the payload held. */
  read: number;
  /** Observations written (new, or with a value that changed). */
  stored: number;
  /** Observations already stored exactly so. */
  unchanged: number;
  /** Stations new to the database, and stations whose name or position changed. */
  stations: { added: number; changed: number };
  /** Later hours whose precipitation this feed's totals made known. */
  completed: number;
  /** Records left out, by reason. */
  skipped: Record<string, number>;
  /** Every record left out, with its position and what was wrong. */
  problems: Skipped[];
}

const keyOf = (stationId: string, at: Date | number) => `${stationId}\u0000${typeof at === "number" ? at : at.getTime()}`;

/** Runs `sql` on `rows` (one jsonb parameter, $1) a chunk at a time, and returns what it returned. */
async function inChunks<R>(tx: Tx, sql: string, rows: readonly object[]): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(...(await tx.query<R>(sql, [JSON.stringify(rows.slice(i, i + CHUNK))])));
  return out;
}

/** Keeps the first record of each station and instant; the others are reported as duplicates. */
function unique(feed: Feed): { items: FeedItem[]; duplicates: Skipped[] } {
  const first = new Map<string, FeedItem>();
  const duplicates: Skipped[] = [];
  for (const item of feed.items) {
    const key = keyOf(item.observation.station_id, item.observation.observed_at);
    const earlier = first.get(key);
    if (earlier) {
      duplicates.push({ position: item.position, reason: "duplicate", detail: `same station and time as ${earlier.position}` });
    } else first.set(key, item);
  }
  return { items: [...first.values()], duplicates };
}

/** Upserts the stations; counts those added and those whose row changed, and names their kinds. */
async function storeStations(
  tx: Tx,
  items: readonly FeedItem[],
): Promise<IngestSummary["stations"] & { kinds: Set<FeedItem["station"]["kind"]> }> {
  const stations = new Map(items.map((i) => [i.station.id, i.station]));
  const rows = await inChunks<{ added: boolean; kind: FeedItem["station"]["kind"] }>(
    tx,
    `INSERT INTO station (id, name, kind, source, country, latitude, longitude)
     SELECT id, name, kind, source, country, latitude, longitude FROM jsonb_populate_recordset(NULL::station, $1::jsonb)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, kind = EXCLUDED.kind, source = EXCLUDED.source,
            country = EXCLUDED.country, latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude
      WHERE (station.name, station.kind, station.source, station.country, station.latitude, station.longitude)
            IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.kind, EXCLUDED.source, EXCLUDED.country, EXCLUDED.latitude, EXCLUDED.longitude)
     RETURNING (xmax = 0) AS added, kind::text AS kind`,
    [...stations.values()],
  );
  const added = rows.filter((r) => r.added).length;
  return { added, changed: rows.length - added, kinds: new Set(rows.map((r) => r.kind)) };
}

/**
 * Keeps CWA's running totals and works out each item's hourly precipitation
 * from the total an hour before (in this feed or stored earlier). Returns the
 * later hours, already stored, whose amount the new totals make known.
 */
async function hourlyPrecipitation(tx: Tx, items: FeedItem[]): Promise<{ stationId: string; at: Date; precip: number | null }[]> {
  const withTotals = items.filter((i) => i.precipRunningTotalMm !== undefined && i.precipRunningTotalMm !== null);
  await inChunks(
    tx,
    `INSERT INTO precip_running_total (station_id, observed_at, total_mm)
     SELECT station_id, observed_at, total_mm FROM jsonb_populate_recordset(NULL::precip_running_total, $1::jsonb)
     ON CONFLICT (station_id, observed_at) DO UPDATE SET total_mm = EXCLUDED.total_mm`,
    withTotals.map((i) => ({
      station_id: i.observation.station_id,
      observed_at: i.observation.observed_at,
      total_mm: i.precipRunningTotalMm,
    })),
  );
  // The totals an hour either side of every item's.
  const around = withTotals.flatMap((i) =>
    [-HOUR_MS, HOUR_MS].map((d) => ({
      station_id: i.observation.station_id,
      observed_at: new Date(i.observation.observed_at.getTime() + d),
    })),
  );
  const known = new Map<string, number>();
  for (const r of await inChunks<{ station_id: string; at: Date | string; total_mm: number }>(
    tx,
    `SELECT t.station_id, t.observed_at AS at, t.total_mm
       FROM precip_running_total t JOIN jsonb_populate_recordset(NULL::precip_running_total, $1::jsonb) k USING (station_id, observed_at)`,
    around,
  )) {
    known.set(keyOf(r.station_id, new Date(r.at)), r.total_mm);
  }
  for (const i of withTotals) known.set(keyOf(i.observation.station_id, i.observation.observed_at), i.precipRunningTotalMm!);
  // Where midnight falls depends on the instant alone, and a payload holds a few instants for many stations.
  const midnights = new Map<number, HourAtMidnight>();
  const midnightAt = (at: Date) => {
    const cached = midnights.get(at.getTime());
    if (cached !== undefined) return cached;
    const m = midnightOfHour(at, CWA_TIME_ZONE);
    midnights.set(at.getTime(), m);
    return m;
  };
  const amount = (stationId: string, at: Date, total: number) =>
    hourlyAmount(midnightAt(at), total, known.get(keyOf(stationId, at.getTime() - HOUR_MS)) ?? null);

  for (const i of items) {
    const total = i.precipRunningTotalMm;
    if (total !== undefined)
      i.observation.precip_mm = total === null ? null : amount(i.observation.station_id, i.observation.observed_at, total);
  }
  const inFeed = new Set(items.map((i) => keyOf(i.observation.station_id, i.observation.observed_at)));
  const later: { stationId: string; at: Date; precip: number | null }[] = [];
  for (const i of withTotals) {
    const at = new Date(i.observation.observed_at.getTime() + HOUR_MS);
    const total = known.get(keyOf(i.observation.station_id, at));
    if (total !== undefined && !inFeed.has(keyOf(i.observation.station_id, at))) {
      later.push({ stationId: i.observation.station_id, at, precip: amount(i.observation.station_id, at, total) });
    }
  }
  return later;
}

/** Upserts the fields the source reports; returns the instants of the rows written. */
async function storeObservations(tx: Tx, fields: readonly ObservationField[], items: readonly FeedItem[]): Promise<Date[]> {
  const columns = fields.map((f) => `"${f}"`);
  const rows = await inChunks<{ at: Date | string }>(
    tx,
    `INSERT INTO observation (station_id, observed_at, ${columns})
     SELECT station_id, observed_at, ${columns} FROM jsonb_populate_recordset(NULL::observation, $1::jsonb)
     ON CONFLICT (station_id, observed_at) DO UPDATE SET ${columns.map((c) => `${c} = EXCLUDED.${c}`)}
      WHERE (${columns.map((c) => `observation.${c}`)}) IS DISTINCT FROM (${columns.map((c) => `EXCLUDED.${c}`)})
     RETURNING observed_at AS at`,
    items.map((i) => i.observation),
  );
  return rows.map((r) => new Date(r.at));
}

/** Sets the precipitation of later hours already stored, where it changed; returns their instants. */
async function completeLater(tx: Tx, later: readonly { stationId: string; at: Date; precip: number | null }[]): Promise<Date[]> {
  const rows = await inChunks<{ at: Date | string }>(
    tx,
    `UPDATE observation o SET precip_mm = k.precip_mm
       FROM jsonb_populate_recordset(NULL::observation, $1::jsonb) k
      WHERE o.station_id = k.station_id AND o.observed_at = k.observed_at AND o.precip_mm IS DISTINCT FROM k.precip_mm
     RETURNING o.observed_at AS at`,
    later.map((l) => ({ station_id: l.stationId, observed_at: l.at, precip_mm: l.precip })),
  );
  return rows.map((r) => new Date(r.at));
}

/** Stores a feed; see the module's comment. Each step is told to `progress` as a phase. */
export async function storeFeed(db: Database, feed: Feed, progress?: Pick<Progress, "phase">): Promise<IngestSummary> {
  const { items, duplicates } = unique(feed);
  const problems = [...feed.skipped, ...duplicates];
  const skipped: Record<string, number> = {};
  for (const p of problems) skipped[p.reason] = (skipped[p.reason] ?? 0) + 1;
  return db.transaction(async (tx) => {
    progress?.phase("storing stations");
    const { kinds, ...stations } = await storeStations(tx, items);
    progress?.phase("storing observations");
    const later = await hourlyPrecipitation(tx, items);
    const written = await storeObservations(tx, feed.fields, items);
    const completed = await completeLater(tx, later);
    progress?.phase("ranking stations");
    if (kinds.size > 0) await refreshRankings(tx, [...kinds]);
    const touched = [...written, ...completed].map((d) => d.getTime());
    progress?.phase("rebuilding daily aggregates");
    if (touched.length > 0) {
      const ids = [...new Set(items.map((i) => i.station.id))];
      const span = touched.reduce((s, t) => ({ from: Math.min(s.from, t), to: Math.max(s.to, t) }), { from: Infinity, to: -Infinity });
      await rebuildStationDaysOf(tx, ids, new Date(span.from), new Date(span.to));
    }
    progress?.phase("committing");
    if (touched.length > 0 || stations.added + stations.changed > 0) await announceChange(tx);
    return {
      source: feed.source,
      read: feed.read,
      stored: written.length,
      unchanged: items.length - written.length,
      stations,
      completed: completed.length,
      skipped,
      problems,
    };
  });
}
