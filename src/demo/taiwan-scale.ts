/**
 * The seed's Taiwan scale (the benchmarks, and the `taiwan` dataset of ./taiwan.ts): 1,215 weather stations (CWA)
 * and 84 air stations (MOENV), and synthetic schools, each placed at random
 * over Taiwan by the caller's random source (drawn in the order asked).
 */
import type { ExportStation, ExportUniversity } from "./types.js";

const WEATHER_STATIONS = 1215;
const AIR_STATIONS = 84;

export function taiwanScale(next: () => number) {
  const place = () => ({ latitude: 22 + next() * 3.2, longitude: 120.1 + next() * 1.8 });
  return {
    /** `count` schools with ids from `firstId` and codes `<prefix>1`, `<prefix>2`, … */
    schools: (count: number, firstId: number, prefix: string): ExportUniversity[] =>
      Array.from({ length: count }, (_, i) => ({
        id: firstId + i,
        code: `${prefix}${i + 1}`,
        name_zh: `學校${i + 1}`,
        name_en: `School ${i + 1}`,
        region: `Region ${i % 10}`,
        country: "TW" as const,
        timezone: "Asia/Taipei",
        ...place(),
      })),
    /** The weather stations `W0…`, then the air stations `A0…`. */
    stations: (): ExportStation[] => {
      const of = (count: number, prefix: string, name: string, kind: ExportStation["kind"], source: ExportStation["source"]) =>
        Array.from(
          { length: count },
          (_, i): ExportStation => ({ id: `${prefix}${i}`, name: `${name} ${i}`, kind, source, country: "TW", ...place() }),
        );
      return [...of(WEATHER_STATIONS, "W", "Weather", "weather", "cwa"), ...of(AIR_STATIONS, "A", "Air", "air", "moenv")];
    },
  };
}
