/**
 * Taiwan's weather agency, CWA: the automatic weather stations' current
 * observations (dataset O-A0001-001), `records.Station[]`.
 *
 * - `-99` (number or text) means missing, and numbers sometimes come as text.
 * - The position is the `WGS84` entry of `GeoInfo.Coordinates` (the other is TWD67).
 * - `ObsTime.DateTime` is local time with its offset (`2026-03-09T20:00:00+08:00`).
 * - `WeatherElement.Now.Precipitation` is the running total since local
 *   midnight, kept as such here and turned into the hour's amount when stored
 *   (src/domain/environment/precipitation.ts), against the previous hour's total.
 */
import { checkItem, type Feed, feedOf, isObject, numberOf, type Read, recordsOf, SOURCE_STATIONS, skip } from "./feed.js";

const MISSING = [-99, "-99"];
const OFFSET_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}:?\d{2}|Z)$/;

function position(station: Record<string, unknown>): Read<{ latitude: number | null; longitude: number | null }> {
  const geo = station.GeoInfo;
  const coordinates = isObject(geo) && Array.isArray(geo.Coordinates) ? geo.Coordinates : [];
  const wgs84 = coordinates.find((c) => isObject(c) && c.CoordinateName === "WGS84");
  if (!isObject(wgs84)) return skip("no position", "GeoInfo.Coordinates: no WGS84 entry");
  const latitude = numberOf("StationLatitude", wgs84.StationLatitude, MISSING);
  if (!latitude.ok) return latitude;
  const longitude = numberOf("StationLongitude", wgs84.StationLongitude, MISSING);
  if (!longitude.ok) return longitude;
  if (latitude.value === null || longitude.value === null) return skip("no position", "GeoInfo.Coordinates: WGS84 position is missing");
  return { ok: true, value: { latitude: latitude.value, longitude: longitude.value } };
}

/** Reads one O-A0001-001 payload. Throws FeedError when it is not one. */
export function readCwa(payload: unknown): Feed {
  return feedOf("cwa", ["temp_c", "rh", "precip_mm"], recordsOf(payload, ["records", "Station"], "a CWA O-A0001-001 payload"), readStation);
}

function readStation(where: string, raw: unknown): ReturnType<typeof checkItem> {
  if (!isObject(raw)) return skip("not a record", "expected an object");
  const id = typeof raw.StationId === "string" ? raw.StationId.trim() : "";
  if (!id) return skip("no station id", "StationId: missing");
  const time = isObject(raw.ObsTime) ? raw.ObsTime.DateTime : undefined;
  if (typeof time !== "string" || !OFFSET_INSTANT.test(time)) {
    return skip("bad time", `ObsTime.DateTime: expected a local time with its offset, got ${JSON.stringify(time ?? null)}`);
  }
  const place = position(raw);
  if (!place.ok) return place;
  const elements = isObject(raw.WeatherElement) ? raw.WeatherElement : {};
  const temp = numberOf("AirTemperature", elements.AirTemperature, MISSING);
  if (!temp.ok) return temp;
  const rh = numberOf("RelativeHumidity", elements.RelativeHumidity, MISSING);
  if (!rh.ok) return rh;
  const total = numberOf("Now.Precipitation", isObject(elements.Now) ? elements.Now.Precipitation : undefined, MISSING);
  if (!total.ok) return total;
  return checkItem(
    where,
    { id, name: typeof raw.StationName === "string" ? raw.StationName : id, ...SOURCE_STATIONS.cwa, ...place.value },
    { observed_at: time, temp_c: temp.value, rh: rh.value, precip_mm: null },
    {
      "station.id": { field: "StationId", value: raw.StationId },
      "station.name": { field: "StationName", value: raw.StationName },
      "station.latitude": { field: "StationLatitude", value: place.value.latitude },
      "station.longitude": { field: "StationLongitude", value: place.value.longitude },
      "observation.observed_at": { field: "ObsTime.DateTime", value: time },
      "observation.temp_c": { field: "AirTemperature", value: elements.AirTemperature },
      "observation.rh": { field: "RelativeHumidity", value: elements.RelativeHumidity },
    },
    total.value,
  );
}
