/**
 * An independent reference for docs/contract.md §5, written for the tests from the
 * contract's text and nothing in src/: haversine (R = 6371.0088 km), IDW with
 * weights 1/d² over the three nearest stations having a value, a station closer
 * than 1 m taking all the weight, school-local days through Intl, AQI
 * categories of the rounded AQI, rounding half away from zero.
 *
 * It works on the raw export and gives the exact REST bodies (`data` of
 * operations 7 and 8). To stay unambiguous it refuses (throws) on a value whose
 * rounding sits within 1e-6 of a half, and on a reading exactly 3 hours old:
 * fixtures must avoid both rather than depend on a tie-break.
 */
import {
  type EnvironmentExport,
  type ExportObservation,
  type ExportStation,
  type ExportUniversity,
  HOUR,
  type Metrics,
  schoolBlock,
  SOURCE_KINDS,
  SOURCE_NAMES,
  type Source,
} from "./fixtures.js";

const RADIUS_M = 6371.0088 * 1000;

/** Great-circle distance in metres (haversine, arcsine form). */
function haversine(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const rad = Math.PI / 180;
  const s =
    Math.sin(((b.latitude - a.latitude) * rad) / 2) ** 2 +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(((b.longitude - a.longitude) * rad) / 2) ** 2;
  return 2 * RADIUS_M * Math.asin(Math.min(1, Math.sqrt(s)));
}

/** Rounds half away from zero; throws when `x` is too close to a half to be sure. */
function round(x: number, decimals: number): number {
  const scale = 10 ** decimals;
  const scaled = Math.abs(x) * scale;
  const fraction = scaled - Math.floor(scaled);
  if (Math.abs(fraction - 0.5) < 1e-6) throw new Error(`fixture value ${x} is too close to a rounding half`);
  const r = (Math.sign(x) * Math.round(scaled)) / scale;
  return r === 0 ? 0 : r;
}

const orNull = (x: number | null, decimals: number) => (x === null ? null : round(x, decimals));

/** One date format per time zone: making one is most of what a date costs, and the oracle asks for dates by the thousand. */
const DATE_FORMATS = new Map<string, Intl.DateTimeFormat>();

/** The local calendar date of an instant in a time zone, `YYYY-MM-DD`. */
function localDateOf(instant: Date, timeZone: string): string {
  let format = DATE_FORMATS.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
    DATE_FORMATS.set(timeZone, format);
  }
  const parts = format.formatToParts(instant);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "??";
  return `${get("year")}-${get("month")}-${get("day")}`;
}

/** The `n` local dates ending with today (ascending). */
function lastDates(now: Date, timeZone: string, n: number): string[] {
  const [y, m, d] = localDateOf(now, timeZone).split("-").map(Number) as [number, number, number];
  return Array.from({ length: n }, (_, i) => new Date(Date.UTC(y, m - 1, d - (n - 1 - i))).toISOString().slice(0, 10));
}

/** AQI category of an already rounded AQI (bands shared by EPA and MOENV). */
function category(aqi: number | null): string | null {
  if (aqi === null) return null;
  if (aqi <= 50) return "Good";
  if (aqi <= 100) return "Moderate";
  if (aqi <= 150) return "Unhealthy for Sensitive Groups";
  if (aqi <= 200) return "Unhealthy";
  if (aqi <= 300) return "Very Unhealthy";
  return "Hazardous";
}

interface Sample {
  station: ExportStation;
  distance: number;
  value: number | null;
  at?: number;
}

/** IDW over the three nearest samples having a value; the stations that got weight. */
function weigh(samples: readonly Sample[]): { value: number | null; used: Sample[] } {
  const nearest = samples
    .filter((s) => s.value !== null)
    .sort((a, b) => a.distance - b.distance || (a.station.id < b.station.id ? -1 : 1))
    .slice(0, 3);
  const first = nearest[0];
  if (!first) return { value: null, used: [] };
  if (first.distance < 1) return { value: first.value, used: [first] };
  let num = 0;
  let den = 0;
  for (const s of nearest) {
    num += (s.value as number) / s.distance ** 2;
    den += 1 / s.distance ** 2;
  }
  return { value: num / den, used: nearest };
}

type DailyKey = "temp_c_avg" | "temp_c_min" | "temp_c_max" | "rh_avg" | "precip_total_mm" | "pm25_avg" | "pm10_avg" | "aqi_avg";
const DAILY: readonly [DailyKey, keyof Metrics, "mean" | "min" | "max" | "sum"][] = [
  ["temp_c_avg", "temp_c", "mean"],
  ["temp_c_min", "temp_c", "min"],
  ["temp_c_max", "temp_c", "max"],
  ["rh_avg", "rh", "mean"],
  ["precip_total_mm", "precip_mm", "sum"],
  ["pm25_avg", "pm25_ugm3", "mean"],
  ["pm10_avg", "pm10_ugm3", "mean"],
  ["aqi_avg", "aqi", "mean"],
];

function aggregate(values: number[], how: "mean" | "min" | "max" | "sum"): number | null {
  if (values.length === 0) return null;
  switch (how) {
    case "mean":
      return values.reduce((a, b) => a + b, 0) / values.length;
    case "sum":
      return values.reduce((a, b) => a + b, 0);
    case "min":
      return Math.min(...values);
    case "max":
      return Math.max(...values);
  }
}

export class Reference {
  readonly #byStation = new Map<string, ExportObservation[]>();

  constructor(readonly data: EnvironmentExport) {
    for (const o of data.observations) {
      const list = this.#byStation.get(o.station_id) ?? [];
      list.push(o);
      this.#byStation.set(o.station_id, list);
    }
  }

  school(ref: number | string): ExportUniversity {
    const u = this.data.universities.find((x) => x.id === ref || x.code.toLowerCase() === String(ref).toLowerCase());
    if (!u) throw new Error(`no school ${ref}`);
    return u;
  }

  #distances(u: ExportUniversity) {
    return this.data.stations.map((station) => ({ station, distance: haversine(u, station) }));
  }

  /** One school-local date: the rounded fields and the stations with weight. */
  day(u: ExportUniversity, date: string) {
    const stations = this.#distances(u).map((s) => ({
      ...s,
      obs: (this.#byStation.get(s.station.id) ?? []).filter((o) => localDateOf(new Date(o.observed_at), u.timezone) === date),
    }));
    const used: ExportStation[] = [];
    const values = {} as Record<DailyKey, number | null>;
    for (const [key, metric, how] of DAILY) {
      const r = weigh(
        stations.map((s) => ({
          station: s.station,
          distance: s.distance,
          value: aggregate(
            s.obs.map((o) => o[metric]).filter((v): v is number => v != null),
            how,
          ),
        })),
      );
      values[key] = orNull(r.value, key === "aqi_avg" ? 0 : 1);
      used.push(...r.used.map((x) => x.station));
    }
    return { daily: { date_local: date, date_taipei: date, ...values }, used };
  }

  realtime(u: ExportUniversity, now: Date) {
    const cutoff = now.getTime() - 3 * HOUR;
    const latest = (id: string, metric: "aqi" | "pm25_ugm3") => {
      let best: ExportObservation | undefined;
      for (const o of this.#byStation.get(id) ?? []) {
        const at = Date.parse(o.observed_at);
        if (o[metric] == null || at > now.getTime()) continue;
        if (at === cutoff) throw new Error(`fixture reading of ${id} is exactly 3 hours old`);
        if (at < cutoff) continue;
        if (!best || at > Date.parse(best.observed_at)) best = o;
      }
      return best;
    };
    const per = (metric: "aqi" | "pm25_ugm3") =>
      weigh(
        this.#distances(u).map((s) => {
          const o = latest(s.station.id, metric);
          return { ...s, value: o ? (o[metric] as number) : null, at: o ? Date.parse(o.observed_at) : 0 };
        }),
      );
    const aqi = per("aqi");
    const pm25 = per("pm25_ugm3");
    const used = [...aqi.used, ...pm25.used];
    const aqiRounded = orNull(aqi.value, 0);
    return {
      realtime: {
        aqi: aqiRounded,
        aqi_status: category(aqiRounded),
        pm25_ugm3: orNull(pm25.value, 1),
        observed_at_utc: used.length ? instant(Math.max(...used.map((s) => s.at ?? 0))) : null,
      },
      used: used.map((s) => s.station),
    };
  }

  /** `data` of GET /api/v1/environment/schools/{ref}. */
  snapshot(ref: number | string, now: Date) {
    const u = this.school(ref);
    const rt = this.realtime(u, now);
    const today = this.day(u, lastDates(now, u.timezone, 1)[0] as string);
    return {
      school: schoolBlock(u),
      realtime: rt.realtime,
      daily: today.daily,
      day_boundary: "school local timezone",
      data_sources: dataSources([...rt.used, ...today.used]),
    };
  }

  /** `data` of GET /api/v1/environment/schools/{ref}/history?days=N. */
  history(ref: number | string, days: number, now: Date) {
    const u = this.school(ref);
    const dates = lastDates(now, u.timezone, days).map((d) => this.day(u, d));
    const kept = dates.filter((d) => Object.entries(d.daily).some(([k, v]) => !k.startsWith("date_") && v !== null));
    return {
      school: schoolBlock(u),
      days,
      day_boundary: "school local timezone",
      data_sources: dataSources(kept.flatMap((d) => d.used)),
      daily: kept.map((d) => d.daily),
    };
  }
}

/** ISO 8601 UTC with `Z`, whole seconds written without a fraction. */
const instant = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

function dataSources(stations: readonly ExportStation[]) {
  const bySource = new Map<Source, Set<string>>();
  for (const s of stations) {
    const set = bySource.get(s.source) ?? new Set<string>();
    set.add(s.id);
    bySource.set(s.source, set);
  }
  return [...bySource.keys()].sort().map((id) => ({
    id,
    name: SOURCE_NAMES[id],
    kind: SOURCE_KINDS[id],
    station_ids: [...(bySource.get(id) ?? [])].sort(),
  }));
}
