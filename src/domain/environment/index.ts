/**
 * Environment domain: distances, inverse-distance weighting, AQI standards, school-local days,
 * and the school-level real-time and daily aggregates of docs/contract.md §5. Pure functions only.
 */
export { EARTH_RADIUS_M, haversineMeters } from "./geo.js";
export { type HourAtMidnight, hourlyAmount, hourlyFromRunningTotal, midnightOfHour } from "./precipitation.js";
export { idw, type IdwResult } from "./idw.js";
export {
  AQI_BREAKPOINTS,
  AQI_CATEGORIES,
  aqiCategory,
  aqiFromConcentrations,
  standardForCountry,
  subIndex,
  type AqiPollutant,
  type AqiStandard,
} from "./aqi.js";
export { addDays, DAY_BOUNDARY, lastLocalDates, localDate, localDayBounds } from "./local-day.js";
export { round1, roundHalfAwayFromZero, roundInt, truncateDecimals } from "./rounding.js";
export {
  DAILY_FIELDS,
  emptySchoolDay,
  schoolDaily,
  type SchoolDay,
  type StationDay,
} from "./daily.js";
export {
  REALTIME_WINDOW_MS,
  schoolRealtime,
  type SchoolRealtime,
  type StationLatest,
} from "./realtime.js";
export { validUntil, type ValidityInputs } from "./validity.js";
export {
  SOURCES,
  dataSources,
  isSourceId,
  type DataSource,
  type SourceId,
  type StationRef,
} from "./sources.js";
export { StationSet } from "./station-set.js";
