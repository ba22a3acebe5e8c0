import type { Country } from "./types.js";

/** [concentration low, concentration high, index low, index high] */
type Breakpoint = readonly [number, number, number, number];

const PM25: Readonly<Record<Country, readonly Breakpoint[]>> = {
  // US EPA (2024 revision of the PM2.5 breakpoints).
  US: [[0, 9, 0, 50], [9.1, 35.4, 51, 100], [35.5, 55.4, 101, 150], [55.5, 125.4, 151, 200], [125.5, 225.4, 201, 300], [225.5, 325.4, 301, 500]],
  // Taiwan MOENV.
  TW: [[0, 15.4, 0, 50], [15.5, 35.4, 51, 100], [35.5, 54.4, 101, 150], [54.5, 150.4, 151, 200], [150.5, 250.4, 201, 300], [250.5, 500.4, 301, 500]],
};

const PM10: readonly Breakpoint[] = [[0, 54, 0, 50], [55, 154, 51, 100], [155, 254, 101, 150], [255, 354, 151, 200], [355, 424, 201, 300], [425, 604, 301, 500]];

function subIndex(c: number, table: readonly Breakpoint[]): number {
  for (const [cLo, cHi, iLo, iHi] of table) {
    if (c <= cHi) return iLo + ((iHi - iLo) * (Math.max(c, cLo) - cLo)) / (cHi - cLo);
  }
  return 500;
}

/**
 * The AQI a station would report from its particulate readings: the larger of
 * the PM2.5 and PM10 sub-indices under the country's standard, as an integer.
 * Monotone in both concentrations.
 */
export function stationAqi(country: Country, pm25: number, pm10: number | null): number {
  const a = subIndex(Math.max(0, pm25), PM25[country]);
  const b = pm10 === null ? 0 : subIndex(Math.max(0, pm10), PM10);
  return Math.round(Math.max(a, b));
}
