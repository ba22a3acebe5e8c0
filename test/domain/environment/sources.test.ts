import { describe, expect, it } from "vitest";
import { SOURCES, dataSources, isSourceId, type StationRef } from "../../../src/domain/environment/index.js";

describe("dataSources", () => {
  it("groups by source, sorted by id, with distinct sorted station ids", () => {
    const used: StationRef[] = [
      { source: "nws", stationId: "KNYC" },
      { source: "airnow", stationId: "360610135" },
      { source: "nws", stationId: "KJFK" },
      { source: "airnow", stationId: "360050110" },
      { source: "nws", stationId: "KNYC" },
    ];
    expect(dataSources(used)).toEqual([
      { id: "airnow", name: "AirNow (U.S. Environmental Protection Agency)", kind: "air", stationIds: ["360050110", "360610135"] },
      { id: "nws", name: "National Weather Service (United States)", kind: "weather", stationIds: ["KJFK", "KNYC"] },
    ]);
  });

  it("is empty for no stations and rejects unknown sources", () => {
    expect(dataSources([])).toEqual([]);
    expect(() => dataSources([{ source: "bogus" as never, stationId: "x" }])).toThrow(RangeError);
  });
});

describe("SOURCES and isSourceId", () => {
  it("catalogues the four networks", () => {
    expect(Object.keys(SOURCES).sort()).toEqual(["airnow", "cwa", "moenv", "nws"]);
    expect(SOURCES.cwa).toEqual({ id: "cwa", name: "Central Weather Administration (Taiwan)", kind: "weather", country: "TW" });
    expect(SOURCES.moenv.kind).toBe("air");
    expect(isSourceId("moenv")).toBe(true);
    expect(isSourceId("toString")).toBe(false);
    expect(isSourceId("CWA")).toBe(false);
  });
});
