export * from "./types.js";
export { Rng, hash32, hashUnit, mulberry32, smoothNoise } from "./random.js";
export { DEMO_UNIVERSITIES } from "./universities.js";
export { buildStations, haversineKm } from "./stations.js";
export { observe } from "./observations.js";
export {
  buildDemoDataset,
  demoExportChunks,
  demoExportRecords,
  demoExportStream,
  writeDemoExport,
  writeDemoExportFile,
  writeExportFile,
} from "./generate.js";
