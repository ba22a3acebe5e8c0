/**
 * Resident memory of the gateway on the embedded default, as `npm start` runs
 * it (src/main.ts in a child process), from /proc, and beside it the
 * embedded PostgreSQL's (the PSS of its processes: shared buffers counted once):
 *   - after the first start, which imports the demo data;
 *   - after 300 REST requests;
 *   - during a 60-day demo import beside the gateway (npm run import);
 *   - after a restart, and 300 requests more.
 *
 *   npm run bench:memory
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { commandLine } from "../src/cli/args.js";
import { CLUSTER_DIR } from "../src/db/cluster-dir.js";
import { tempDir } from "../test/support/temp.js";
import type { ProgressUnit } from "../src/observe/progress.js";
import { serverMiB } from "./http/process.js";
import { benchReport } from "./report.js";
import type { GatewayProcess } from "../test/support/gateway-process.js";

commandLine({
  name: "bench:memory",
  usage: `usage: npm run bench:memory

Resident memory of the gateway on the embedded default, and of its
PostgreSQL beside it: after the first start, after 300 requests, during a
60-day import, and after a restart.`,
  options: {},
});

// Loaded once the command line is read: --help and a wrong option answer without them.
const { stopServer } = await import("../src/db/embedded.js");
const { cli } = await import("../test/support/cli.js");
const { request, startGateway, stopAllGateways, waitReady } = await import("../test/support/gateway-process.js");
const { demoExportChunks } = await import("../src/demo/index.js");
const report = benchReport("bench:memory");
const dataDir = join(tempDir("bench-memory-"), "data");
const cluster = join(dataDir, CLUSTER_DIR);
/** The embedded PostgreSQL's memory now, in MB. */
const server = () => serverMiB(Number(readFileSync(join(cluster, "postmaster.pid"), "utf8").split("\n")[0])).toFixed(0);
const kb = (pid: number, field: string) =>
  Number(readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`${field}:\\s+(\\d+)`))![1]) / 1024;
const PATHS = [
  "/api/v1/universities",
  "/api/v1/courses?page_size=100",
  "/api/v1/environment/snapshot?limit=100",
  "/api/v1/environment/schools/1/history?days=30",
];
let key = "";
async function requests(gateway: GatewayProcess) {
  report.progress.phase("300 requests", { total: 300, unit: "steps" });
  for (let i = 0; i < 300; i++) {
    report.progress.set(i);
    await request(gateway, PATHS[i % PATHS.length]!, { key });
  }
}

report.progress.phase("first start (imports the demo data)");
const g = await startGateway("g", { DATA_DIR: dataDir });
await waitReady(g, 300_000);
const pid = g.child.pid!;
report.say(
  `after start with demo import: RSS ${kb(pid, "VmRSS").toFixed(0)} MB, peak ${kb(pid, "VmHWM").toFixed(0)} MB; PostgreSQL ${server()} MB`,
);
key = JSON.parse((await cli(dataDir, "keys", ["create", "--name", "m", "--json"])).stdout).key;
await requests(g);
report.say(`after 300 requests: RSS ${kb(pid, "VmRSS").toFixed(0)} MB, peak ${kb(pid, "VmHWM").toFixed(0)} MB; PostgreSQL ${server()} MB`);
let max = 0;
const t = setInterval(() => {
  max = Math.max(max, kb(pid, "VmRSS"));
}, 100);
const started = Date.now();
report.progress.phase("60-day import beside the gateway");
let importPhase = "";
const r = await cli(dataDir, "import", ["-"], {
  input: demoExportChunks({ days: 60 }),
  timeoutMs: 600_000,
  // The command's own progress, shown as this benchmark's.
  onProgress: (line) => {
    if (line.phase !== importPhase) {
      importPhase = line.phase;
      report.progress.phase(`60-day import beside the gateway: ${line.phase}`, { total: line.total, unit: line.unit as ProgressUnit });
    }
    report.progress.set(line.done);
  },
});
clearInterval(t);
report.say(
  `60-day import beside the gateway: exit ${r.code} in ${((Date.now() - started) / 1000).toFixed(1)} s; gateway RSS peak sampled ${max.toFixed(0)} MB, now ${kb(pid, "VmRSS").toFixed(0)} MB, VmHWM ${kb(pid, "VmHWM").toFixed(0)} MB; PostgreSQL ${server()} MB; ${r.stdout.trim()}`,
);
report.progress.phase("restart");
await stopAllGateways();
const g2 = await startGateway("g2", { DATA_DIR: dataDir });
await waitReady(g2, 300_000);
const pid2 = g2.child.pid!;
report.say(`restart (no import): RSS ${kb(pid2, "VmRSS").toFixed(0)} MB; PostgreSQL ${server()} MB`);
await requests(g2);
report.say(
  `restart, after 300 requests: RSS ${kb(pid2, "VmRSS").toFixed(0)} MB, peak ${kb(pid2, "VmHWM").toFixed(0)} MB; PostgreSQL ${server()} MB`,
);
await stopAllGateways();
await stopServer(cluster);
rmSync(join(dataDir, ".."), { recursive: true, force: true });
await report.finish();
