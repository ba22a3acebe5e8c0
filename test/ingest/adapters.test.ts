/**
 * Each agency adapter on its own, one test per trap of its format: what it
 * reads, what it leaves missing, and what it skips (with position and reason)
 * while keeping the rest.
 */
import { describe, expect, it } from "vitest";
import { readAirNow, readAirNowSites } from "../../src/ingest/airnow.js";
import { readCwa } from "../../src/ingest/cwa.js";
import { FeedError } from "../../src/ingest/feed.js";
import { readMoenv } from "../../src/ingest/moenv.js";
import { readNws } from "../../src/ingest/nws.js";
import { airNowPayload, airNowSites, cwaPayload, moenvBare, moenvWrapped, nwsCollection, nwsFeature } from "./payloads.js";

const at = (iso: string) => new Date(iso);
/** The platform's bounds, as a refusal names them (src/import/records.ts). */
const RANGE = {
  latitude: "expected a number from -90 to 90",
  pm25: "expected a number from 0 to 2000",
  rh: "expected a number from 0 to 100",
  aqi: "expected a number from 0 to 1000",
};

describe("CWA O-A0001-001", () => {
  const base = { id: "C0A520", time: "2026-03-09T20:00:00+08:00", wgs84: [25.03, 121.53] as [number, number] };

  it("reads the WGS84 coordinates, not the first (TWD67) entry", () => {
    const feed = readCwa(cwaPayload([{ ...base, temp: 18.5 }]));
    expect(feed.items[0]!.station).toMatchObject({
      id: "C0A520",
      kind: "weather",
      source: "cwa",
      country: "TW",
      latitude: 25.03,
      longitude: 121.53,
    });
  });

  it("reads ObsTime.DateTime as local time with its offset", () => {
    const feed = readCwa(cwaPayload([{ ...base, temp: 18.5 }]));
    expect(feed.items[0]!.observation.observed_at).toEqual(at("2026-03-09T12:00:00Z"));
  });

  it("treats -99, as a number or as text, as missing", () => {
    const feed = readCwa(cwaPayload([{ ...base, temp: -99, rh: "-99", precipTotal: -99 }]));
    expect(feed.skipped).toEqual([]);
    expect(feed.items[0]!.observation).toMatchObject({ temp_c: null, rh: null });
    expect(feed.items[0]!.precipRunningTotalMm).toBeNull();
  });

  it("reads numbers that come as text", () => {
    const feed = readCwa(cwaPayload([{ ...base, wgs84: ["25.03", "121.53"], temp: "18.5", rh: "82", precipTotal: "3.5" }]));
    expect(feed.items[0]!.observation).toMatchObject({ temp_c: 18.5, rh: 82 });
    expect(feed.items[0]!.station).toMatchObject({ latitude: 25.03, longitude: 121.53 });
    expect(feed.items[0]!.precipRunningTotalMm).toBe(3.5);
  });

  it("keeps Now.Precipitation as the running total, for the store to turn into an hour's amount", () => {
    const feed = readCwa(cwaPayload([{ ...base, precipTotal: 12.5 }]));
    expect(feed.items[0]!.precipRunningTotalMm).toBe(12.5);
    expect(feed.items[0]!.observation.precip_mm).toBeNull();
    expect(feed.fields).toEqual(["temp_c", "rh", "precip_mm"]);
  });

  it("skips a bad record with its position and reason, and keeps the rest", () => {
    const payload = cwaPayload([
      { ...base, temp: 18 },
      { ...base, id: "C0A530", temp: "abc" },
      { ...base, id: "C0A540", temp: 150 },
      { ...base, id: "C0A550", time: "2026-03-09 20:00" },
      { ...base, id: "C0A560", temp: 17 },
    ]);
    (payload.records.Station[0]!.GeoInfo.Coordinates as unknown[]).splice(1, 1);
    const feed = readCwa(payload);
    expect(feed.read).toBe(5);
    expect(feed.items.map((i) => i.station.id)).toEqual(["C0A560"]);
    expect(feed.skipped).toEqual([
      { position: "records.Station[0]", reason: "no position", detail: "GeoInfo.Coordinates: no WGS84 entry" },
      { position: "records.Station[1]", reason: "not a number", detail: 'AirTemperature: not a number: "abc"' },
      { position: "records.Station[2]", reason: "invalid observation", detail: "AirTemperature: expected a number from -90 to 70: 150" },
      { position: "records.Station[3]", reason: "bad time", detail: expect.stringContaining("ObsTime.DateTime") },
    ]);
  });

  it("refuses what is not a CWA payload at all", () => {
    expect(() => readCwa({ records: { location: [] } })).toThrow(FeedError);
    expect(() => readCwa({ records: { location: [] } })).toThrow("not a CWA O-A0001-001 payload: expected records.Station to be an array");
  });
});

describe("MOENV aqx_p_432", () => {
  const site = {
    siteid: "12",
    publishtime: "2026/03/09 20:00:00",
    latitude: "25.0129",
    longitude: "121.5345",
    aqi: "55",
    pm25: "15.2",
    pm10: "31",
  };

  it("reads every value from text, and missing from an empty string", () => {
    const feed = readMoenv(moenvBare([site, { ...site, siteid: "13", aqi: "", pm25: "", pm10: "" }]));
    expect(feed.items.map((i) => i.observation)).toEqual([
      {
        station_id: "moenv-12",
        observed_at: at("2026-03-09T12:00:00Z"),
        temp_c: null,
        rh: null,
        precip_mm: null,
        pm25_ugm3: 15.2,
        pm10_ugm3: 31,
        aqi: 55,
      },
      {
        station_id: "moenv-13",
        observed_at: at("2026-03-09T12:00:00Z"),
        temp_c: null,
        rh: null,
        precip_mm: null,
        pm25_ugm3: null,
        pm10_ugm3: null,
        aqi: null,
      },
    ]);
    expect(feed.items[0]!.station).toMatchObject({
      kind: "air",
      source: "moenv",
      country: "TW",
      latitude: 25.0129,
      longitude: 121.5345,
      name: "站12",
    });
    expect(feed.fields).toEqual(["pm25_ugm3", "pm10_ugm3", "aqi"]);
  });

  it("reads publishtime as Taipei time, which has no offset in the payload", () => {
    const feed = readMoenv(moenvBare([{ ...site, publishtime: "2026/03/10 00:00:00" }]));
    expect(feed.items[0]!.observation.observed_at).toEqual(at("2026-03-09T16:00:00Z"));
  });

  it("reads a bare array and the older form wrapped in records alike", () => {
    const bare = readMoenv(moenvBare([site]));
    const wrapped = readMoenv(moenvWrapped([site]));
    expect(wrapped.items.map((i) => ({ ...i, position: undefined }))).toEqual(bare.items.map((i) => ({ ...i, position: undefined })));
    expect(bare.items.map((i) => i.position)).toEqual(["[0]"]);
    expect(wrapped.items.map((i) => i.position)).toEqual(["records[0]"]);
  });

  it("keeps the agency's own AQI as reported, not one computed from the particulates", () => {
    // Under the 2025 MOENV table PM2.5 15.2 alone would give 56, PM10 31 gives 51: the agency said 72 (ozone, say).
    const feed = readMoenv(moenvBare([{ ...site, aqi: "72" }]));
    expect(feed.items[0]!.observation.aqi).toBe(72);
  });

  it("skips a bad site with its position and reason, and keeps the rest", () => {
    const feed = readMoenv(
      moenvWrapped([
        site,
        { ...site, siteid: "14", pm25: "ND" },
        { ...site, siteid: "15", latitude: "" },
        { ...site, siteid: "16", publishtime: "昨天" },
      ]),
    );
    expect(feed.items.map((i) => i.station.id)).toEqual(["moenv-12"]);
    expect(feed.skipped).toEqual([
      { position: "records[1]", reason: "not a number", detail: 'pm2.5: not a number: "ND"' },
      { position: "records[2]", reason: "no position", detail: "latitude, longitude: missing" },
      { position: "records[3]", reason: "bad time", detail: expect.stringContaining("publishtime") },
    ]);
  });

  it("names the agency's field and value when the platform's rules refuse a value it read", () => {
    const feed = readMoenv(
      moenvBare([
        { ...site, publishtime: "2026/13/45 25:00:00" },
        { ...site, siteid: "17", latitude: "125.5" },
        { ...site, siteid: "18", pm25: "-3" },
      ]),
    );
    expect(feed.items).toEqual([]);
    expect(feed.skipped).toEqual([
      { position: "[0]", reason: "bad time", detail: 'publishtime: not a time: "2026/13/45 25:00:00"' },
      { position: "[1]", reason: "invalid station", detail: `latitude: ${RANGE.latitude}: "125.5"` },
      { position: "[2]", reason: "invalid observation", detail: `pm2.5: ${RANGE.pm25}: "-3"` },
    ]);
  });
});

describe("api.weather.gov observations", () => {
  const obs = {
    station: "KSEA",
    name: "Seattle-Tacoma International Airport",
    timestamp: "2026-03-09T11:53:00+00:00",
    lonLat: [-122.3139, 47.4444] as [number, number],
  };

  it("takes the position from the feature's geometry, [longitude, latitude]", () => {
    const feed = readNws(nwsCollection([obs]));
    expect(feed.items[0]!.station).toEqual({
      id: "KSEA",
      name: "Seattle-Tacoma International Airport",
      kind: "weather",
      source: "nws",
      country: "US",
      latitude: 47.4444,
      longitude: -122.3139,
    });
  });

  it("reads timestamps as UTC", () => {
    expect(readNws(nwsCollection([obs])).items[0]!.observation.observed_at).toEqual(at("2026-03-09T11:53:00Z"));
  });

  it("converts by unit code: degC, degF, percent, m and mm", () => {
    const feed = readNws(
      nwsCollection([
        {
          ...obs,
          temperature: { unitCode: "wmoUnit:degC", value: 6.1 },
          relativeHumidity: { unitCode: "wmoUnit:percent", value: 81.5 },
          precipitationLastHour: { unitCode: "wmoUnit:m", value: 0.0003 },
        },
        {
          ...obs,
          timestamp: "2026-03-09T12:53:00+00:00",
          temperature: { unitCode: "wmoUnit:degF", value: 50 },
          precipitationLastHour: { unitCode: "wmoUnit:mm", value: 1.8 },
        },
      ]),
    );
    expect(feed.items.map((i) => [i.observation.temp_c, i.observation.rh, i.observation.precip_mm])).toEqual([
      [6.1, 81.5, 0.3],
      [10, null, 1.8],
    ]);
  });

  it("reads value: null as missing", () => {
    const feed = readNws(nwsCollection([obs]));
    expect(feed.skipped).toEqual([]);
    expect(feed.items[0]!.observation).toMatchObject({ temp_c: null, rh: null, precip_mm: null });
  });

  it("reads one Feature (the latest observation) as well as a collection", () => {
    const feed = readNws(nwsFeature({ ...obs, temperature: { unitCode: "wmoUnit:degC", value: 5 } }));
    expect(feed.items.map((i) => i.observation.temp_c)).toEqual([5]);
  });

  it("skips an unknown unit or a missing geometry with the position and reason, and keeps the rest", () => {
    const payload = nwsCollection([
      { ...obs, temperature: { unitCode: "wmoUnit:degR", value: 500 } },
      obs,
      { ...obs, station: "KBFI", temperature: { unitCode: "wmoUnit:degC", value: 7 } },
    ]);
    (payload.features[1] as { geometry: unknown }).geometry = null;
    const feed = readNws(payload);
    expect(feed.items.map((i) => i.station.id)).toEqual(["KBFI"]);
    expect(feed.skipped).toEqual([
      { position: "features[0]", reason: "unknown unit", detail: expect.stringContaining('temperature.unitCode: "wmoUnit:degR"') },
      { position: "features[1]", reason: "no position", detail: "geometry: expected a Point [longitude, latitude]" },
    ]);
  });

  it("names the agency's field and value when the platform's rules refuse a value it read", () => {
    const feed = readNws(
      nwsCollection([
        { ...obs, timestamp: "2026-02-30T11:53:00+00:00" },
        { ...obs, relativeHumidity: { unitCode: "wmoUnit:percent", value: 140 } },
        { ...obs, lonLat: [-122.3139, 95] },
      ]),
    );
    expect(feed.items).toEqual([]);
    expect(feed.skipped).toEqual([
      { position: "features[0]", reason: "bad time", detail: 'properties.timestamp: not a time: "2026-02-30T11:53:00+00:00"' },
      { position: "features[1]", reason: "invalid observation", detail: `relativeHumidity.value: ${RANGE.rh}: 140` },
      { position: "features[2]", reason: "invalid station", detail: `geometry.coordinates[1]: ${RANGE.latitude}: 95` },
    ]);
  });
});

describe("AirNow current observations", () => {
  const sites = readAirNowSites(airNowSites([{ id: "530330080", name: "Seattle-Beacon Hill", latitude: 47.5683, longitude: -122.3081 }]));
  const rec = {
    siteID: "530330080",
    dateObserved: "2026-03-09 ",
    hourObserved: 5,
    localTimeZone: "PDT",
    parameterName: "PM2.5" as const,
    nowcastAQI: 42,
  };

  it("reads the site list's positions from its pipe-delimited file, and from JSON", () => {
    expect(sites.skipped).toEqual([]);
    expect([...sites.sites]).toEqual([["530330080", { name: "Seattle-Beacon Hill", latitude: 47.5683, longitude: -122.3081 }]]);
    const json = readAirNowSites(
      JSON.stringify([{ siteID: "530330080", siteName: "Seattle-Beacon Hill", latitude: 47.5683, longitude: -122.3081 }]),
    );
    expect([...json.sites]).toEqual([...sites.sites]);
  });

  it("keys each hour by dateObserved and hourObserved in localTimeZone", () => {
    const feed = readAirNow(airNowPayload([rec, { ...rec, hourObserved: 6, localTimeZone: "PST" }]), sites.sites);
    expect(feed.items.map((i) => i.observation.observed_at)).toEqual([at("2026-03-09T12:00:00Z"), at("2026-03-09T14:00:00Z")]);
  });

  it("gives a site's hour the highest NowCast AQI of its pollutants, and reports no AQI as -1", () => {
    const feed = readAirNow(
      airNowPayload([rec, { ...rec, parameterName: "O3", nowcastAQI: 61 }, { ...rec, parameterName: "PM10", nowcastAQI: -1 }]),
      sites.sites,
    );
    expect(feed.read).toBe(3);
    expect(feed.items).toHaveLength(1);
    expect(feed.items[0]!.observation).toMatchObject({ station_id: "airnow-530330080", aqi: 61, pm25_ugm3: null });
    expect(feed.items[0]!.station).toMatchObject({ kind: "air", source: "airnow", country: "US", latitude: 47.5683, longitude: -122.3081 });
    expect(feed.fields).toEqual(["aqi"]);
  });

  it("skips an observation of a site with no known position, and reports it", () => {
    const feed = readAirNow(airNowPayload([{ ...rec, siteID: "530330999" }, rec]), sites.sites);
    expect(feed.items).toHaveLength(1);
    expect(feed.skipped).toEqual([
      { position: "[0]", reason: "unknown site", detail: "siteID 530330999: not in the site list, so it has no position" },
    ]);
  });

  it("skips an unknown time zone", () => {
    const feed = readAirNow(airNowPayload([{ ...rec, localTimeZone: "XYZ" }]), sites.sites);
    expect(feed.skipped.map((s) => s.reason)).toEqual(["bad time"]);
  });

  it("skips a day that is not one (2026-02-30 is no 2 March), and names a refused value by the agency's field", () => {
    const feed = readAirNow(
      airNowPayload([
        { ...rec, dateObserved: "2026-02-30 " },
        { ...rec, nowcastAQI: 1500 },
      ]),
      sites.sites,
    );
    expect(feed.items).toEqual([]);
    expect(feed.skipped).toEqual([
      { position: "[0]", reason: "bad time", detail: 'dateObserved: not a date: "2026-02-30 "' },
      { position: "[1]", reason: "invalid observation", detail: `nowcastAQI: ${RANGE.aqi}: 1500` },
    ]);
  });
});

describe("a payload of another agency", () => {
  it("is refused by each adapter, naming what it expected", () => {
    const moenv = moenvWrapped([]);
    expect(() => readCwa(moenv)).toThrow("not a CWA O-A0001-001 payload: expected records.Station to be an array");
    expect(() => readCwa([])).toThrow(FeedError);
    expect(() => readMoenv(cwaPayload([]))).toThrow("not a MOENV aqx_p_432 payload: expected records to be an array, or an array");
    expect(() => readNws(moenv)).toThrow("not an api.weather.gov observations payload: expected features to be an array");
    expect(() => readAirNow(moenv, new Map())).toThrow("not an AirNow observations payload: expected an array");
  });
});
