export * from "./types.js";
export { Rng, hash32, hashString, hashUnit, mulberry32, smoothNoise } from "./random.js";
export { DEMO_UNIVERSITIES, REGIONS } from "./universities.js";
export { DEMO_COURSE_COUNT, DEMO_SEMESTERS, buildCourses, semesterDates } from "./courses.js";
export { buildConferences, buildPapers } from "./papers.js";
export { buildHubPacks } from "./packs.js";
export { buildStations, haversineKm, type DemoStation } from "./stations.js";
export { observationBatches, observe } from "./observations.js";
export { isoInstant, floorHour } from "./time.js";
export {
  DEMO_DEFAULT_DAYS,
  DEMO_DEFAULT_SEED,
  DEMO_EXPORT_FORMAT,
  OBSERVATION_ROWS_PER_CHUNK,
  buildDemoDataset,
  demoExportChunks,
  demoExportStream,
  resolveDemoOptions,
  writeDemoExport,
  writeDemoExportFile,
  type DemoDataset,
  type DemoWriteStats,
  type ResolvedDemoOptions,
} from "./generate.js";
