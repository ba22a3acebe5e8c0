/**
 * The ranked station list of every school: for each kind of station, every
 * station by haversine distance. Computed at import, read by the
 * environment queries, so no request measures distances again.
 */
import type { Database } from "../db/driver.js";
import { haversineMeters } from "../domain/environment/index.js";

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

/**
 * Ranks every station around each school, per kind, nearest first (ties by
 * id). All are kept: the environment answers read the nearest few and go
 * farther only when a metric needs it (src/environment/service.ts).
 */
function rankStations(
  schools: readonly (Place & { id: number })[],
  stations: readonly (Place & { id: string; kind: "weather" | "air" })[],
): RankedStation[] {
  const out: RankedStation[] = [];
  for (const school of schools) {
    for (const kind of ["weather", "air"] as const) {
      const ranked = stations
        .filter((s) => s.kind === kind)
        .map((s) => ({ id: s.id, d: haversineMeters(school, s) }))
        .sort((a, b) => a.d - b.d || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      for (const [i, s] of ranked.entries()) out.push({ university_id: school.id, station_id: s.id, kind, rank: i + 1, distance_m: s.d });
    }
  }
  return out;
}

type Kind = RankedStation["kind"];

/**
 * Ranks again the stations of `kinds` (default: both) around every school,
 * from what the database holds now. A feed that adds air stations leaves the
 * weather stations' ranks, most of the rows, as they are.
 */
export async function refreshRankings(tx: Pick<Database, "exec" | "query">, kinds: readonly Kind[] = ["weather", "air"]): Promise<void> {
  const schools = await tx.query<Place & { id: number }>(`SELECT id, latitude, longitude FROM university`);
  const stations = await tx.query<Place & { id: string; kind: Kind }>(
    `SELECT id, kind::text AS kind, latitude, longitude FROM station WHERE kind::text = ANY($1::text[])`,
    [[...kinds]],
  );
  await tx.query(`DELETE FROM school_station WHERE kind::text = ANY($1::text[])`, [[...kinds]]);
  const rows = rankStations(schools, stations);
  for (let i = 0; i < rows.length; i += 5000) {
    await tx.query(`INSERT INTO school_station SELECT * FROM jsonb_populate_recordset(NULL::school_station, $1::jsonb)`, [
      JSON.stringify(rows.slice(i, i + 5000)),
    ]);
  }
}
