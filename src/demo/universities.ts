import type { Country } from "../generated/prisma/enums.js";
import type { ExportUniversity } from "./types.js";

/** The fifteen schools of the demo: twelve in Taiwan, three in the United States. */
export const DEMO_UNIVERSITIES: readonly ExportUniversity[] = [
  tw(1, "NTU", "國立臺灣大學", "National Taiwan University", "臺大", "Taipei", 25.0173, 121.5397),
  tw(2, "NTHU", "國立清華大學", "National Tsing Hua University", "清大", "Hsinchu", 24.796, 120.9966),
  tw(3, "NYCU", "國立陽明交通大學", "National Yang Ming Chiao Tung University", "陽明交大", "Hsinchu", 24.7869, 120.9997),
  tw(4, "NCKU", "國立成功大學", "National Cheng Kung University", "成大", "Tainan", 22.999, 120.2196),
  tw(5, "NCCU", "國立政治大學", "National Chengchi University", "政大", "Taipei", 24.9868, 121.5763),
  tw(6, "NCU", "國立中央大學", "National Central University", "中央", "Taoyuan", 24.9683, 121.1949),
  tw(7, "NCHU", "國立中興大學", "National Chung Hsing University", "中興", "Taichung", 24.1227, 120.675),
  tw(8, "NSYSU", "國立中山大學", "National Sun Yat-sen University", "中山", "Kaohsiung", 22.627, 120.266),
  tw(9, "NTNU", "國立臺灣師範大學", "National Taiwan Normal University", "臺師大", "Taipei", 25.026, 121.5277),
  tw(10, "NTUT", "國立臺北科技大學", "National Taipei University of Technology", "北科大", "Taipei", 25.0424, 121.5355),
  tw(11, "NUK", "國立高雄大學", "National University of Kaohsiung", "高大", "Kaohsiung", 22.7343, 120.2835),
  tw(12, "NDHU", "國立東華大學", "National Dong Hwa University", "東華", "Hualien", 23.8973, 121.5419),
  us(13, "UW", "華盛頓大學", "University of Washington", "華大", "Seattle", "America/Los_Angeles", 47.6553, -122.3035),
  us(14, "STANFORD", "史丹佛大學", "Stanford University", "史丹佛", "Stanford", "America/Los_Angeles", 37.4275, -122.1697),
  us(15, "CMU", "卡內基美隆大學", "Carnegie Mellon University", "卡內基美隆", "Pittsburgh", "America/New_York", 40.4433, -79.9436),
];

function tw(
  id: number,
  code: string,
  name_zh: string,
  name_en: string,
  short_name: string,
  region: string,
  latitude: number,
  longitude: number,
): ExportUniversity {
  return { id, code, name_zh, name_en, short_name, region, country: "TW", timezone: "Asia/Taipei", latitude, longitude };
}

function us(
  id: number,
  code: string,
  name_zh: string,
  name_en: string,
  short_name: string,
  region: string,
  timezone: string,
  latitude: number,
  longitude: number,
): ExportUniversity {
  return { id, code, name_zh, name_en, short_name, region, country: "US", timezone, latitude, longitude };
}

/** Twelve monthly values, January first. */
export type Monthly = readonly [number, number, number, number, number, number, number, number, number, number, number, number];

/** Climate of a region: drives the synthetic observations. */
export interface Climate {
  /** Annual mean temperature, °C. */
  meanC: number;
  /** Half the difference between the warmest and coldest month, °C. */
  seasonalAmpC: number;
  /** Typical full daily temperature range on a clear day, °C. */
  diurnalRangeC: number;
  /** Size of day-to-day weather swings, °C. */
  synopticC: number;
  /** Mean relative humidity, %. */
  rh: number;
  /** How rainy each month is, 0 (never) .. 1 (very often). */
  rain: Monthly;
  /** Scale of hourly rain amounts, mm (in Taiwan, the summer value; winter drizzle is lighter). */
  rainRateMm: number;
  /** Typical PM2.5 of each month, µg/m³. */
  pm25: Monthly;
}

/** Where stations of a region may be placed, and how they are named. */
export interface RegionInfo {
  name: string;
  country: Country;
  climate: Climate;
  /** Allowed bearings from a school (degrees clockwise from north), to keep stations on land. */
  bearings: readonly [number, number];
  /** Elevation range of generated stations, metres. */
  elevation: readonly [number, number];
  /** Letter of generated CWA automatic-station ids (C0<letter>nnn); US regions: unused. */
  cwaLetter: string;
  /** Place names for generated weather stations. */
  weatherNames: readonly string[];
  /** Place names for generated air stations. */
  airNames: readonly string[];
  /** US only: state and county FIPS of AirNow site ids. */
  fips?: readonly [string, string];
}

const TAIPEI_RAIN: Monthly = [0.45, 0.5, 0.5, 0.45, 0.5, 0.5, 0.35, 0.45, 0.45, 0.4, 0.4, 0.4];
const SOUTH_RAIN: Monthly = [0.06, 0.08, 0.1, 0.18, 0.35, 0.6, 0.6, 0.65, 0.4, 0.12, 0.07, 0.06];

export const REGIONS: Readonly<Record<string, RegionInfo>> = {
  Taipei: {
    name: "Taipei",
    country: "TW",
    bearings: [0, 360],
    elevation: [5, 450],
    cwaLetter: "A",
    climate: {
      meanC: 23.6,
      seasonalAmpC: 6.9,
      diurnalRangeC: 6,
      synopticC: 2.5,
      rh: 76,
      rain: TAIPEI_RAIN,
      rainRateMm: 12,
      pm25: [19, 20, 21, 19, 16, 12, 10, 10, 11, 13, 15, 18],
    },
    weatherNames: [
      "大安",
      "信義",
      "文山",
      "松山",
      "中山",
      "中正",
      "萬華",
      "內湖",
      "南港",
      "士林",
      "北投",
      "大同",
      "新店",
      "永和",
      "中和",
      "板橋",
      "三重",
      "汐止",
      "深坑",
      "天母",
    ],
    airNames: ["古亭", "松山", "中山", "萬華", "士林", "新店", "永和", "板橋", "汐止", "三重", "大同", "陽明"],
  },
  Taoyuan: {
    name: "Taoyuan",
    country: "TW",
    bearings: [0, 250],
    elevation: [20, 300],
    cwaLetter: "C",
    climate: {
      meanC: 22.6,
      seasonalAmpC: 7,
      diurnalRangeC: 6,
      synopticC: 2.5,
      rh: 78,
      rain: TAIPEI_RAIN,
      rainRateMm: 10,
      pm25: [21, 22, 22, 20, 16, 12, 10, 10, 12, 14, 17, 20],
    },
    weatherNames: ["中壢", "平鎮", "龍潭", "楊梅", "八德", "大溪", "桃園", "觀音", "大園", "蘆竹"],
    airNames: ["中壢", "平鎮", "龍潭", "桃園", "大園", "觀音"],
  },
  Hsinchu: {
    name: "Hsinchu",
    country: "TW",
    bearings: [0, 200],
    elevation: [20, 350],
    cwaLetter: "D",
    climate: {
      meanC: 22.8,
      seasonalAmpC: 7,
      diurnalRangeC: 6.5,
      synopticC: 2.5,
      rh: 77,
      rain: [0.35, 0.42, 0.45, 0.4, 0.45, 0.45, 0.3, 0.35, 0.3, 0.2, 0.25, 0.3],
      rainRateMm: 10,
      pm25: [21, 22, 22, 20, 16, 12, 10, 10, 12, 15, 18, 20],
    },
    weatherNames: ["東區", "香山", "竹北", "竹東", "寶山", "湖口", "新豐", "芎林", "新埔", "關西"],
    airNames: ["新竹", "竹東", "湖口", "竹北", "寶山", "香山"],
  },
  Taichung: {
    name: "Taichung",
    country: "TW",
    bearings: [0, 360],
    elevation: [30, 400],
    cwaLetter: "F",
    climate: {
      meanC: 23.8,
      seasonalAmpC: 5.9,
      diurnalRangeC: 8,
      synopticC: 2,
      rh: 74,
      rain: [0.1, 0.15, 0.2, 0.25, 0.4, 0.55, 0.5, 0.55, 0.3, 0.08, 0.07, 0.08],
      rainRateMm: 14,
      pm25: [28, 29, 28, 24, 19, 14, 12, 12, 14, 19, 23, 27],
    },
    weatherNames: ["南區", "西屯", "北屯", "大里", "太平", "烏日", "霧峰", "南屯", "大肚", "潭子"],
    airNames: ["忠明", "西屯", "大里", "沙鹿", "豐原", "烏日"],
  },
  Tainan: {
    name: "Tainan",
    country: "TW",
    bearings: [10, 190],
    elevation: [5, 150],
    cwaLetter: "O",
    climate: {
      meanC: 25,
      seasonalAmpC: 4.9,
      diurnalRangeC: 7.5,
      synopticC: 1.8,
      rh: 76,
      rain: SOUTH_RAIN,
      rainRateMm: 16,
      pm25: [33, 32, 29, 24, 18, 12, 10, 10, 13, 20, 27, 31],
    },
    weatherNames: ["東區", "北區", "安南", "永康", "仁德", "歸仁", "新化", "善化", "中西區", "新市"],
    airNames: ["臺南", "安南", "善化", "新營", "永康", "仁德"],
  },
  Kaohsiung: {
    name: "Kaohsiung",
    country: "TW",
    bearings: [0, 180],
    elevation: [5, 200],
    cwaLetter: "V",
    climate: {
      meanC: 25.5,
      seasonalAmpC: 4.2,
      diurnalRangeC: 7,
      synopticC: 1.6,
      rh: 75,
      rain: SOUTH_RAIN,
      rainRateMm: 18,
      pm25: [36, 34, 31, 25, 18, 12, 10, 10, 13, 21, 29, 34],
    },
    weatherNames: ["鼓山", "左營", "楠梓", "三民", "苓雅", "鳳山", "仁武", "鳥松", "橋頭", "大社", "燕巢", "岡山"],
    airNames: ["左營", "楠梓", "前金", "前鎮", "小港", "鳳山", "仁武", "橋頭"],
  },
  Hualien: {
    name: "Hualien",
    country: "TW",
    bearings: [180, 360],
    elevation: [10, 300],
    cwaLetter: "T",
    climate: {
      meanC: 23.5,
      seasonalAmpC: 5.3,
      diurnalRangeC: 6,
      synopticC: 1.8,
      rh: 78,
      rain: [0.3, 0.35, 0.35, 0.35, 0.4, 0.35, 0.25, 0.3, 0.4, 0.45, 0.4, 0.3],
      rainRateMm: 14,
      pm25: [12, 12, 12, 11, 9, 7, 6, 6, 7, 9, 10, 11],
    },
    weatherNames: ["壽豐", "吉安", "花蓮市", "新城", "鳳林", "光復", "月眉", "志學"],
    airNames: ["花蓮", "吉安", "壽豐", "新城", "志學"],
  },
  Seattle: {
    name: "Seattle",
    country: "US",
    bearings: [0, 360],
    elevation: [5, 150],
    cwaLetter: "",
    fips: ["53", "033"],
    climate: {
      meanC: 11.5,
      seasonalAmpC: 7,
      diurnalRangeC: 8,
      synopticC: 3.5,
      rh: 74,
      rain: [0.6, 0.5, 0.5, 0.4, 0.3, 0.25, 0.1, 0.1, 0.2, 0.4, 0.6, 0.6],
      rainRateMm: 5,
      pm25: [7, 6, 5, 5, 5, 5, 6, 9, 10, 6, 6, 7],
    },
    weatherNames: [
      "Seattle - Sand Point",
      "Seattle - Ballard",
      "Seattle - Capitol Hill",
      "Seattle - Wallingford",
      "Bellevue",
      "Kirkland",
      "Shoreline",
      "Redmond",
      "Mercer Island",
    ],
    airNames: [
      "Seattle - Beacon Hill",
      "Seattle - 10th & Weller",
      "Seattle - Duwamish",
      "Bellevue - SE 12th St",
      "Lake Forest Park",
      "Kent - James St",
    ],
  },
  Stanford: {
    name: "Stanford",
    country: "US",
    bearings: [20, 250],
    elevation: [10, 250],
    cwaLetter: "",
    fips: ["06", "085"],
    climate: {
      meanC: 15,
      seasonalAmpC: 5,
      diurnalRangeC: 12,
      synopticC: 2.5,
      rh: 66,
      rain: [0.35, 0.35, 0.3, 0.15, 0.05, 0.02, 0, 0, 0.02, 0.1, 0.25, 0.35],
      rainRateMm: 6,
      pm25: [10, 8, 6, 6, 6, 6, 6, 6, 7, 7, 9, 11],
    },
    weatherNames: ["Palo Alto", "Menlo Park", "Mountain View", "Los Altos", "Portola Valley", "Sunnyvale", "Cupertino", "Atherton"],
    airNames: ["Palo Alto", "Redwood City", "Mountain View", "Sunnyvale", "San Jose - Jackson", "Los Gatos"],
  },
  Pittsburgh: {
    name: "Pittsburgh",
    country: "US",
    bearings: [0, 360],
    elevation: [220, 380],
    cwaLetter: "",
    fips: ["42", "003"],
    climate: {
      meanC: 11,
      seasonalAmpC: 12,
      diurnalRangeC: 10,
      synopticC: 5,
      rh: 68,
      rain: [0.35, 0.33, 0.35, 0.35, 0.35, 0.33, 0.3, 0.28, 0.25, 0.25, 0.3, 0.35],
      rainRateMm: 5,
      pm25: [10, 9, 8, 7, 8, 9, 10, 9, 8, 7, 8, 9],
    },
    weatherNames: [
      "Pittsburgh - Squirrel Hill",
      "Pittsburgh - Lawrenceville",
      "Pittsburgh - Oakland",
      "Mount Lebanon",
      "Wilkinsburg",
      "Monroeville",
      "Bethel Park",
      "Fox Chapel",
    ],
    airNames: ["Lawrenceville", "Liberty", "Parkway East", "North Braddock", "Avalon", "South Fayette"],
  },
};

export function regionOf(name: string): RegionInfo {
  const r = REGIONS[name];
  if (!r) throw new Error(`unknown demo region ${name}`);
  return r;
}
