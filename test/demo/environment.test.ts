import { describe, expect, it } from "vitest";
import { demoExportChunks, haversineKm, type ExportObservation, type ExportStation, type ExportUniversity } from "../../src/demo/index.js";
import { aqiFromConcentrations, AQI_BREAKPOINTS, standardForCountry } from "../../src/domain/environment/index.js";

const NOW = new Date("2026-11-20T00:00:00Z");
const HOUR = 3_600_000;
const doc = JSON.parse([...demoExportChunks({ now: NOW })].join("")) as {
  universities: ExportUniversity[];
  stations: ExportStation[];
  observations: ExportObservation[];
};
const stationById = new Map(doc.stations.map((s) => [s.id, s]));

function near(u: ExportUniversity, kind: string, km = 30): ExportStation[] {
  return doc.stations.filter((s) => s.kind === kind && haversineKm(u.latitude, u.longitude, s.latitude, s.longitude) <= km);
}

describe("demo stations", () => {
  it("have unique ids and sources matching kind and country", () => {
    expect(new Set(doc.stations.map((s) => s.id)).size).toBe(doc.stations.length);
    const expected: Record<string, string> = { "TW:weather": "cwa", "TW:air": "moenv", "US:weather": "nws", "US:air": "airnow" };
    for (const s of doc.stations) {
      expect(s.source).toBe(expected[`${s.country}:${s.kind}`]);
      expect(s.name.length).toBeGreaterThan(0);
    }
    for (const id of ["466920", "KSEA"]) expect(stationById.has(id)).toBe(true);
    expect(doc.stations.some((s) => /^C0[A-Z][0-9A-Z]{3}$/.test(s.id))).toBe(true);
    expect(doc.stations.some((s) => /^moenv-\d+$/.test(s.id))).toBe(true);
    expect(doc.stations.some((s) => /^airnow-840\d{9}$/.test(s.id))).toBe(true);
  });

  it("surround every school: at least four weather and four air stations within 30 km", () => {
    for (const u of doc.universities) {
      expect(near(u, "weather").length, u.code).toBeGreaterThanOrEqual(4);
      expect(near(u, "air").length, u.code).toBeGreaterThanOrEqual(4);
    }
  });
});

describe("demo observations", () => {
  const obs = doc.observations;

  it("cover the 35 days up to now, hourly, oldest first", () => {
    const times = obs.map((o) => Date.parse(o.observed_at));
    for (const o of obs.slice(0, 5000)) expect(o.observed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z$/);
    const first = Math.min(...times);
    const last = Math.max(...times);
    expect(last).toBe(NOW.getTime());
    expect(first).toBe(NOW.getTime() - (35 * 24 - 1) * HOUR);
    expect(last - first).toBeGreaterThanOrEqual(30 * 24 * HOUR);
    for (let i = 1; i < times.length; i++) if ((times[i] as number) < (times[i - 1] as number)) throw new Error(`row ${i} out of order`);
    expect(new Set(times).size).toBe(35 * 24);
  });

  it("has one row per station and hour, with a few hours missing", () => {
    const keys = new Set(obs.map((o) => `${o.station_id}@${o.observed_at}`));
    expect(keys.size).toBe(obs.length);
    const full = doc.stations.length * 35 * 24;
    expect(obs.length).toBeLessThan(full);
    expect(obs.length).toBeGreaterThan(full * 0.97);
    for (const o of obs) expect(stationById.has(o.station_id)).toBe(true);
  });

  it("carries weather fields for weather stations and air fields for air stations", () => {
    let nulls = 0;
    let wetHours = 0;
    let weatherRows = 0;
    const problems: string[] = [];
    const bad = (o: ExportObservation, why: string): void =>
      void (problems.length < 10 && problems.push(`${o.station_id}@${o.observed_at}: ${why}`));
    const between = (v: number | null | undefined, lo: number, hi: number): boolean => v == null || (v >= lo && v <= hi);
    for (const o of obs) {
      const kind = stationById.get(o.station_id)?.kind;
      if (kind === "weather") {
        weatherRows++;
        if ("pm25_ugm3" in o || "pm10_ugm3" in o || "aqi" in o) bad(o, "air field on a weather station");
        if (!("temp_c" in o) || !("precip_mm" in o)) bad(o, "weather field missing");
        if (!between(o.temp_c, -30, 45) || !between(o.rh, 0, 100) || !between(o.precip_mm, 0, 100)) bad(o, "weather value out of range");
        if ((o.precip_mm ?? 0) > 0) wetHours++;
      } else {
        if ("temp_c" in o || "rh" in o || "precip_mm" in o) bad(o, "weather field on an air station");
        if (!("pm25_ugm3" in o) || !("aqi" in o)) bad(o, "air field missing");
        if (!between(o.pm25_ugm3, 0.1, 500) || !between(o.pm10_ugm3, 1, 1000) || !between(o.aqi, 0, 500)) bad(o, "air value out of range");
        if (o.aqi != null && !Number.isInteger(o.aqi)) bad(o, "aqi not an integer");
      }
      for (const v of Object.values(o)) if (v === null) nulls++;
    }
    expect(problems).toEqual([]);
    expect(nulls).toBeGreaterThan(50);
    // Mostly dry, with rainy spells.
    expect(wetHours / weatherRows).toBeGreaterThan(0.01);
    expect(wetHours / weatherRows).toBeLessThan(0.35);
  });

  it("gives every school recent air and weather readings nearby", () => {
    const recent = obs.filter((o) => Date.parse(o.observed_at) > NOW.getTime() - 3 * HOUR);
    for (const u of doc.universities) {
      const air = new Set(near(u, "air").map((s) => s.id));
      const weather = new Set(near(u, "weather").map((s) => s.id));
      expect(
        new Set(recent.filter((o) => air.has(o.station_id) && o.aqi != null).map((o) => o.station_id)).size,
        u.code,
      ).toBeGreaterThanOrEqual(3);
      expect(
        new Set(recent.filter((o) => weather.has(o.station_id) && o.temp_c != null).map((o) => o.station_id)).size,
        u.code,
      ).toBeGreaterThanOrEqual(3);
    }
  });

  it("has a diurnal temperature cycle (afternoon warmer than dawn, local time)", () => {
    for (const u of doc.universities) {
      const ids = new Set(near(u, "weather").map((s) => s.id));
      const format = new Intl.DateTimeFormat("en-US", { timeZone: u.timezone, hour: "numeric", hourCycle: "h23" });
      const hours = new Map<string, number>();
      const sums = new Map<number, [number, number]>();
      for (const o of obs) {
        if (!ids.has(o.station_id) || o.temp_c == null) continue;
        let h = hours.get(o.observed_at);
        if (h === undefined) hours.set(o.observed_at, (h = Number(format.format(new Date(o.observed_at)))));
        const [sum, n] = sums.get(h) ?? [0, 0];
        sums.set(h, [sum + o.temp_c, n + 1]);
      }
      const at = (h: number): number => {
        const [sum, n] = sums.get(h) ?? [Number.NaN, 1];
        return sum / n;
      };
      expect(at(14) - at(5), u.code).toBeGreaterThan(2);
    }
  });

  it("reports the AQI the gateway's own standard gives for the station's particulates", () => {
    const countryOf = new Map(doc.stations.map((s) => [s.id, s.country]));
    let checked = 0;
    for (const o of doc.observations) {
      if (o.aqi == null) continue;
      const standard = standardForCountry(countryOf.get(o.station_id));
      expect(o.aqi, `${o.station_id} ${o.observed_at}`).toBe(aqiFromConcentrations(standard!, { pm25: o.pm25_ugm3, pm10: o.pm10_ugm3 }));
      checked++;
    }
    expect(checked).toBeGreaterThan(1000);
    // Taiwan's 2025 table: 15.4 µg/m³ of PM2.5 is Moderate now (Good up to 12.4), no longer Good.
    expect(AQI_BREAKPOINTS.MOENV.pm25[0]!.cHi).toBe(12.4);
  });
});
