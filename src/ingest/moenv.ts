/**
 * Taiwan's environment agency, MOENV: real-time air quality (dataset
 * aqx_p_432), one record per site.
 *
 * - Every value is text, and missing is `""`.
 * - `publishtime` (`YYYY/MM/DD HH:mm:ss`) is Taipei time with no offset;
 *   Taiwan keeps UTC+8 all year.
 * - Newer payloads are a bare array, older ones wrap it in `records`.
 * - `aqi` is the agency's own figure, kept as reported (not recomputed).
 */
import { checkItem, type Feed, feedOf, isObject, numberOf, recordsOf, SOURCE_STATIONS, skip } from "./feed.js";

const PUBLISH_TIME = /^(\d{4})[/-](\d{2})[/-](\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;

const text = (v: unknown): string => (typeof v === "string" ? v.trim() : typeof v === "number" ? String(v) : "");

/** Reads one aqx_p_432 payload. Throws FeedError when it is not one. */
export function readMoenv(payload: unknown): Feed {
  return feedOf("moenv", ["pm25_ugm3", "pm10_ugm3", "aqi"], recordsOf(payload, ["records"], "a MOENV aqx_p_432 payload", true), readSite);
}

function readSite(where: string, raw: unknown): ReturnType<typeof checkItem> {
  if (!isObject(raw)) return skip("not a record", "expected an object");
  const site = text(raw.siteid);
  if (!site) return skip("no station id", "siteid: missing");
  const time = PUBLISH_TIME.exec(text(raw.publishtime));
  if (!time) return skip("bad time", `publishtime: expected YYYY/MM/DD HH:mm:ss, got ${JSON.stringify(raw.publishtime ?? null)}`);
  const [, y, mo, d, h, mi, s] = time;
  const latitude = numberOf("latitude", raw.latitude);
  if (!latitude.ok) return latitude;
  const longitude = numberOf("longitude", raw.longitude);
  if (!longitude.ok) return longitude;
  if (latitude.value === null || longitude.value === null) return skip("no position", "latitude, longitude: missing");
  const pm25 = numberOf("pm2.5", raw["pm2.5"]);
  if (!pm25.ok) return pm25;
  const pm10 = numberOf("pm10", raw.pm10);
  if (!pm10.ok) return pm10;
  const aqi = numberOf("aqi", raw.aqi);
  if (!aqi.ok) return aqi;
  return checkItem(
    where,
    {
      id: `moenv-${site}`,
      name: text(raw.sitename) || site,
      ...SOURCE_STATIONS.moenv,
      latitude: latitude.value,
      longitude: longitude.value,
    },
    { observed_at: `${y}-${mo}-${d}T${h}:${mi}:${s ?? "00"}+08:00`, pm25_ugm3: pm25.value, pm10_ugm3: pm10.value, aqi: aqi.value },
    {
      "station.id": { field: "siteid", value: raw.siteid },
      "station.name": { field: "sitename", value: raw.sitename },
      "station.latitude": { field: "latitude", value: raw.latitude },
      "station.longitude": { field: "longitude", value: raw.longitude },
      "observation.observed_at": { field: "publishtime", value: raw.publishtime },
      "observation.pm25_ugm3": { field: "pm2.5", value: raw["pm2.5"] },
      "observation.pm10_ugm3": { field: "pm10", value: raw.pm10 },
      "observation.aqi": { field: "aqi", value: raw.aqi },
    },
  );
}
