import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { idw, type IdwResult } from "../../../src/domain/environment/index.js";
import type { IdwSample } from "../../../src/domain/environment/idw.js";

const s = (stationId: string, distanceM: number, value: number | null | undefined) => ({ stationId, distanceM, value });
const plain = (r: IdwResult) => r.used.map(({ stationId, distanceM, weight }) => ({ stationId, distanceM, weight }));

describe("idw", () => {
  it("uses the three nearest and ignores a fourth, farther outlier", () => {
    // weights 1/1000², 1/2000², 1/4000² are in ratio 16 : 4 : 1
    const r = idw([s("OUT", 5000, 1000), s("C", 4000, 40), s("A", 1000, 10), s("B", 2000, 20)]);
    expect(r.value).toBeCloseTo((16 * 10 + 4 * 20 + 1 * 40) / 21, 12); // 13.333…
    expect(plain(r)).toEqual([
      { stationId: "A", distanceM: 1000, weight: expect.closeTo(16 / 21, 12) },
      { stationId: "B", distanceM: 2000, weight: expect.closeTo(4 / 21, 12) },
      { stationId: "C", distanceM: 4000, weight: expect.closeTo(1 / 21, 12) },
    ]);
  });

  it("skips a station missing the metric so the next one takes its place", () => {
    const r = idw([
      s("NEAR", 500, null),
      s("U", 600, undefined),
      s("N", 700, Number.NaN),
      s("A", 1000, 10),
      s("B", 2000, 20),
      s("C", 4000, 40),
      s("D", 8000, 80),
    ]);
    expect(r.value).toBeCloseTo(280 / 21, 12);
    expect(r.used.map((u) => u.stationId)).toEqual(["A", "B", "C"]);
  });

  it("gives a station 0.5 m away all the weight", () => {
    const r = idw([s("FAR", 100, 100), s("HERE", 0.5, 7), s("FAR2", 200, 50)]);
    expect(r.value).toBe(7);
    expect(plain(r)).toEqual([{ stationId: "HERE", distanceM: 0.5, weight: 1 }]);
  });

  it("with several stations under 1 m, the nearest alone wins", () => {
    const r = idw([s("X", 0.9, 1), s("Y", 0.3, 2), s("Z", 0, 3)]);
    expect(r.value).toBe(3);
    expect(r.used.map((u) => u.stationId)).toEqual(["Z"]);
    // equal distances: lowest station id
    expect(idw([s("Q", 0.2, 5), s("P", 0.2, 6)]).value).toBe(6);
  });

  it("does not snap at exactly 1 m", () => {
    // weights 1/1 and 1/4 → (1·0 + 0.25·10)/1.25 = 2
    expect(idw([s("A", 1, 0), s("B", 2, 10)]).value).toBeCloseTo(2, 12);
  });

  it("uses fewer than three when that is all there is", () => {
    // weights 1/100² : 1/300² = 9 : 1
    const r = idw([s("A", 100, 0), s("B", 300, 10)]);
    expect(r.value).toBeCloseTo(1, 12);
    expect(r.used.map((u) => u.weight)).toEqual([expect.closeTo(0.9, 12), expect.closeTo(0.1, 12)]);
  });

  it("gives null with no station or no value", () => {
    expect(idw([])).toEqual({ value: null, used: [] });
    expect(idw([s("A", 10, null), s("B", 20, undefined)])).toEqual({ value: null, used: [] });
  });

  it("honours k and keeps the input sample", () => {
    const input = [s("A", 10, 1), s("B", 20, 2)];
    const r = idw(input, { k: 1 });
    expect(r.value).toBe(1);
    expect(r.used[0]?.sample).toBe(input[0]);
  });

  it("rejects bad k and bad distances", () => {
    expect(() => idw([], { k: 0 })).toThrow(RangeError);
    expect(() => idw([], { k: 1.5 })).toThrow(RangeError);
    expect(() => idw([s("A", -1, 1)])).toThrow(RangeError);
    expect(() => idw([s("A", Number.NaN, 1)])).toThrow(RangeError);
  });
});

describe("idw's choice of stations", () => {
  /** The rule, written as a sort: by distance, then station id; the first k with a value. */
  const byRule = (samples: IdwSample[], k: number) =>
    samples
      .filter((s) => s.value != null && !Number.isNaN(s.value))
      .sort((a, b) => a.distanceM - b.distanceM || (a.stationId < b.stationId ? -1 : a.stationId > b.stationId ? 1 : 0))
      .slice(0, k);

  it("is the k nearest with a value, ties by station id, whatever the input order", () => {
    // Few distinct distances and ids, so that ties and duplicates are common.
    const sample = fc.record({
      stationId: fc.constantFrom("a", "b", "c", "d", "e", "f"),
      distanceM: fc.constantFrom(1, 2, 3, 5, 8, 1000, 2.5),
      value: fc.oneof(fc.constant(null), fc.constant(Number.NaN), fc.integer({ min: -50, max: 500 })),
    });
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 40 }), fc.integer({ min: 1, max: 5 }), (samples, k) => {
        const chosen = idw(samples, { k }).used.map((u) => u.sample);
        const expected = byRule(samples, k);
        // Under 1 m one station takes it all; no distance here is, so every chosen one is used.
        return chosen.length === expected.length && chosen.every((s, i) => s === expected[i]);
      }),
      { numRuns: 5_000 },
    );
  });
});
