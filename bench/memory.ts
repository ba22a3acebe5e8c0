/**
 * Resident memory of the gateway on the embedded default, as `npm start` runs
 * it (src/main.ts in a child process), from /proc, and beside it the
 * embedded PostgreSQL's (the PSS of its processes: shared buffers counted once):
 *   - after the first start, which imports the demo data;
 *   - after 300 REST requests;
 *   - during a 60-day demo import beside the gateway (npm run import);
 *   - after a restart, and 300 requests more;
 *   - under 16 connections of mixed kept and uncached reads for 60 s (wrk):
 *     half repeat a few answers the response cache keeps, half are each new
 *     (deep pages, title searches, course ids), so the cache fills to its
 *     bound (RESPONSE_CACHE_MAX_BYTES, default 32 MiB) and turns over.
 *
 * With DATABASE_URL set, the gateway serves that database instead (its data
 * imported already, like the taiwan dataset), on the default configuration
 * otherwise.
 *
 *   npm run bench:memory
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commandLine } from "../src/cli/args.js";
import type { ProgressUnit } from "../src/observe/progress.js";
import type { GatewayProcess } from "../test/support/gateway-process.js";

const line = commandLine({
  name: "bench:memory",
  usage: `usage: npm run bench:memory [-- --built]

Resident memory of the gateway on the embedded default, and of its
PostgreSQL beside it: after the first start, after 300 requests, during a
60-day import, after a restart, and under 60 s of mixed kept and uncached
reads at 16 connections (wrk). With DATABASE_URL set, the gateway serves
that database instead. The gateway runs through tsx, as the commands run, or
with --built as \`npm start\` runs it, from dist/ (run \`npm run build\` first).`,
  options: { built: { type: "boolean", default: false } },
});
/** How the gateway is started: as `npm start` does, or from the production build. */
const built = line.values.built ? { command: [process.execPath, "dist/src/main.js"] as [string, ...string[]] } : {};

// Loaded once the command line is read: --help and a wrong option answer without them.
const { CLUSTER_DIR } = await import("../src/db/cluster-dir.js");
const { tempDir } = await import("../test/support/temp.js");
const { serverMiB } = await import("./http/process.js");
const { benchReport } = await import("./report.js");
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

/** The database the gateway serves: the embedded default, or DATABASE_URL's (whose import is not repeated here). */
const external = process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {};

/**
 * A wrk script of mixed reads: every other request one of a few answers the
 * cache keeps, the rest each new (a page up to `pages`, a search's page, a
 * course id up to `maxId`).
 */
const mixedScript = (key: string, pages: number, maxId: number) => `
local kept = { "/api/v1/universities", "/api/v1/courses", "/api/v1/courses?university=NTU", "/api/v1/course_stats",
  "/api/v1/course_stats?group_by=school", "/api/v1/hub/packs", "/api/v1/environment/snapshot?limit=100",
  "/api/v1/courses?q=learning", "/api/v1/courses?semester=113-1", "/api/v1/papers", "/api/v1/conferences" }
local words = { "learning", "%E8%B3%87%E6%96%99", "%E7%A8%8B%E5%BC%8F", "%E5%AD%B8", "machine", "data", "AI", "analysis" }
local n = 0
request = function()
  n = n + 1
  local path
  if n % 2 == 0 then
    path = kept[(n / 2) % #kept + 1]
  else
    local r = math.random(1, 3)
    if r == 1 then path = "/api/v1/courses?page=" .. math.random(1, ${pages})
    elseif r == 2 then path = "/api/v1/courses?q=" .. words[math.random(1, #words)] .. "&page=" .. math.random(1, 50)
    else path = "/api/v1/courses/" .. math.random(1, ${maxId}) end
  end
  return wrk.format("GET", path, { ["Authorization"] = "Bearer ${key}" })
end
`;

/** The gateway's peak resident memory under 60 s of mixed reads at 16 connections, and its rate. */
async function mixedLoad(gateway: GatewayProcess, pid: number): Promise<void> {
  report.progress.phase("60 s of mixed kept and uncached reads, 16 connections");
  const mixedKey = JSON.parse(
    (
      await cli(dataDir, "keys", ["create", "--name", "mixed", "--per-minute", "10000000", "--per-day", "100000000", "--json"], {
        env: external,
      })
    ).stdout,
  ).key as string;
  const stats = JSON.parse((await request(gateway, "/api/v1/courses?page_size=1", { key: mixedKey })).text) as { total: number };
  const script = join(dataDir, "..", "mixed.lua");
  writeFileSync(script, mixedScript(mixedKey, Math.max(1, Math.ceil(stats.total / 20)), Math.ceil(stats.total * 1.2)));
  const before = kb(pid, "VmHWM");
  const run = spawnSync("wrk", ["-t2", "-c16", "-d60s", "-s", script, gateway.base], { encoding: "utf8" });
  const rate = run.stdout.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? "?";
  report.say(
    `mixed reads, 16 connections, 60 s (${stats.total.toLocaleString("en")} courses): ${rate} req/s; gateway RSS ${kb(pid, "VmRSS").toFixed(0)} MB, peak ${kb(pid, "VmHWM").toFixed(0)} MB (before ${before.toFixed(0)} MB)`,
  );
}

if (external.DATABASE_URL) {
  report.progress.phase("start on DATABASE_URL");
  const g = await startGateway("g", { DATA_DIR: dataDir, ...external }, built);
  await waitReady(g, 300_000);
  await mixedLoad(g, g.child.pid!);
  await stopAllGateways();
  rmSync(join(dataDir, ".."), { recursive: true, force: true });
  await report.finish();
  process.exit(0);
}

report.progress.phase("first start (imports the demo data)");
const g = await startGateway("g", { DATA_DIR: dataDir }, built);
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
const g2 = await startGateway("g2", { DATA_DIR: dataDir }, built);
await waitReady(g2, 300_000);
const pid2 = g2.child.pid!;
report.say(`restart (no import): RSS ${kb(pid2, "VmRSS").toFixed(0)} MB; PostgreSQL ${server()} MB`);
await requests(g2);
report.say(
  `restart, after 300 requests: RSS ${kb(pid2, "VmRSS").toFixed(0)} MB, peak ${kb(pid2, "VmHWM").toFixed(0)} MB; PostgreSQL ${server()} MB`,
);
await mixedLoad(g2, pid2);
await stopAllGateways();
await stopServer(cluster);
rmSync(join(dataDir, ".."), { recursive: true, force: true });
await report.finish();
