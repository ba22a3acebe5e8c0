import { describe, expect, it } from "vitest";
import {
  aqiCategory,
  aqiFromConcentrations,
  standardForCountry,
  subIndex,
  type AqiPollutant,
  type AqiStandard,
} from "../../../src/domain/environment/index.js";

// Breakpoints retyped from the agencies' published tables (EPA 89 FR 16202; MOENV, 2025): [cLo, cHi, iLo, iHi].
type Row = [number, number, number, number];
const TABLES: Record<AqiStandard, Record<AqiPollutant, Row[]>> = {
  EPA: {
    pm25: [
      [0, 9.0, 0, 50],
      [9.1, 35.4, 51, 100],
      [35.5, 55.4, 101, 150],
      [55.5, 125.4, 151, 200],
      [125.5, 225.4, 201, 300],
      [225.5, 325.4, 301, 500],
    ],
    pm10: [
      [0, 54, 0, 50],
      [55, 154, 51, 100],
      [155, 254, 101, 150],
      [255, 354, 151, 200],
      [355, 424, 201, 300],
      [425, 604, 301, 500],
    ],
  },
  MOENV: {
    pm25: [
      [0, 12.4, 0, 50],
      [12.5, 30.4, 51, 100],
      [30.5, 50.4, 101, 150],
      [50.5, 125.4, 151, 200],
      [125.5, 225.4, 201, 300],
      [225.5, 325.4, 301, 400],
      [325.5, 500.4, 401, 500],
    ],
    pm10: [
      [0, 30, 0, 50],
      [31, 75, 51, 100],
      [76, 190, 101, 150],
      [191, 354, 151, 200],
      [355, 424, 201, 300],
      [425, 504, 301, 400],
      [505, 604, 401, 500],
    ],
  },
};

describe("subIndex at every breakpoint edge", () => {
  for (const standard of ["EPA", "MOENV"] as const) {
    for (const pollutant of ["pm25", "pm10"] as const) {
      for (const [cLo, cHi, iLo, iHi] of TABLES[standard][pollutant]) {
        it(`${standard} ${pollutant}: ${cLo} → ${iLo}, ${cHi} → ${iHi}`, () => {
          expect(subIndex(standard, pollutant, cLo)).toBe(iLo);
          expect(subIndex(standard, pollutant, cHi)).toBe(iHi);
        });
      }
    }
  }

  it("EPA PM2.5 examples spelled out", () => {
    const pairs: Array<[number, number]> = [
      [9.0, 50],
      [9.1, 51],
      [35.4, 100],
      [35.5, 101],
      [55.4, 150],
      [55.5, 151],
      [125.4, 200],
      [125.5, 201],
      [225.4, 300],
      [225.5, 301],
      [325.4, 500],
    ];
    for (const [c, i] of pairs) expect(subIndex("EPA", "pm25", c)).toBe(i);
  });

  it("MOENV PM2.5 examples spelled out", () => {
    const pairs: Array<[number, number]> = [
      [12.4, 50],
      [12.5, 51],
      [30.4, 100],
      [30.5, 101],
      [50.4, 150],
      [50.5, 151],
      [125.4, 200],
      [125.5, 201],
      [225.4, 300],
      [225.5, 301],
      [325.4, 400],
      [325.5, 401],
      [500.4, 500],
    ];
    for (const [c, i] of pairs) expect(subIndex("MOENV", "pm25", c)).toBe(i);
  });
});

describe("subIndex between edges", () => {
  const linear = (c: number, [cLo, cHi, iLo, iHi]: Row) => Math.round(((iHi - iLo) / (cHi - cLo)) * (c - cLo) + iLo);

  it("mid-band values follow the linear formula", () => {
    expect(linear(20.0, [9.1, 35.4, 51, 100])).toBe(71); // 49/26.3·10.9 + 51 = 71.31
    expect(subIndex("EPA", "pm25", 20.0)).toBe(71);
    expect(linear(100, [76, 190, 101, 150])).toBe(111); // 49/114·24 + 101 = 111.32
    expect(subIndex("MOENV", "pm10", 100)).toBe(111);
    expect(subIndex("EPA", "pm10", 100)).toBe(linear(100, [55, 154, 51, 100])); // 73
    expect(subIndex("MOENV", "pm25", 40)).toBe(linear(40, [30.5, 50.4, 101, 150])); // 124
    expect(subIndex("EPA", "pm25", 4.5)).toBe(25); // 50/9·4.5 = 25 exactly
  });

  it("EPA truncates concentrations", () => {
    expect(subIndex("EPA", "pm25", 9.05)).toBe(50);
    expect(subIndex("EPA", "pm25", 9.09)).toBe(50);
    expect(subIndex("EPA", "pm25", 35.49)).toBe(100);
    expect(subIndex("EPA", "pm10", 54.9)).toBe(50);
    expect(subIndex("EPA", "pm10", 154.99)).toBe(100);
  });

  it("MOENV rounds concentrations half-up", () => {
    expect(subIndex("MOENV", "pm25", 12.44)).toBe(50);
    expect(subIndex("MOENV", "pm25", 12.45)).toBe(51);
    expect(subIndex("MOENV", "pm10", 30.4)).toBe(50);
    expect(subIndex("MOENV", "pm10", 30.5)).toBe(51);
  });

  it("caps beyond the table at 500 and rejects negatives", () => {
    expect(subIndex("EPA", "pm25", 325.5)).toBe(500);
    expect(subIndex("EPA", "pm25", 999)).toBe(500);
    expect(subIndex("EPA", "pm10", 605)).toBe(500);
    expect(subIndex("MOENV", "pm25", 500.5)).toBe(500);
    expect(subIndex("MOENV", "pm10", 605)).toBe(500);
    expect(subIndex("EPA", "pm25", 0)).toBe(0);
    expect(subIndex("EPA", "pm25", -0.1)).toBeNull();
    expect(subIndex("MOENV", "pm10", -5)).toBeNull();
    expect(subIndex("EPA", "pm25", Number.NaN)).toBeNull();
    expect(subIndex("EPA", "pm25", null)).toBeNull();
    expect(subIndex("MOENV", "pm10", undefined)).toBeNull();
  });
});

describe("aqiFromConcentrations", () => {
  it("takes the highest available sub-index", () => {
    expect(aqiFromConcentrations("EPA", { pm25: 35.5, pm10: 100 })).toBe(101); // 101 vs 73
    expect(aqiFromConcentrations("EPA", { pm25: 5, pm10: 160 })).toBe(103); // 28 vs 49/99·5 + 101 = 103.47 → 103
    expect(aqiFromConcentrations("MOENV", { pm25: 12.5, pm10: 30 })).toBe(51);
    expect(aqiFromConcentrations("MOENV", { pm25: null, pm10: 31 })).toBe(51);
    expect(aqiFromConcentrations("EPA", { pm10: 54 })).toBe(50);
    expect(aqiFromConcentrations("EPA", {})).toBeNull();
    expect(aqiFromConcentrations("MOENV", { pm25: -1, pm10: null })).toBeNull();
  });
});

describe("aqiCategory", () => {
  const edges: Array<[number, string]> = [
    [0, "Good"],
    [50, "Good"],
    [51, "Moderate"],
    [100, "Moderate"],
    [101, "Unhealthy for Sensitive Groups"],
    [150, "Unhealthy for Sensitive Groups"],
    [151, "Unhealthy"],
    [200, "Unhealthy"],
    [201, "Very Unhealthy"],
    [300, "Very Unhealthy"],
    [301, "Hazardous"],
    [400, "Hazardous"],
    [401, "Hazardous"],
    [500, "Hazardous"],
    [501, "Hazardous"],
  ];
  for (const standard of ["EPA", "MOENV"] as const) {
    it(`${standard} band edges`, () => {
      for (const [aqi, name] of edges) expect(aqiCategory(standard, aqi)).toBe(name);
    });
  }

  it("rounds before categorising and passes null through", () => {
    expect(aqiCategory("EPA", 50.4)).toBe("Good");
    expect(aqiCategory("EPA", 50.5)).toBe("Moderate");
    expect(aqiCategory("MOENV", 100.49)).toBe("Moderate");
    expect(aqiCategory("MOENV", null)).toBeNull();
    expect(aqiCategory("EPA", undefined)).toBeNull();
    expect(aqiCategory("EPA", -1)).toBeNull();
    expect(aqiCategory("EPA", Number.NaN)).toBeNull();
  });
});

describe("standardForCountry", () => {
  it("maps TW to MOENV and US to EPA, others to null", () => {
    expect(standardForCountry("TW")).toBe("MOENV");
    expect(standardForCountry("US")).toBe("EPA");
    expect(standardForCountry("tw")).toBe("MOENV");
    expect(standardForCountry(" us ")).toBe("EPA");
    expect(standardForCountry("JP")).toBeNull();
    expect(standardForCountry(null)).toBeNull();
  });
});
