/**
 * The United States' AirNow: current observations
 * (`/aq/observation/current/ziplatlong/`), one record per site, hour and
 * pollutant, each with that pollutant's hourly NowCast AQI.
 *
 * - An observation's hour is `dateObserved` (`YYYY-MM-DD`, sometimes with a
 *   trailing space) plus `hourObserved` in `localTimeZone` (`PST`, `EDT`, …).
 * - A site's AQI for an hour is the highest of its pollutants' (the overall
 *   AQI is the highest sub-index); AirNow writes -1 for none.
 * - Records carry no position: positions come from AirNow's monitoring-site
 *   list, a separate input (`--sites`), read by {@link readAirNowSites}. An
 *   observation of a site the list does not hold is skipped and reported.
 */
import { checkItem, type Feed, FeedError, isObject, numberOf, type Read, recordsOf, SOURCE_STATIONS, type Skipped, skip } from "./feed.js";

/** UTC offsets, in hours, of the zone abbreviations AirNow writes. */
const ZONES: Record<string, number> = {
  UTC: 0,
  GMT: 0,
  AST: -4,
  ADT: -3,
  EST: -5,
  EDT: -4,
  CST: -6,
  CDT: -5,
  MST: -7,
  MDT: -6,
  PST: -8,
  PDT: -7,
  AKST: -9,
  AKDT: -8,
  HST: -10,
  SST: -11,
  ChST: 10,
};

/** A monitoring site's name and position. */
export interface AirNowSite {
  name: string;
  latitude: number;
  longitude: number;
}

const ID_COLUMNS = ["siteid", "aqsid", "fullaqsid", "stationid"];

/**
 * Reads AirNow's monitoring-site list: a JSON array of
 * `{ siteID | AQSID, siteName, latitude, longitude }`, or AirNow's
 * pipe-delimited file with a header line naming those columns. Rows without
 * an id or a position are reported.
 */
export function readAirNowSites(text: string): { sites: Map<string, AirNowSite>; skipped: Skipped[] } {
  let rows: Record<string, unknown>[];
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new FeedError(`the site list is not JSON: ${(error as Error).message}`);
    }
    if (!Array.isArray(parsed)) throw new FeedError("the site list must be an array");
    rows = parsed.map((r) => (isObject(r) ? r : {}));
  } else {
    const [header, ...lines] = trimmed.split(/\r?\n/);
    const names = (header ?? "").split("|").map((c) => c.trim());
    if (!names.some((n) => ID_COLUMNS.includes(n.toLowerCase()))) {
      throw new FeedError(`the site list's header names no site id column (${ID_COLUMNS.join(", ")})`);
    }
    rows = lines
      .filter((l) => l.trim() !== "")
      .map((line) => Object.fromEntries(line.split("|").map((v, i) => [names[i] ?? `#${i}`, v.trim()])));
  }
  const sites = new Map<string, AirNowSite>();
  const skipped: Skipped[] = [];
  rows.forEach((row, i) => {
    const lower = Object.fromEntries(Object.entries(row).map(([k, v]) => [k.toLowerCase(), v]));
    const id = ID_COLUMNS.map((c) => lower[c])
      .find((v): v is string => typeof v === "string" && v.trim() !== "")
      ?.trim();
    const latitude = numberOf("latitude", lower.latitude);
    const longitude = numberOf("longitude", lower.longitude);
    if (id === undefined) skipped.push({ position: `sites[${i}]`, reason: "no station id", detail: "no site id" });
    else if (!latitude.ok || !longitude.ok || latitude.value === null || longitude.value === null) {
      skipped.push({ position: `sites[${i}]`, reason: "no position", detail: `site ${id}: latitude, longitude: missing or not numbers` });
    } else {
      const name = typeof lower.sitename === "string" && lower.sitename.trim() ? lower.sitename.trim() : id;
      if (!sites.has(id)) sites.set(id, { name, latitude: latitude.value, longitude: longitude.value });
    }
  });
  return { sites, skipped };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Reads one current-observations payload against the site list. Throws FeedError when it is not one. */
export function readAirNow(payload: unknown, sites: ReadonlyMap<string, AirNowSite>): Feed {
  const { list, at } = recordsOf(payload, [], "an AirNow observations payload", true);
  const feed: Feed = { source: "airnow", read: list.length, fields: ["aqi"], items: [], skipped: [] };
  /** Each site and hour's highest AQI, with the first record that gave it. */
  const hours = new Map<string, { where: string; site: string; observedAt: string; aqi: number | null }>();
  list.forEach((raw, i) => {
    const where = `${at}[${i}]`;
    const hour = readHour(raw, sites);
    if (!hour.ok) {
      feed.skipped.push({ position: where, reason: hour.reason, detail: hour.detail });
      return;
    }
    const { site, observedAt, aqi } = hour.value;
    const key = `${site}\u0000${observedAt}`;
    const seen = hours.get(key);
    if (!seen) hours.set(key, { where, site, observedAt, aqi });
    else if (aqi !== null && (seen.aqi === null || aqi > seen.aqi)) seen.aqi = aqi;
  });
  for (const { where, site, observedAt, aqi } of hours.values()) {
    const place = sites.get(site)!;
    const item = checkItem(
      where,
      {
        id: `airnow-${site}`,
        name: place.name,
        ...SOURCE_STATIONS.airnow,
        latitude: place.latitude,
        longitude: place.longitude,
      },
      { observed_at: observedAt, aqi },
      {
        "station.id": { field: "siteID", value: site },
        "station.name": { field: "SiteName", value: place.name },
        "station.latitude": { field: "Latitude", value: place.latitude },
        "station.longitude": { field: "Longitude", value: place.longitude },
        "observation.aqi": { field: "nowcastAQI", value: aqi },
      },
    );
    if (item.ok) feed.items.push(item.value);
    else feed.skipped.push({ position: where, reason: item.reason, detail: item.detail });
  }
  return feed;
}

/** One record's site, hour (UTC) and AQI. */
function readHour(raw: unknown, sites: ReadonlyMap<string, AirNowSite>): Read<{ site: string; observedAt: string; aqi: number | null }> {
  if (!isObject(raw)) return skip("not a record", "expected an object");
  const site = typeof raw.siteID === "string" ? raw.siteID.trim() : typeof raw.siteID === "number" ? String(raw.siteID) : "";
  if (!site) return skip("no station id", "siteID: missing");
  const date = DATE.exec(typeof raw.dateObserved === "string" ? raw.dateObserved.trim() : "");
  const hour = raw.hourObserved;
  const offset = ZONES[typeof raw.localTimeZone === "string" ? raw.localTimeZone.trim() : ""];
  if (!date || typeof hour !== "number" || !Number.isInteger(hour) || hour < 0 || hour > 23 || offset === undefined) {
    return skip(
      "bad time",
      `dateObserved, hourObserved, localTimeZone: expected YYYY-MM-DD, 0–23 and a US zone, got ${JSON.stringify([raw.dateObserved, hour, raw.localTimeZone])}`,
    );
  }
  if (!sites.has(site)) return skip("unknown site", `siteID ${site}: not in the site list, so it has no position`);
  const aqi = numberOf("nowcastAQI", raw.nowcastAQI, [-1, "-1"]);
  if (!aqi.ok) return aqi;
  // Date.UTC rolls a day past the month's end over (2026-02-30 would be March 2): a date must be one.
  const day = new Date(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3])));
  if (day.getUTCMonth() !== Number(date[2]) - 1 || day.getUTCDate() !== Number(date[3])) {
    return skip("bad time", `dateObserved: not a date: ${JSON.stringify(raw.dateObserved)}`);
  }
  const observedAt = new Date(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]), hour - offset)).toISOString();
  return { ok: true, value: { site, observedAt, aqi: aqi.value } };
}
