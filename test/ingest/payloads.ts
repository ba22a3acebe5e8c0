/**
 * Payloads in each agency's own format, as the agencies publish them, built
 * for the ingest tests (the values are the tests' own; the shapes, names,
 * units and traps are the agencies').
 */

/** One station of CWA O-A0001-001 (`records.Station[]`). Values may be numbers or text; -99 is missing. */
export interface CwaStation {
  id: string;
  name?: string;
  /** Local time with its offset, `2026-03-09T20:00:00+08:00`. */
  time: string;
  wgs84: [latitude: number | string, longitude: number | string];
  temp?: number | string;
  rh?: number | string;
  /** Running total since local midnight. */
  precipTotal?: number | string;
}

export function cwaPayload(stations: readonly CwaStation[]) {
  return {
    success: "true",
    result: { resource_id: "O-A0001-001", fields: [{ id: "StationName", type: "String" }] },
    records: {
      Station: stations.map((s) => ({
        StationName: s.name ?? `測站${s.id}`,
        StationId: s.id,
        ObsTime: { DateTime: s.time },
        GeoInfo: {
          // TWD67 first, about 800 m off WGS84: a reader taking the first entry is caught.
          Coordinates: [
            {
              CoordinateName: "TWD67",
              CoordinateFormat: "decimal degrees",
              StationLatitude: Math.round((Number(s.wgs84[0]) - 0.0017) * 1e4) / 1e4,
              StationLongitude: Math.round((Number(s.wgs84[1]) - 0.0083) * 1e4) / 1e4,
            },
            { CoordinateName: "WGS84", CoordinateFormat: "decimal degrees", StationLatitude: s.wgs84[0], StationLongitude: s.wgs84[1] },
          ],
          StationAltitude: "10.0",
          CountyName: "臺北市",
          TownName: "大安區",
          CountyCode: "63000",
          TownCode: "63000030",
        },
        WeatherElement: {
          Weather: "陰",
          Now: { Precipitation: s.precipTotal ?? -99 },
          WindDirection: 90,
          WindSpeed: 1.2,
          AirTemperature: s.temp ?? -99,
          RelativeHumidity: s.rh ?? -99,
          AirPressure: 1012.3,
          GustInfo: { PeakGustSpeed: -99, Occurred_at: { WindDirection: -99, DateTime: -99 } },
        },
      })),
    },
  };
}

/** One site of MOENV aqx_p_432: every value is text, missing is "". */
export interface MoenvSite {
  siteid: string;
  sitename?: string;
  /** `YYYY/MM/DD HH:mm:ss`, Taipei time, no offset. */
  publishtime: string;
  latitude: string;
  longitude: string;
  aqi?: string;
  pm25?: string;
  pm10?: string;
}

function moenvRecords(sites: readonly MoenvSite[]) {
  return sites.map((s) => ({
    sitename: s.sitename ?? `站${s.siteid}`,
    county: "臺北市",
    aqi: s.aqi ?? "",
    pollutant: "",
    status: "良好",
    so2: "1.2",
    co: "0.25",
    o3: "30",
    o3_8hr: "28",
    pm10: s.pm10 ?? "",
    "pm2.5": s.pm25 ?? "",
    no2: "10",
    nox: "12",
    no: "1.5",
    wind_speed: "1.8",
    wind_direc: "90",
    publishtime: s.publishtime,
    co_8hr: "0.2",
    "pm2.5_avg": "12",
    pm10_avg: "25",
    so2_avg: "1",
    longitude: s.longitude,
    latitude: s.latitude,
    siteid: s.siteid,
  }));
}

/** The newer form, a bare array, and the older one, wrapped in `records`. */
export const moenvBare = (sites: readonly MoenvSite[]) => moenvRecords(sites);
export const moenvWrapped = (sites: readonly MoenvSite[]) => ({
  fields: [{ id: "sitename", type: "text", info: { label: "測站名稱" } }],
  resource_id: "a1b0d9f2-6b0f-4f5c-9b2f-1f9f8c8b8d01",
  __extras: { api_key: "…" },
  include_total: true,
  total: String(sites.length),
  limit: "1000",
  offset: "0",
  records: moenvRecords(sites),
});

type Quantity = { unitCode: string; value: number | null } | undefined;

/** One observation of api.weather.gov: GeoJSON, values by unit code, timestamps in UTC. */
export interface NwsObservation {
  station: string;
  name?: string;
  /** UTC, `2026-03-09T11:53:00+00:00`. */
  timestamp: string;
  lonLat: [number, number];
  temperature?: Quantity;
  relativeHumidity?: Quantity;
  precipitationLastHour?: Quantity;
}

export function nwsFeature(o: NwsObservation) {
  const id = `https://api.weather.gov/stations/${o.station}/observations/${o.timestamp}`;
  return {
    id,
    type: "Feature",
    geometry: { type: "Point", coordinates: o.lonLat },
    properties: {
      "@id": id,
      "@type": "wx:ObservationStation",
      elevation: { unitCode: "wmoUnit:m", value: 130 },
      station: `https://api.weather.gov/stations/${o.station}`,
      ...(o.name ? { stationName: o.name } : {}),
      timestamp: o.timestamp,
      rawMessage: `${o.station} 091153Z 18008KT 10SM FEW030 06/03 A3002`,
      textDescription: "Mostly Cloudy",
      temperature: o.temperature ?? { unitCode: "wmoUnit:degC", value: null, qualityControl: "Z" },
      dewpoint: { unitCode: "wmoUnit:degC", value: 3.3, qualityControl: "V" },
      windSpeed: { unitCode: "wmoUnit:km_h-1", value: 14.8, qualityControl: "V" },
      relativeHumidity: o.relativeHumidity ?? { unitCode: "wmoUnit:percent", value: null, qualityControl: "Z" },
      precipitationLastHour: o.precipitationLastHour ?? { unitCode: "wmoUnit:mm", value: null, qualityControl: "Z" },
    },
  };
}

export const nwsCollection = (observations: readonly NwsObservation[]) => ({
  "@context": ["https://geojson.org/geojson-ld/geojson-context.jsonld"],
  type: "FeatureCollection",
  features: observations.map(nwsFeature),
});

/** One record of AirNow's current observations: one site, hour and pollutant. */
export interface AirNowRecord {
  siteID: string;
  /** `YYYY-MM-DD`, AirNow writes a trailing space. */
  dateObserved: string;
  hourObserved: number;
  localTimeZone: string;
  parameterName: "PM2.5" | "PM10" | "O3";
  nowcastAQI: number;
}

export const airNowPayload = (records: readonly AirNowRecord[]) =>
  records.map((r) => ({
    dateObserved: r.dateObserved,
    hourObserved: r.hourObserved,
    localTimeZone: r.localTimeZone,
    reportingArea: "Seattle-Bellevue-Kent Valley",
    stateCode: "WA",
    siteID: r.siteID,
    siteName: `Site ${r.siteID}`,
    parameterName: r.parameterName,
    nowcastAQI: r.nowcastAQI,
    aqiCategoryName: r.nowcastAQI <= 50 ? "Good" : "Moderate",
  }));

/** AirNow's monitoring-site list, pipe-delimited with its header line. */
export function airNowSites(sites: readonly { id: string; name: string; latitude: number; longitude: number }[]): string {
  const header =
    "StationID|AQSID|FullAQSID|Parameter|MonitorType|SiteCode|SiteName|Status|AgencyID|AgencyName|EPARegion|Latitude|Longitude|Elevation|GMTOffset|CountryFIPS";
  const rows = sites.map(
    (s) =>
      `${s.id}|${s.id}|840${s.id}|PM2.5|Permanent|0001|${s.name}|Active|WA1|Washington Department of Ecology|R10|${s.latitude}|${s.longitude}|30.0|-8.00|US`,
  );
  return `${[header, ...rows].join("\n")}\n`;
}
