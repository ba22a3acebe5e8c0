import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { round1, roundHalfAwayFromZero, roundInt, truncateDecimals } from "../../../src/domain/environment/index.js";
import { roundHalfAwayFromZeroExactly, truncateDecimalsExactly } from "../../../src/domain/environment/rounding.js";

describe("round1", () => {
  it("rounds halves away from zero despite binary fractions", () => {
    expect(round1(0.05)).toBe(0.1);
    expect(round1(-0.05)).toBe(-0.1);
    expect(round1(0.15)).toBe(0.2); // stored as 0.1499999999999999944…
    expect(round1(1.45)).toBe(1.5);
    expect(round1(2.25)).toBe(2.3);
    expect(round1(-2.25)).toBe(-2.3);
    expect(round1(18.25)).toBe(18.3);
    expect(round1(0.1 + 0.2)).toBe(0.3);
    expect(round1(1.04999)).toBe(1);
    expect(round1(123_456.75)).toBe(123_456.8);
    expect(round1(1e-7)).toBe(0);
  });

  it("never returns negative zero", () => {
    expect(Object.is(round1(-0.04), 0)).toBe(true);
    expect(Object.is(round1(-0), 0)).toBe(true);
  });

  it("passes null, undefined and NaN through", () => {
    expect(round1(null)).toBeNull();
    expect(round1(undefined)).toBeNull();
    expect(round1(Number.NaN)).toBeNaN();
  });
});

describe("roundInt", () => {
  it("rounds halves away from zero", () => {
    expect(roundInt(0.5)).toBe(1);
    expect(roundInt(-0.5)).toBe(-1);
    expect(roundInt(2.5)).toBe(3);
    expect(roundInt(-2.5)).toBe(-3);
    expect(roundInt(49.5)).toBe(50);
    expect(roundInt(49.49)).toBe(49);
    expect(roundInt(68.571)).toBe(69);
    expect(roundInt(null)).toBeNull();
  });
});

describe("roundHalfAwayFromZero and truncateDecimals", () => {
  it("handle the classic two-decimal traps", () => {
    expect(roundHalfAwayFromZero(2.675, 2)).toBe(2.68);
    expect(roundHalfAwayFromZero(1.005, 2)).toBe(1.01);
    expect(roundHalfAwayFromZero(-1.005, 2)).toBe(-1.01);
    expect(roundHalfAwayFromZero(1e21, 1)).toBe(1e21);
  });

  it("truncate toward zero without float artefacts", () => {
    expect(truncateDecimals(9.1, 1)).toBe(9.1);
    expect(truncateDecimals(0.3, 1)).toBe(0.3);
    expect(truncateDecimals(35.49, 1)).toBe(35.4);
    expect(truncateDecimals(54.99, 0)).toBe(54);
    expect(truncateDecimals(-1.25, 1)).toBe(-1.2);
  });

  it("reject bad decimal counts", () => {
    expect(() => roundHalfAwayFromZero(1, -1)).toThrow(RangeError);
    expect(() => truncateDecimals(1, 0.5)).toThrow(RangeError);
  });
});

describe("the fast path (multiplying)", () => {
  // Decimal-looking values (what sensors and averages give), values a hair off a half or an integer, and any double.
  const decimal = fc
    .tuple(fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }), fc.integer({ min: 0, max: 6 }))
    .map(([n, places]) => n / 10 ** places);
  const nearBoundary = fc
    .tuple(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.constantFrom(0, 0.5), fc.integer({ min: -40, max: 40 }))
    .map(([n, at, ulps]) => (n + at) / 10 + ulps * Number.EPSILON * Math.max(1, Math.abs(n)));
  const value = fc.oneof(decimal, nearBoundary, fc.double({ min: -1e9, max: 1e9, noNaN: true }));
  const decimals = fc.integer({ min: 0, max: 3 });

  it("rounds every value as the decimal text does", () => {
    fc.assert(
      fc.property(value, decimals, (x, d) => Object.is(roundHalfAwayFromZero(x, d), roundHalfAwayFromZeroExactly(x, d))),
      { numRuns: 20_000 },
    );
  });

  it("truncates every value as the decimal text does", () => {
    fc.assert(
      fc.property(value, decimals, (x, d) => Object.is(truncateDecimals(x, d), truncateDecimalsExactly(x, d))),
      { numRuns: 20_000 },
    );
  });
});
