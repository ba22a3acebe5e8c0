import { roundHalfAwayFromZero, truncateDecimals } from "./rounding.js";

/** The AQI standards in use: US EPA (revision of May 2024) and Taiwan MOENV (revision of 2025). */
export type AqiStandard = "EPA" | "MOENV";
/** Pollutants with breakpoint tables here (24-hour / real-time particulate means, µg/m³). */
export type AqiPollutant = "pm25" | "pm10";
/** The six AQI category names, in English, shared by both standards, from the cleanest. */
export const AQI_CATEGORIES = ["Good", "Moderate", "Unhealthy for Sensitive Groups", "Unhealthy", "Very Unhealthy", "Hazardous"] as const;
export type AqiCategory = (typeof AQI_CATEGORIES)[number];

/** One row of a breakpoint table: concentrations [cLo, cHi] map linearly onto indices [iLo, iHi]. */
export interface AqiBand {
  readonly cLo: number;
  readonly cHi: number;
  readonly iLo: number;
  readonly iHi: number;
}

const bands = (rows: ReadonlyArray<readonly [number, number, number, number]>): readonly AqiBand[] =>
  rows.map(([cLo, cHi, iLo, iHi]) => ({ cLo, cHi, iLo, iHi }));

/**
 * Breakpoint tables (docs/contract.md §5 says where each applies).
 * EPA: 89 FR 16202 (6 May 2024). MOENV: revision effective 1 January 2025, whose
 * Hazardous range is split into 301–400 and 401–500.
 */
export const AQI_BREAKPOINTS: Readonly<Record<AqiStandard, Readonly<Record<AqiPollutant, readonly AqiBand[]>>>> = {
  EPA: {
    pm25: bands([
      [0, 9.0, 0, 50],
      [9.1, 35.4, 51, 100],
      [35.5, 55.4, 101, 150],
      [55.5, 125.4, 151, 200],
      [125.5, 225.4, 201, 300],
      [225.5, 325.4, 301, 500],
    ]),
    pm10: bands([
      [0, 54, 0, 50],
      [55, 154, 51, 100],
      [155, 254, 101, 150],
      [255, 354, 151, 200],
      [355, 424, 201, 300],
      [425, 604, 301, 500],
    ]),
  },
  MOENV: {
    pm25: bands([
      [0, 12.4, 0, 50],
      [12.5, 30.4, 51, 100],
      [30.5, 50.4, 101, 150],
      [50.5, 125.4, 151, 200],
      [125.5, 225.4, 201, 300],
      [225.5, 325.4, 301, 400],
      [325.5, 500.4, 401, 500],
    ]),
    pm10: bands([
      [0, 30, 0, 50],
      [31, 75, 51, 100],
      [76, 190, 101, 150],
      [191, 354, 151, 200],
      [355, 424, 201, 300],
      [425, 504, 301, 400],
      [505, 604, 401, 500],
    ]),
  },
};

/** Decimal places a concentration is reduced to before lookup: PM2.5 to 0.1, PM10 to 1 µg/m³. */
const DECIMALS: Record<AqiPollutant, number> = { pm25: 1, pm10: 0 };

/**
 * Sub-index of one pollutant: I = (iHi − iLo)/(cHi − cLo)·(C − cLo) + iLo, rounded to an integer.
 *
 * - EPA truncates the concentration (PM2.5 to 0.1, PM10 to 1); MOENV rounds it half-up to
 *   the same precision. Either way the reduced value lands inside a band (9.05 → 9.0, Good).
 * - Beyond the top of the table (after reduction) the result is capped at 500. EPA calls such
 *   values "beyond the AQI" and publishes no formula for them; the cap keeps the index on the
 *   scale both standards' categories cover (Hazardous).
 * - Negative (including -Infinity), NaN, null or undefined concentrations give null;
 *   +Infinity is beyond the table and gives 500.
 */
export function subIndex(standard: AqiStandard, pollutant: AqiPollutant, concentration: number | null | undefined): number | null {
  if (concentration == null || Number.isNaN(concentration) || concentration < 0) return null;
  const table = AQI_BREAKPOINTS[standard][pollutant];
  const digits = DECIMALS[pollutant];
  const c = standard === "EPA" ? truncateDecimals(concentration, digits) : roundHalfAwayFromZero(concentration, digits);
  const band = table.find((b) => c <= b.cHi);
  if (band === undefined) return 500;
  return roundHalfAwayFromZero(((band.iHi - band.iLo) / (band.cHi - band.cLo)) * (c - band.cLo) + band.iLo, 0);
}

/** Particulate concentrations in µg/m³; a missing one is simply left out of the maximum. */
export interface PmConcentrations {
  readonly pm25?: number | null;
  readonly pm10?: number | null;
}

/** Overall AQI: the highest available sub-index, or null when neither pollutant has one. */
export function aqiFromConcentrations(standard: AqiStandard, c: PmConcentrations): number | null {
  const indices = [subIndex(standard, "pm25", c.pm25), subIndex(standard, "pm10", c.pm10)].filter((i): i is number => i !== null);
  return indices.length === 0 ? null : Math.max(...indices);
}

/** Upper AQI bound (inclusive) of each category; identical for EPA and MOENV. */
const CATEGORY_TOPS: ReadonlyArray<readonly [number, AqiCategory]> = [
  [50, "Good"],
  [100, "Moderate"],
  [150, "Unhealthy for Sensitive Groups"],
  [200, "Unhealthy"],
  [300, "Very Unhealthy"],
];

/**
 * Category of an AQI value under a standard. The value is rounded to an integer first
 * (half away from zero) so 50.4 is Good and 50.5 Moderate. Both standards share the bands;
 * MOENV's 301–400 and 401–500 are both Hazardous, and anything above 500 is Hazardous too.
 * Null, undefined, NaN or negative values give null.
 */
export function aqiCategory(standard: AqiStandard, aqi: number | null | undefined): AqiCategory | null {
  void standard; // the bands coincide today; the parameter keeps call sites explicit
  if (aqi == null || Number.isNaN(aqi) || aqi < 0) return null;
  const rounded = roundHalfAwayFromZero(aqi, 0);
  return CATEGORY_TOPS.find(([top]) => rounded <= top)?.[1] ?? "Hazardous";
}

/**
 * The AQI standard of a school's country (ISO 3166-1 alpha-2, case-insensitive):
 * TW → MOENV, US → EPA. Any other country gives null (no standard, so no category)
 * rather than throwing, so one odd school cannot fail a whole list.
 */
export function standardForCountry(country: "TW"): "MOENV";
export function standardForCountry(country: "US"): "EPA";
export function standardForCountry(country: string | null | undefined): AqiStandard | null;
export function standardForCountry(country: string | null | undefined): AqiStandard | null {
  switch (country?.trim().toUpperCase()) {
    case "TW":
      return "MOENV";
    case "US":
      return "EPA";
    default:
      return null;
  }
}
