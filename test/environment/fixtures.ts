/**
 * Hand-built exports for the school-environment integration tests
 * (docs/contract.md §5), and small helpers shared by test/environment.
 *
 * Geometry: every station sits due north (weather) or due south (air) of its
 * school, `k` steps of 0.01° of latitude away. Along a meridian the haversine
 * distance is exactly R·Δφ, so distances are proportional to k and the IDW
 * weights of the stations at k = 1, 2, 3 are 1, 1/4, 1/9 — that is 36, 9 and 4
 * forty-ninths — which the tests write out by hand. The radius cancels out.
 *
 * Two separate worlds keep the contract's "three nearest stations having the
 * metric, anywhere" unambiguous: the Taiwan export holds exactly ten stations
 * of each kind, the United States export six, so every school sees every
 * station: the gateway only looks at the 10 nearest of each kind, a shortcut
 * the contract does not have (see candidates.test.ts).
 */
import type { StationKind, StationSource } from "../../src/generated/prisma/enums.js";
import type { ExportRecord } from "../../src/import/records.js";
import { canaryExport } from "../support/canary.js";
import type { TestGateway } from "../support/gateway.js";

export const HOUR = 3_600_000;

/** The fixed clock of most tests: 20:00 in Taipei, 08:00 in New York (EDT), 05:00 in Los Angeles (PDT). */
export const NOW = new Date("2026-03-09T12:00:00Z");
/** 3.5 hours after NOW: the newest observation anywhere (11:50Z) is older than 3 hours; still 03-09 in Taipei. */
export const NOW_LATE = new Date("2026-03-09T15:30:00Z");
/** 2h55m after the farthest NTU air station's last reading (11:50Z), 3h05m after NTHU's D1 (11:40Z). */
export const NOW_EDGE = new Date("2026-03-09T14:45:00Z");
/** 01:00 on 2026-03-11 in Taipei: no observation at all on that local date. */
export const NEXT_DAY = new Date("2026-03-10T17:00:00Z");

export type Kind = StationKind;
export type Source = StationSource;
export type ExportUniversity = ExportRecord<"universities">;
export type ExportStation = ExportRecord<"stations">;
export type ExportObservation = ExportRecord<"observations">;
export type Metrics = Omit<ExportObservation, "station_id" | "observed_at">;

export interface EnvironmentExport {
  format: string;
  exported_at: string;
  universities: ExportUniversity[];
  courses: unknown[];
  papers: unknown[];
  conferences: unknown[];
  hub_packs: unknown[];
  stations: ExportStation[];
  observations: ExportObservation[];
}

/** One step of latitude between ranked stations (≈ 1.112 km). */
export const STEP = 0.01;
/** 4.5e-6° of latitude ≈ 0.50 m: closer than the contract's 1 m. */
const HALF_METRE = 0.0000045;

const SOURCE_OF: Record<"TW" | "US", Record<Kind, Source>> = {
  TW: { weather: "cwa", air: "moenv" },
  US: { weather: "nws", air: "airnow" },
};

/** A station `offsetDeg` of latitude north (weather) or south (air) of `school`. */
export function stationNear(school: ExportUniversity, id: string, kind: Kind, offsetDeg: number): ExportStation {
  return {
    id,
    name: `Station ${id}`,
    kind,
    source: SOURCE_OF[school.country][kind],
    country: school.country,
    latitude: school.latitude + (kind === "weather" ? offsetDeg : -offsetDeg),
    longitude: school.longitude,
  };
}

export const obs = (station_id: string, observed_at: string, m: Metrics): ExportObservation => ({ station_id, observed_at, ...m });

/** The canary export's other sections, kept so the import stays realistic; courses only of schools present. */
function otherSections(universityIds: readonly number[]) {
  const base = canaryExport();
  return {
    format: base.format,
    exported_at: base.exported_at,
    courses: base.courses.filter((c) => universityIds.includes(c.university_id)),
    papers: base.papers,
    conferences: base.conferences,
    hub_packs: base.hub_packs,
  };
}

// ---------------------------------------------------------------------------
// Taiwan
// ---------------------------------------------------------------------------

export const NTU: ExportUniversity = {
  id: 1,
  code: "NTU",
  name_zh: "國立臺灣大學",
  name_en: "National Taiwan University",
  short_name: "臺大",
  region: "Taipei",
  country: "TW",
  timezone: "Asia/Taipei",
  latitude: 25.0174,
  longitude: 121.5405,
};
export const NTHU: ExportUniversity = {
  id: 2,
  code: "NTHU",
  name_zh: "國立清華大學",
  name_en: "National Tsing Hua University",
  short_name: "清大",
  region: "Hsinchu",
  country: "TW",
  timezone: "Asia/Taipei",
  latitude: 24.7961,
  longitude: 120.9967,
};
const NCKU: ExportUniversity = {
  id: 3,
  code: "NCKU",
  name_zh: "國立成功大學",
  name_en: "National Cheng Kung University",
  short_name: null,
  region: "Tainan",
  country: "TW",
  timezone: "Asia/Taipei",
  latitude: 22.9997,
  longitude: 120.2196,
};

/**
 * Station ids, by role. The nearest station does not have the smallest id, so
 * sorted `station_ids` differ from the distance order.
 */
export const ID = {
  // NTU: weather k = 1..4 north, air k = 1..4 south; the 4th of each kind carries outliers.
  W1: "C0AC70",
  W2: "466920",
  W3: "C0A9C0",
  W4: "466910",
  A1: "moenv-12",
  A2: "moenv-3",
  A3: "moenv-104",
  A4: "moenv-7",
  // NTHU: one station of each kind 0.5 m away, one 2 steps away with wild values.
  C0: "C0D660",
  C1: "467571",
  D0: "moenv-24",
  D1: "moenv-25",
  // NCKU: V2 has no humidity at all today; B1 (nearest air) only has a reading 3h05m old.
  V1: "467410",
  V2: "C0O930",
  V3: "C0X100",
  V4: "C0O900",
  B1: "moenv-41",
  B2: "moenv-42",
  B3: "moenv-43",
  B4: "moenv-44",
} as const;

/** Regions of the filler schools: two in Hualien, six in Taitung, the rest in Yilan (all Asia/Taipei). */
export const FILLER_REGIONS = { two: "Hualien", six: "Taitung", rest: "Yilan" } as const;
export const FILLER_IDS = Array.from({ length: 30 }, (_, i) => 11 + i);

function filler(id: number): ExportUniversity {
  const i = id - 11;
  const [region, lat, lon] =
    i < 2
      ? [FILLER_REGIONS.two, 23.9769, 121.6044]
      : i < 8
        ? [FILLER_REGIONS.six, 22.7583, 121.1444]
        : [FILLER_REGIONS.rest, 24.757, 121.753];
  return {
    id,
    code: `F${id}`,
    name_zh: `學校${id}`,
    name_en: null,
    short_name: null,
    region,
    country: "TW",
    timezone: "Asia/Taipei",
    latitude: lat + 0.013 * i,
    longitude: lon - 0.007 * i,
  };
}

/** The Taiwan world: NTU, NTHU, NCKU and 30 filler schools; ten weather and ten air stations. */
export function taiwanExport(): EnvironmentExport {
  const universities = [NTU, NTHU, NCKU, ...FILLER_IDS.map(filler)];
  const stations: ExportStation[] = [
    stationNear(NTU, ID.W1, "weather", 1 * STEP),
    stationNear(NTU, ID.W2, "weather", 2 * STEP),
    stationNear(NTU, ID.W3, "weather", 3 * STEP),
    stationNear(NTU, ID.W4, "weather", 4 * STEP),
    stationNear(NTU, ID.A1, "air", 1 * STEP),
    stationNear(NTU, ID.A2, "air", 2 * STEP),
    stationNear(NTU, ID.A3, "air", 3 * STEP),
    stationNear(NTU, ID.A4, "air", 4 * STEP),
    stationNear(NTHU, ID.C0, "weather", HALF_METRE),
    stationNear(NTHU, ID.C1, "weather", 2 * STEP),
    stationNear(NTHU, ID.D0, "air", HALF_METRE),
    stationNear(NTHU, ID.D1, "air", 2 * STEP),
    stationNear(NCKU, ID.V1, "weather", 1 * STEP),
    stationNear(NCKU, ID.V2, "weather", 2 * STEP),
    stationNear(NCKU, ID.V3, "weather", 3 * STEP),
    stationNear(NCKU, ID.V4, "weather", 4 * STEP),
    stationNear(NCKU, ID.B1, "air", 1 * STEP),
    stationNear(NCKU, ID.B2, "air", 2 * STEP),
    stationNear(NCKU, ID.B3, "air", 3 * STEP),
    stationNear(NCKU, ID.B4, "air", 4 * STEP),
  ];

  const weatherDay = (id: string, hours: readonly string[], rows: readonly [number | null, number | null, number | null][]) =>
    rows.map(([temp_c, rh, precip_mm], i) => obs(id, `2026-03-09T${hours[i]}:00:00Z`, { temp_c, rh, precip_mm }));
  const air = (id: string, at: string, aqi: number | null, pm25_ugm3: number | null, pm10_ugm3: number | null) =>
    obs(id, `2026-03-09T${at}Z`, { aqi, pm25_ugm3, pm10_ugm3 });
  const ntuHours = ["00", "03", "06"] as const; // 08:00, 11:00, 14:00 in Taipei
  const otherHours = ["02", "05"] as const; // 10:00, 13:00 in Taipei

  const observations: ExportObservation[] = [
    // --- NTU weather, today (2026-03-09 in Taipei) ---
    ...weatherDay(ID.W1, ntuHours, [
      [18, 70, 0.5],
      [22, 80, 1.0],
      [20, 75, 0],
    ]),
    ...weatherDay(ID.W2, ntuHours, [
      [17, 60, 2],
      [21, 65, 1],
      [22, 70, 0],
    ]),
    ...weatherDay(ID.W3, ntuHours, [
      [15, 90, 0],
      [19, 85, 0],
      [20, 95, 0],
    ]),
    ...weatherDay(ID.W4, ntuHours, [
      [60, 5, 500],
      [65, 5, 500],
      [70, 5, 500],
    ]),
    // --- NTU air, today; A4 has the newest instant of all (11:50Z) and outliers ---
    air(ID.A1, "01:00:00", 45, 12, 26),
    air(ID.A1, "10:00:00", 50, 14, 30),
    air(ID.A1, "11:00:00", 55, 16, 34),
    air(ID.A2, "01:00:00", 58, 16, 36),
    air(ID.A2, "10:00:00", 60, 18, 40),
    air(ID.A2, "11:30:00", null, 20, 44),
    air(ID.A3, "01:00:00", 66, 20, 46),
    air(ID.A3, "09:30:00", 70, 24, 50),
    air(ID.A3, "11:15:00", 74, null, null),
    air(ID.A4, "03:00:00", 900, 900, 4000),
    air(ID.A4, "11:50:00", 900, 900, 4000),
    // --- NTU weather history: local-day edges in Asia/Taipei (UTC+8) ---
    obs(ID.W1, "2026-02-07T04:00:00Z", { temp_c: 30 }), // 02-07 12:00 local: 31 days back, outside days=30
    obs(ID.W2, "2026-02-07T04:00:00Z", { temp_c: 30 }),
    obs(ID.W3, "2026-02-07T04:00:00Z", { temp_c: 30 }),
    obs(ID.W1, "2026-02-07T15:59:59Z", { temp_c: 40 }), // 02-07 23:59:59 local: outside
    obs(ID.W1, "2026-02-07T16:00:00Z", { temp_c: 10 }), // 02-08 00:00:00 local: first instant of the 30th date
    obs(ID.W1, "2026-02-08T04:00:00Z", { temp_c: 12 }),
    obs(ID.W2, "2026-02-08T04:00:00Z", { temp_c: 13 }),
    obs(ID.W3, "2026-02-08T04:00:00Z", { temp_c: 14 }),
    obs(ID.W1, "2026-03-06T15:30:00Z", { temp_c: 5 }), // 03-06 23:30 local, the only value that date
    obs(ID.W1, "2026-03-07T15:30:00Z", { temp_c: 10 }), // 03-07 23:30 local
    obs(ID.W2, "2026-03-07T15:30:00Z", { temp_c: 11 }),
    obs(ID.W3, "2026-03-07T15:30:00Z", { temp_c: 12 }),
    obs(ID.W1, "2026-03-07T16:30:00Z", { temp_c: 20 }), // 03-08 00:30 local (still 03-07 in UTC)
    obs(ID.W2, "2026-03-07T16:30:00Z", { temp_c: 21 }),
    obs(ID.W3, "2026-03-07T16:30:00Z", { temp_c: 22 }),
    // --- NTHU: the stations 0.5 m away take all the weight ---
    ...weatherDay(ID.C0, otherHours, [
      [16, 66, 0.4],
      [18, 66, 0.3],
    ]),
    ...weatherDay(ID.C1, otherHours, [
      [30, 20, 10],
      [35, 20, 10],
    ]),
    air(ID.D0, "10:00:00", 34, 8.2, 21),
    air(ID.D0, "11:00:00", 36, 8.6, 25),
    air(ID.D1, "11:40:00", 160, 80, 150),
    // --- NCKU: V2 has no humidity today; B1's only reading is 3h05m old at NOW ---
    ...weatherDay(ID.V1, otherHours, [
      [24, 70, 0],
      [26, 74, 0.2],
    ]),
    ...weatherDay(ID.V2, otherHours, [
      [23, null, 1],
      [27, null, 1],
    ]),
    ...weatherDay(ID.V3, otherHours, [
      [22, 80, 0],
      [24, 84, 0],
    ]),
    ...weatherDay(ID.V4, otherHours, [
      [20, 40, 3],
      [22, 44, 3],
    ]),
    air(ID.B1, "08:55:00", 200, 80, 120),
    air(ID.B2, "09:01:00", 40, 10, 30), // 2h59m old at NOW
    air(ID.B3, "11:00:00", 60, 20, 40),
    air(ID.B4, "11:00:00", 90, 30, 50),
  ];
  return { ...otherSections(universities.map((u) => u.id)), universities, stations, observations };
}

// ---------------------------------------------------------------------------
// United States
// ---------------------------------------------------------------------------

export const NYU: ExportUniversity = {
  id: 10,
  code: "NYU",
  name_zh: "紐約大學",
  name_en: "New York University",
  short_name: "NYU",
  region: "New York",
  country: "US",
  timezone: "America/New_York",
  latitude: 40.7295,
  longitude: -73.9965,
};
export const UW: ExportUniversity = {
  id: 20,
  code: "UW",
  name_zh: "華盛頓大學",
  name_en: "University of Washington",
  short_name: "UW",
  region: "Seattle",
  country: "US",
  timezone: "America/Los_Angeles",
  latitude: 47.6553,
  longitude: -122.3035,
};

export const US_ID = {
  N1: "KNYC",
  N2: "KLGA",
  N3: "KJFK",
  Q1: "airnow-840360610135",
  Q2: "airnow-840360050133",
  Q3: "airnow-840360810124",
  S1: "KSEA",
  S2: "KBFI",
  S3: "KPAE",
  R1: "airnow-840530330080",
  R2: "airnow-840530330030",
  R3: "airnow-840530610020",
} as const;

/** First hour of the hourly US series, and how many hours (h = 0..84, the last one at NOW). */
const US_SERIES_START = Date.parse("2026-03-06T00:00:00Z");
const US_SERIES_HOURS = 85;

/**
 * The United States world. Every weather station reports every hour from
 * 2026-03-06T00:00Z to NOW: 1 mm of rain each hour, a temperature of h/10 °C
 * plus 0, 1 or 2 by rank (h = hours since the start), humidity 50, 60, 70 by rank.
 */
export function usExport(): EnvironmentExport {
  const universities = [NYU, UW];
  const stations: ExportStation[] = [
    stationNear(NYU, US_ID.N1, "weather", 1 * STEP),
    stationNear(NYU, US_ID.N2, "weather", 2 * STEP),
    stationNear(NYU, US_ID.N3, "weather", 3 * STEP),
    stationNear(NYU, US_ID.Q1, "air", 1 * STEP),
    stationNear(NYU, US_ID.Q2, "air", 2 * STEP),
    stationNear(NYU, US_ID.Q3, "air", 3 * STEP),
    stationNear(UW, US_ID.S1, "weather", 1 * STEP),
    stationNear(UW, US_ID.S2, "weather", 2 * STEP),
    stationNear(UW, US_ID.S3, "weather", 3 * STEP),
    stationNear(UW, US_ID.R1, "air", 1 * STEP),
    stationNear(UW, US_ID.R2, "air", 2 * STEP),
    stationNear(UW, US_ID.R3, "air", 3 * STEP),
  ];
  const hourly = (id: string, rank: number) =>
    Array.from({ length: US_SERIES_HOURS }, (_, h) =>
      obs(id, new Date(US_SERIES_START + h * HOUR).toISOString(), { temp_c: h / 10 + rank, rh: 50 + 10 * rank, precip_mm: 1 }),
    );
  const air = (id: string, at: string, aqi: number | null, pm25_ugm3: number | null, pm10_ugm3: number | null) =>
    obs(id, `2026-03-09T${at}Z`, { aqi, pm25_ugm3, pm10_ugm3 });
  const observations = [
    ...hourly(US_ID.N1, 0),
    ...hourly(US_ID.N2, 1),
    ...hourly(US_ID.N3, 2),
    ...hourly(US_ID.S1, 0),
    ...hourly(US_ID.S2, 1),
    ...hourly(US_ID.S3, 2),
    air(US_ID.Q1, "11:00:00", 100, 30, 60),
    air(US_ID.Q2, "11:00:00", 100, 32, 70),
    air(US_ID.Q3, "11:00:00", 105, 33, 80),
    air(US_ID.Q3, "11:30:00", null, 34, null),
    air(US_ID.R1, "10:00:00", 100, 35, 40),
    air(US_ID.R2, "10:00:00", 101, 36, 44),
    air(US_ID.R3, "10:00:00", 104, 40, 52),
  ];
  return { ...otherSections(universities.map((u) => u.id)), universities, stations, observations };
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/** A clock the gateway reads on every request; tests move it and put it back. */
export function movableClock(start: Date) {
  let current = start;
  return {
    now: () => current,
    /** Runs `fn` with the clock at `at`, then restores it. */
    async at<T>(at: Date, fn: () => Promise<T>): Promise<T> {
      const saved = current;
      current = at;
      try {
        return await fn();
      } finally {
        current = saved;
      }
    },
  };
}

export interface Rest<B = any> {
  status: number;
  contentType: string | null;
  body: B;
}

/** GETs a REST path on the in-process gateway and parses the body. */
export async function rest<B = any>(t: TestGateway, path: string): Promise<Rest<B>> {
  const response = await t.gateway.fetch(`http://gateway.test${path}`);
  return { status: response.status, contentType: response.headers.get("content-type"), body: (await response.json()) as B };
}

/** The source catalogue as the responses name it. */
export const SOURCE_NAMES: Record<Source, string> = {
  cwa: "Central Weather Administration (Taiwan)",
  moenv: "Ministry of Environment (Taiwan)",
  nws: "National Weather Service (United States)",
  airnow: "AirNow (U.S. Environmental Protection Agency)",
};
export const SOURCE_KINDS: Record<Source, Kind> = { cwa: "weather", moenv: "air", nws: "weather", airnow: "air" };

/** A `data_sources` entry written by hand. */
export const source = (id: Source, station_ids: string[]) => ({ id, name: SOURCE_NAMES[id], kind: SOURCE_KINDS[id], station_ids });

/** The school block of a snapshot or history. */
export const schoolBlock = (u: ExportUniversity) => ({
  id: u.id,
  code: u.code,
  name_zh: u.name_zh,
  short_name: u.short_name,
  region: u.region,
  timezone: u.timezone,
});

export const SNAPSHOT_KEYS = ["school", "realtime", "daily", "day_boundary", "data_sources"];
export const HISTORY_KEYS = ["school", "days", "day_boundary", "data_sources", "daily"];
export const SCHOOL_KEYS = ["id", "code", "name_zh", "short_name", "region", "timezone"];
export const REALTIME_KEYS = ["aqi", "aqi_status", "pm25_ugm3", "observed_at_utc"];
export const DAILY_KEYS = [
  "date_local",
  "date_taipei",
  "temp_c_avg",
  "temp_c_min",
  "temp_c_max",
  "rh_avg",
  "precip_total_mm",
  "pm25_avg",
  "pm10_avg",
  "aqi_avg",
];
export const SOURCE_KEYS = ["id", "name", "kind", "station_ids"];

/** A daily entry written by hand: nulls for the fields not given. */
export function day(date: string, values: Partial<Record<(typeof DAILY_KEYS)[number], number>> = {}) {
  return {
    date_local: date,
    date_taipei: date,
    temp_c_avg: null,
    temp_c_min: null,
    temp_c_max: null,
    rh_avg: null,
    precip_total_mm: null,
    pm25_avg: null,
    pm10_avg: null,
    aqi_avg: null,
    ...values,
  };
}
