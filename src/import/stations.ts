/**
 * The ranked station list of every school: for each kind of station, the
 * nearest ones by haversine distance. Computed at import, read by the
 * environment queries, so no request measures distances again.
 */
import { haversineMeters } from "../domain/environment/index.js";

/** How many stations of each kind are kept per school. Enough for a metric
 * that the nearest few stations lack to still find three that have it. */
export const STATIONS_PER_KIND = 20;

export interface Place {
  latitude: number;
  longitude: number;
}

export interface RankedStation {
  university_id: number;
  station_id: string;
  kind: "weather" | "air";
  rank: number;
  distance_m: number;
}

/** Ranks `stations` around each school, per kind, nearest first (ties by id). */
export function rankStations(
  schools: readonly (Place & { id: number })[],
  stations: readonly (Place & { id: string; kind: "weather" | "air" })[],
  perKind = STATIONS_PER_KIND,
): RankedStation[] {
  const out: RankedStation[] = [];
  for (const school of schools) {
    for (const kind of ["weather", "air"] as const) {
      const ranked = stations
        .filter((s) => s.kind === kind)
        .map((s) => ({ id: s.id, d: haversineMeters(school, s) }))
        .sort((a, b) => a.d - b.d || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, perKind);
      ranked.forEach((s, i) =>
        out.push({ university_id: school.id, station_id: s.id, kind, rank: i + 1, distance_m: s.d }),
      );
    }
  }
  return out;
}
