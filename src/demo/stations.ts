import { haversineMeters } from "../domain/environment/index.js";
import { Rng, hashString } from "./random.js";
import { REGIONS, regionOf, type RegionInfo } from "./universities.js";
import type { StationKind, StationSource } from "../generated/prisma/enums.js";
import type { ExportStation, ExportUniversity } from "./types.js";

/** A station plus what the observation model needs to know about it (not exported). */
export interface DemoStation {
  station: ExportStation;
  region: RegionInfo;
  /** Metres above sea level. */
  elevation: number;
  /** Hash of the id: key of the station's own noise. */
  key: number;
  /** Weather stations: whether it has a humidity sensor. */
  hasRh: boolean;
  /** Air stations: whether it reports PM10. */
  hasPm10: boolean;
  /** Local offsets: temperature (°C), particulate multiplier, PM10/PM2.5 ratio. */
  tempBias: number;
  pmFactor: number;
  pm10Ratio: number;
}

/** The domain's great-circle distance, in kilometres. */
export function haversineKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  return haversineMeters({ latitude: lat1, longitude: lon1 }, { latitude: lat2, longitude: lon2 }) / 1000;
}

type Fixed = [id: string, name: string, kind: StationKind, region: string, lat: number, lon: number, elevation: number];

/** Real stations at their real positions. */
const FIXED: readonly Fixed[] = [
  ["466920", "臺北", "weather", "Taipei", 25.0377, 121.5149, 6],
  ["467050", "新屋", "weather", "Taoyuan", 25.0067, 121.0475, 20],
  ["467571", "新竹", "weather", "Hsinchu", 24.8279, 121.0142, 27],
  ["467490", "臺中", "weather", "Taichung", 24.1457, 120.684, 84],
  ["467410", "臺南", "weather", "Tainan", 22.9932, 120.2047, 41],
  ["467440", "高雄", "weather", "Kaohsiung", 22.566, 120.3157, 2],
  ["466990", "花蓮", "weather", "Hualien", 23.9751, 121.6133, 16],
  ["467550", "玉山", "weather", "Taichung", 23.4876, 120.9595, 3844],
  ["467620", "蘭嶼", "weather", "Kaohsiung", 22.037, 121.5583, 324],
  ["KSEA", "Seattle-Tacoma International Airport", "weather", "Seattle", 47.4444, -122.3139, 130],
  ["KBFI", "Seattle, Boeing Field", "weather", "Seattle", 47.53, -122.3019, 6],
  ["KRNT", "Renton Municipal Airport", "weather", "Seattle", 47.4931, -122.215, 9],
  ["KPAE", "Everett, Paine Field", "weather", "Seattle", 47.9063, -122.2816, 185],
  ["KPAO", "Palo Alto Airport", "weather", "Stanford", 37.4611, -122.115, 2],
  ["KNUQ", "Moffett Federal Airfield", "weather", "Stanford", 37.4161, -122.0494, 10],
  ["KSQL", "San Carlos Airport", "weather", "Stanford", 37.5119, -122.2495, 2],
  ["KSJC", "San Jose International Airport", "weather", "Stanford", 37.3619, -121.9291, 15],
  ["KPIT", "Pittsburgh International Airport", "weather", "Pittsburgh", 40.4915, -80.2329, 367],
  ["KAGC", "Pittsburgh, Allegheny County Airport", "weather", "Pittsburgh", 40.3544, -79.9302, 380],
];

/**
 * Weather and air stations: the real ones above, plus generated ones placed
 * 1–30 km from every school of their region (at least four of each kind per region).
 */
export function buildStations(seed: number, universities: readonly ExportUniversity[]): DemoStation[] {
  const rng = new Rng(seed).derive("stations");
  const out: DemoStation[] = FIXED.map(([id, name, kind, region, latitude, longitude, elevation]) => {
    const info = regionOf(region);
    return makeStation(rng, { id, name, kind, source: sourceOf(kind, info), country: info.country, latitude, longitude }, info, elevation);
  });
  const ids = new Set(out.map((s) => s.station.id));
  const unique = (make: () => string): string => {
    let id = make();
    while (ids.has(id)) id = make();
    ids.add(id);
    return id;
  };

  for (const info of Object.values(REGIONS)) {
    const schools = universities.filter((u) => u.region === info.name);
    if (schools.length === 0) continue;
    const fixedWeather = FIXED.filter((f) => f[3] === info.name && f[2] === "weather" && f[6] < 1000).length;
    const counts: Record<StationKind, number> = {
      weather: Math.max(info.country === "US" ? 2 : 4, 3 + 2 * schools.length - (info.country === "US" ? fixedWeather : 0)),
      air: 3 + schools.length,
    };
    for (const kind of ["weather", "air"] as const) {
      const names = rng.shuffle(kind === "weather" ? info.weatherNames : info.airNames);
      for (let i = 0; i < counts[kind]; i++) {
        const [latitude, longitude] = place(rng, info, schools, schools[i % schools.length] as ExportUniversity);
        const id = unique(() => stationId(rng, kind, info));
        const name = names[i % names.length] ?? info.name;
        const elevation = Math.round(info.elevation[0] + (info.elevation[1] - info.elevation[0]) * rng.next() ** 2);
        out.push(
          makeStation(rng, { id, name, kind, source: sourceOf(kind, info), country: info.country, latitude, longitude }, info, elevation),
        );
      }
    }
  }
  return out;
}

function sourceOf(kind: StationKind, info: RegionInfo): StationSource {
  if (info.country === "TW") return kind === "weather" ? "cwa" : "moenv";
  return kind === "weather" ? "nws" : "airnow";
}

function stationId(rng: Rng, kind: StationKind, info: RegionInfo): string {
  if (info.country === "TW") {
    return kind === "weather" ? `C0${info.cwaLetter}${rng.string(2, "0123456789ACEFGHIJKM")}0` : `moenv-${rng.int(1, 95)}`;
  }
  if (kind === "weather") return `EW${rng.int(1000, 9999)}`;
  const [state, county] = info.fips ?? ["00", "000"];
  return `airnow-840${state}${county}${String(rng.int(1, 80) * 10 + rng.int(0, 9)).padStart(4, "0")}`;
}

/** A position 1–30 km from every school of the region, in the region's allowed bearings. */
function place(rng: Rng, info: RegionInfo, schools: readonly ExportUniversity[], anchor: ExportUniversity): [number, number] {
  for (;;) {
    const bearing = rng.float(info.bearings[0], info.bearings[1]) * (Math.PI / 180);
    const d = rng.float(1.5, 16);
    const lat = round4(anchor.latitude + (d * Math.cos(bearing)) / 111.32);
    const lon = round4(anchor.longitude + (d * Math.sin(bearing)) / (111.32 * Math.cos((anchor.latitude * Math.PI) / 180)));
    const ok = schools.every((s) => {
      const km = haversineKm(s.latitude, s.longitude, lat, lon);
      return km >= 1 && km <= 30;
    });
    if (ok) return [lat, lon];
  }
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

function makeStation(rng: Rng, station: ExportStation, region: RegionInfo, elevation: number): DemoStation {
  const automatic = station.source === "cwa" && station.id.startsWith("C0");
  return {
    station,
    region,
    elevation,
    key: hashString(station.id),
    hasRh: !(automatic && rng.chance(0.3)),
    hasPm10: !(station.source === "airnow" && rng.chance(0.5)),
    tempBias: rng.float(-0.6, 0.6),
    pmFactor: rng.float(0.8, 1.25),
    pm10Ratio: rng.float(1.5, 2.2),
  };
}
