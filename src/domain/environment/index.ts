/**
 * Environment domain: distances, inverse-distance weighting, AQI standards, school-local days,
 * and the school-level real-time and daily aggregates of CONTRACT §5. Pure functions only.
 */
export { EARTH_RADIUS_M, haversineMeters, type LatLon } from "./geo.js";
export { IDW_SNAP_DISTANCE_M, idw, type IdwOptions, type IdwResult, type IdwSample, type IdwUse } from "./idw.js";
export {
  AQI_BREAKPOINTS,
  aqiCategory,
  aqiFromConcentrations,
  standardForCountry,
  subIndex,
  type AqiBand,
  type AqiCategory,
  type AqiPollutant,
  type AqiStandard,
  type PmConcentrations,
} from "./aqi.js";
export { addDays, lastLocalDates, localDate, localDayBounds, type LocalDayBounds } from "./local-day.js";
export { round1, roundHalfAwayFromZero, roundInt, truncateDecimals } from "./rounding.js";
export {
  DAILY_FIELDS,
  emptySchoolDay,
  schoolDaily,
  type DailyField,
  type DailyValues,
  type SchoolDailyResult,
  type SchoolDay,
  type StationDay,
} from "./daily.js";
export {
  REALTIME_WINDOW_MS,
  schoolRealtime,
  type Reading,
  type RealtimeOptions,
  type SchoolRealtime,
  type StationLatest,
} from "./realtime.js";
export {
  SOURCES,
  dataSources,
  isSourceId,
  type DataSource,
  type SourceId,
  type SourceInfo,
  type StationKind,
  type StationRef,
} from "./sources.js";
export { StationSet } from "./station-set.js";
