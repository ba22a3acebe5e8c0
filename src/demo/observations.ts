import { aqiFromConcentrations, standardForCountry } from "../domain/environment/index.js";
import { HOUR_MS, isoInstant } from "./time.js";
import { hash32, hashString, hashUnit, smoothNoise } from "./random.js";
import type { DemoStation } from "./stations.js";
import type { Monthly } from "./universities.js";
import type { ExportObservation } from "./types.js";

const YEAR_DAYS = 365.2425;

/**
 * The observation of one station at one hour (hours since the Unix epoch, UTC),
 * or null when the station did not report. A pure function of (seed, station,
 * hour): the same instant gets the same values whatever window is exported.
 * `observedAt` is the hour as the export writes it, which a caller that
 * observes every station at that hour formats once.
 */
export function observe(seed: number, s: DemoStation, hour: number, observedAt = isoInstant(hour * HOUR_MS)): ExportObservation | null {
  const k = s.key;
  // A few missing hours, and now and then a six-hour outage.
  if (hashUnit(seed, k, hour, 1) < 0.004 || hashUnit(seed, k, Math.floor(hour / 6), 2) < 0.005) return null;

  const t = hour * HOUR_MS;
  const c = s.region.climate;
  const rk = hash32(seed, hashString(s.region.name));
  const sk = hash32(seed, k);
  const lon = s.station.longitude;
  const solar = ((((hour % 24) + lon / 15) % 24) + 24) % 24;
  const doy = dayOfYear(t);
  const season = -Math.cos((2 * Math.PI * (doy - 22)) / YEAR_DAYS); // -1 late January, +1 late July

  // Regional rain field: wet where it exceeds a threshold set by the month's raininess.
  const field = 0.65 * smoothNoise(rk + 3, hour / 9) + 0.35 * smoothNoise(rk + 4, hour / 3);
  const threshold = 0.8 - 0.92 * monthly(c.rain, doy); // wet about 0.45 × raininess of the hours
  const wet = Math.max(0, field - threshold);
  const cloud = clamp((field - threshold + 0.35) / 0.6, 0, 1);
  const row: ExportObservation = { station_id: s.station.id, observed_at: observedAt };
  const nul = (i: number): boolean => hashUnit(seed, k, hour, 10 + i) < 0.004;

  if (s.station.kind === "weather") {
    const d = diurnal(solar);
    const synoptic = c.synopticC * (1 - 0.3 * season) * (0.75 * smoothNoise(rk + 1, hour / 60) + 0.35 * smoothNoise(rk + 2, hour / 20));
    // Showers are patchy: each station sees its own share of the regional rain.
    const local = wet > 0 ? wet + 0.12 * smoothNoise(sk + 7, hour / 2) : 0;
    // Taiwan: drizzle in winter, downpours in summer.
    const rate = s.station.country === "TW" ? c.rainRateMm * (0.35 + (0.65 * (season + 1)) / 2) : c.rainRateMm;
    const rainMm = local > 0.01 ? local * rate * (0.4 + 1.2 * hashUnit(seed, k, hour, 3)) : 0;
    const temp =
      c.meanC +
      c.seasonalAmpC * season +
      synoptic +
      c.diurnalRangeC * (1 - 0.6 * cloud) * d -
      0.0065 * s.elevation +
      s.tempBias -
      1.5 * Math.min(1, wet * 2) +
      0.25 * (hashUnit(seed, k, hour, 4) * 2 - 1);
    let rh =
      c.rh - 14 * d * (1 - 0.5 * cloud) + 18 * cloud - 6 + 6 * smoothNoise(rk + 5, hour / 30) + 2 * (hashUnit(seed, k, hour, 5) * 2 - 1);
    const precip = s.station.country === "TW" ? Math.round(rainMm * 2) / 2 : round1(Math.round(rainMm / 0.254) * 0.254);
    if (precip > 0) rh = Math.max(rh, 88 + 10 * hashUnit(seed, k, hour, 6));
    row.temp_c = nul(0) ? null : round1(temp);
    if (s.hasRh) row.rh = nul(1) ? null : Math.round(clamp(rh, 18, 100));
    row.precip_mm = nul(2) ? null : precip;
  } else {
    const solarRush = Math.exp(-((solar - 8.5) ** 2) / 4) + 0.8 * Math.exp(-((solar - 21) ** 2) / 6) - 0.3;
    const pm =
      monthly(c.pm25, doy) *
      s.pmFactor *
      Math.exp(0.45 * smoothNoise(rk + 6, hour / 40) + 0.2 * smoothNoise(sk + 8, hour / 6)) *
      (1 + 0.15 * solarRush) *
      (1 - 0.45 * Math.min(1, wet * 2.5)) *
      (1 + 0.08 * (hashUnit(seed, k, hour, 7) * 2 - 1));
    const pm25 = s.station.country === "TW" ? Math.max(1, Math.round(pm)) : Math.max(0.1, round1(pm));
    const pm10 = s.hasPm10 ? Math.max(2, Math.round(pm * s.pm10Ratio * (1 + 0.1 * (hashUnit(seed, k, hour, 8) * 2 - 1)))) : null;
    const pm25Value = nul(3) ? null : pm25;
    const pm10Value = pm10 === null || nul(4) ? null : pm10;
    row.pm25_ugm3 = pm25Value;
    if (s.hasPm10) row.pm10_ugm3 = pm10Value;
    // What the station reports: the gateway's own standard (MOENV 2025 in Taiwan, EPA 2024 in the US).
    row.aqi = nul(5) ? null : aqiFromConcentrations(standardForCountry(s.station.country)!, { pm25: pm25Value, pm10: pm10Value });
  }
  return row;
}

/** Observation rows of every station for each hour of the window, oldest hour first, in batches. */
export function* observationBatches(
  seed: number,
  stations: readonly DemoStation[],
  nowMs: number,
  days: number,
  batchSize = 1000,
): Generator<ExportObservation[]> {
  const last = Math.floor(nowMs / HOUR_MS);
  const first = last - days * 24 + 1;
  let batch: ExportObservation[] = [];
  for (let hour = first; hour <= last; hour++) {
    const observedAt = isoInstant(hour * HOUR_MS);
    for (const s of stations) {
      const row = observe(seed, s, hour, observedAt);
      if (!row) continue;
      batch.push(row);
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

/** Temperature shape over the solar day: -0.5 at 05:30, rising to +0.5 at 14:30, then cooling slowly. */
function diurnal(solar: number): number {
  if (solar >= 5.5 && solar < 14.5) return -0.5 * Math.cos((Math.PI * (solar - 5.5)) / 9);
  const u = solar >= 14.5 ? solar - 14.5 : solar + 24 - 14.5;
  return 0.5 * Math.cos((Math.PI * u) / 15);
}

function dayOfYear(t: number): number {
  const year = new Date(t).getUTCFullYear();
  return (t - Date.UTC(year, 0, 1)) / 86_400_000;
}

/** A monthly table read at a day of the year, linear between mid-months. */
function monthly(table: Monthly, doy: number): number {
  const m = (doy / YEAR_DAYS) * 12 - 0.5;
  const i = Math.floor(m);
  const f = m - i;
  const a = table[(i + 12) % 12] as number;
  const b = table[(i + 13) % 12] as number;
  return a + (b - a) * f;
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

function round1(x: number): number {
  // + 0: never -0, which the export's JSON text writes as 0 (demoExportRecords hands over the number itself).
  return Math.round(x * 10) / 10 + 0;
}
