import { aqiCategory, standardForCountry, type AqiCategory } from "./aqi.js";
import { idw } from "./idw.js";
import { round1, roundInt } from "./rounding.js";
import type { SourceId, StationRef } from "./sources.js";
import { StationSet } from "./station-set.js";

/** A station's most recent non-null reading of one metric, and when it was observed. */
export interface Reading {
  readonly value: number;
  readonly observedAt: Date;
}

/** One air station's latest readings (each within the last 3 hours, or null). */
export interface StationLatest {
  readonly stationId: string;
  readonly source: SourceId;
  /** Distance from the school in metres. */
  readonly distanceM: number;
  readonly aqi: Reading | null;
  readonly pm25: Reading | null;
}

/** Options for {@link schoolRealtime}. */
export interface RealtimeOptions {
  /** The school's country (ISO alpha-2); picks the AQI standard for `aqiStatus`. */
  readonly country: string | null | undefined;
  /**
   * If given, readings observed before `now − 3 h` are ignored (the bound itself is kept),
   * as a guard in case the caller's query window is wider. Omit to trust the input as is.
   */
  readonly now?: Date;
}

/** The school's real-time air quality. */
export interface SchoolRealtime {
  /** IDW of station AQIs, rounded to an integer. */
  readonly aqi: number | null;
  /** Category of `aqi` under the country's standard; null without AQI or without a standard. */
  readonly aqiStatus: AqiCategory | null;
  /** IDW of station PM2.5 (µg/m³), one decimal. */
  readonly pm25Ugm3: number | null;
  /** The newest observation instant among readings that had weight, for either metric. */
  readonly observedAt: Date | null;
  /** Stations that had weight for either metric. */
  readonly stations: StationRef[];
}

/** The real-time window of docs/contract.md §5. */
export const REALTIME_WINDOW_MS = 3 * 60 * 60 * 1000;

/**
 * The school's real-time `aqi`, `pm25_ugm3`, `observed_at_utc` and `aqi_status` (docs/contract.md §5):
 * each metric IDW-weighted on its own over the three nearest stations with a reading.
 */
export function schoolRealtime(stations: readonly StationLatest[], opts: RealtimeOptions): SchoolRealtime {
  const cutoff = opts.now === undefined ? -Infinity : opts.now.getTime() - REALTIME_WINDOW_MS;
  const fresh = (r: Reading | null): Reading | null => (r !== null && r.observedAt.getTime() >= cutoff ? r : null);

  const weigh = (metric: "aqi" | "pm25") =>
    idw(
      stations.map((s) => ({
        stationId: s.stationId,
        distanceM: s.distanceM,
        value: fresh(s[metric])?.value,
        station: s,
        reading: s[metric],
      })),
    );
  const aqi = weigh("aqi");
  const pm25 = weigh("pm25");

  const used = [...aqi.used, ...pm25.used];
  const newest = Math.max(...used.map((u) => (u.sample.reading as Reading).observedAt.getTime()));
  const standard = standardForCountry(opts.country);
  const aqiRounded = roundInt(aqi.value);
  return {
    aqi: aqiRounded,
    aqiStatus: standard === null ? null : aqiCategory(standard, aqiRounded),
    pm25Ugm3: round1(pm25.value),
    observedAt: used.length === 0 ? null : new Date(newest),
    stations: new StationSet().add(...used.map((u) => u.sample.station)).toArray(),
  };
}
