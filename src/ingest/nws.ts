/**
 * The United States' National Weather Service (api.weather.gov): station
 * observations as GeoJSON, a FeatureCollection of them
 * (`/stations/{id}/observations`) or one Feature (`…/observations/latest`).
 *
 * - Each value is `{ unitCode, value }`, converted by its unit code;
 *   `value: null` is common and means missing.
 * - `properties.timestamp` is UTC.
 * - The station's position is the feature's geometry, `[longitude, latitude]`.
 */
import { checkItem, type Feed, feedOf, isObject, type Read, recordsOf, SOURCE_STATIONS, skip } from "./feed.js";

/** From each unit code the gateway accepts to its own unit (°C, %, mm). */
const UNITS: Record<string, Record<string, (v: number) => number>> = {
  temperature: {
    "wmoUnit:degC": (v) => v,
    "wmoUnit:degF": (v) => ((v - 32) * 5) / 9,
    "wmoUnit:K": (v) => v - 273.15,
  },
  relativeHumidity: { "wmoUnit:percent": (v) => v },
  precipitationLastHour: { "wmoUnit:mm": (v) => v, "wmoUnit:m": (v) => v * 1000 },
};

/** A quantity in the gateway's unit, to a thousandth (0.0003 m is 0.3 mm, not 0.30000000000000004). */
function quantity(properties: Record<string, unknown>, name: keyof typeof UNITS): Read<number | null> {
  const q = properties[name];
  if (q === undefined || q === null) return { ok: true, value: null };
  if (!isObject(q)) return skip("not a number", `${name}: expected { unitCode, value }`);
  if (q.value === null || q.value === undefined) return { ok: true, value: null };
  if (typeof q.value !== "number" || !Number.isFinite(q.value))
    return skip("not a number", `${name}.value: not a number: ${JSON.stringify(q.value)}`);
  const convert = UNITS[name]?.[String(q.unitCode)];
  if (!convert)
    return skip(
      "unknown unit",
      `${name}.unitCode: ${JSON.stringify(q.unitCode ?? null)} is not one of ${Object.keys(UNITS[name] ?? {}).join(", ")}`,
    );
  return { ok: true, value: Math.round(convert(q.value) * 1000) / 1000 };
}

/** Reads one observations payload. Throws FeedError when it is not one. */
export function readNws(payload: unknown): Feed {
  const records =
    isObject(payload) && payload.type === "Feature"
      ? { list: [payload], at: "feature" }
      : recordsOf(payload, ["features"], "an api.weather.gov observations payload");
  return feedOf("nws", ["temp_c", "rh", "precip_mm"], records, readFeature);
}

function stationIdOf(properties: Record<string, unknown>): string {
  if (typeof properties.stationId === "string" && properties.stationId.trim()) return properties.stationId.trim();
  const url = typeof properties.station === "string" ? properties.station : "";
  return url.replace(/\/+$/, "").split("/").pop() ?? "";
}

function readFeature(where: string, raw: unknown): ReturnType<typeof checkItem> {
  if (!isObject(raw) || !isObject(raw.properties)) return skip("not a record", "expected a GeoJSON Feature with properties");
  const p = raw.properties;
  const id = stationIdOf(p);
  if (!id) return skip("no station id", "properties.station: missing");
  if (typeof p.timestamp !== "string") return skip("bad time", "properties.timestamp: missing");
  const geometry = raw.geometry;
  const coordinates = isObject(geometry) && geometry.type === "Point" && Array.isArray(geometry.coordinates) ? geometry.coordinates : [];
  const [longitude, latitude] = coordinates;
  if (typeof latitude !== "number" || typeof longitude !== "number")
    return skip("no position", "geometry: expected a Point [longitude, latitude]");
  const temp = quantity(p, "temperature");
  if (!temp.ok) return temp;
  const rh = quantity(p, "relativeHumidity");
  if (!rh.ok) return rh;
  const precip = quantity(p, "precipitationLastHour");
  if (!precip.ok) return precip;
  return checkItem(
    where,
    {
      id,
      name: typeof p.stationName === "string" && p.stationName.trim() ? p.stationName : id,
      ...SOURCE_STATIONS.nws,
      latitude,
      longitude,
    },
    { observed_at: p.timestamp, temp_c: temp.value, rh: rh.value, precip_mm: precip.value },
    {
      "station.id": { field: "properties.station", value: id },
      "station.name": { field: "properties.stationName", value: p.stationName },
      "station.latitude": { field: "geometry.coordinates[1]", value: latitude },
      "station.longitude": { field: "geometry.coordinates[0]", value: longitude },
      "observation.observed_at": { field: "properties.timestamp", value: p.timestamp },
      "observation.temp_c": { field: "temperature.value", value: temp.value },
      "observation.rh": { field: "relativeHumidity.value", value: rh.value },
      "observation.precip_mm": { field: "precipitationLastHour.value", value: precip.value },
    },
  );
}
