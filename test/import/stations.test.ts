/**
 * The importer's ranking of stations around each school (`school_station`):
 * per kind, nearest first by haversine distance, ties by id, every station kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { canary } from "./helpers.js";

/** Haversine with the contract's radius, written out independently of src/. */
function meters(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((b.latitude - a.latitude) * rad) / 2) ** 2 +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(((b.longitude - a.longitude) * rad) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

const NTU = { latitude: 25.0174, longitude: 121.5405 };
const station = (id: string, kind: "weather" | "air", dLat: number, dLon = 0) => ({
  id,
  name: id,
  kind,
  source: kind === "air" ? "moenv" : "cwa",
  country: "TW",
  latitude: NTU.latitude + dLat,
  longitude: NTU.longitude + dLon,
});

// 22 weather stations north of NTU, 0.01° apart, listed in a scrambled order.
const weather = Array.from({ length: 22 }, (_, k) => station(`w-${String(k).padStart(2, "0")}`, "weather", 0.01 * (k + 1))).sort(
  (a, b) => ((Number(a.id.slice(2)) * 7) % 22) - ((Number(b.id.slice(2)) * 7) % 22),
);
const air = [
  station("a-far", "air", -0.3),
  station("a-tie-b", "air", 0, 0.002),
  station("a-near", "air", 0.001),
  station("a-tie-a", "air", 0, 0.002),
];

let db: Database;
let rows: { university_id: number; station_id: string; kind: string; rank: number; distance_m: number }[];
beforeAll(async () => {
  db = await freshDatabase();
  const e = canary();
  e.stations = [...weather, ...air];
  e.observations = [];
  await importObject(db, e);
  rows = await db.query(
    `SELECT university_id, station_id, kind::text, rank, distance_m FROM school_station ORDER BY university_id, kind, rank`,
  );
}, 60_000);
afterAll(async () => {
  await db?.close();
});

describe("school_station", () => {
  it("ranks each kind around a school nearest first, ties by id, keeping every station", () => {
    const ntu = (kind: string) => rows.filter((r) => r.university_id === 1 && r.kind === kind);
    expect(ntu("air").map((r) => [r.rank, r.station_id])).toEqual([
      [1, "a-near"],
      [2, "a-tie-a"],
      [3, "a-tie-b"],
      [4, "a-far"],
    ]);
    expect(ntu("weather").map((r) => r.station_id)).toEqual(Array.from({ length: 22 }, (_, k) => `w-${String(k).padStart(2, "0")}`));
    expect(ntu("weather").map((r) => r.rank)).toEqual(Array.from({ length: 22 }, (_, k) => k + 1));
    expect(ntu("air")[0]!.distance_m).toBeCloseTo(111.2, 0);
  });

  it("holds, for every school, exactly the ranking computed from the haversine distances", () => {
    const e = canary();
    const expected = e.universities.flatMap((u) =>
      (["air", "weather"] as const).flatMap((kind) =>
        [...weather, ...air]
          .filter((s) => s.kind === kind)
          .map((s) => ({ id: s.id, d: meters(u, s) }))
          .sort((a, b) => a.d - b.d || (a.id < b.id ? -1 : 1))
          .map((s, i) => ({ university_id: u.id, station_id: s.id, kind, rank: i + 1, distance_m: s.d })),
      ),
    );
    expect(rows).toHaveLength(3 * (4 + 22));
    expect(rows.map(({ distance_m, ...r }) => r)).toEqual(expected.map(({ distance_m, ...r }) => r));
    for (const [i, r] of rows.entries()) expect(r.distance_m).toBeCloseTo(expected[i]!.distance_m, 3);
  });
});
