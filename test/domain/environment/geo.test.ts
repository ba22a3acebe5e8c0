import { describe, expect, it } from "vitest";
import { EARTH_RADIUS_M, haversineMeters } from "../../../src/domain/environment/index.js";

const R = 6_371_008.8;
const rad = (deg: number) => (deg * Math.PI) / 180;

describe("haversineMeters", () => {
  it("uses the IUGG mean radius", () => {
    expect(EARTH_RADIUS_M).toBe(6_371_008.8);
  });

  it("Taipei 101 to Taipei Main Station is about 5.02 km (equirectangular hand value)", () => {
    const t101 = { latitude: 25.033964, longitude: 121.564468 };
    const main = { latitude: 25.047924, longitude: 121.517081 };
    // Over 5 km the flat-Earth approximation agrees with the great circle to well under a metre.
    const midLat = rad((t101.latitude + main.latitude) / 2);
    const dy = rad(main.latitude - t101.latitude) * R; // ≈ 1552.3 m
    const dx = rad(main.longitude - t101.longitude) * Math.cos(midLat) * R; // ≈ -4773.9 m
    const hand = Math.hypot(dx, dy);
    expect(hand).toBeGreaterThan(5015);
    expect(hand).toBeLessThan(5025);
    expect(haversineMeters(t101, main)).toBeCloseTo(hand, 0);
    expect(haversineMeters(main, t101)).toBeCloseTo(hand, 0);
  });

  it("LAX to JFK matches the Aviation Formulary worked example (0.623585 rad)", () => {
    const lax = { latitude: 33 + 57 / 60, longitude: -(118 + 24 / 60) };
    const jfk = { latitude: 40 + 38 / 60, longitude: -(73 + 47 / 60) };
    const hand = 0.623585 * R; // 3,972,865.5 m; the radian figure is given to 6 digits (±3 m)
    expect(Math.abs(haversineMeters(lax, jfk) - hand)).toBeLessThan(5);
  });

  it("one degree along a meridian is R·π/180", () => {
    expect(haversineMeters({ latitude: 0, longitude: 0 }, { latitude: 1, longitude: 0 })).toBeCloseTo(111_195.08, 1);
  });

  it("is zero for the same point and half the circumference for antipodes", () => {
    const p = { latitude: 24.79, longitude: 120.99 };
    expect(haversineMeters(p, p)).toBe(0);
    expect(haversineMeters({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 180 })).toBeCloseTo(Math.PI * R, 3);
  });
});
