/**
 * `npm run ingest` as a process: usage errors (exit 2), a payload that is not
 * the agency's (exit 1, nothing changed), bad records skipped and reported on
 * standard error while the rest is stored (exit 0), the summary line, the
 * same payload twice, and the command running inside a gateway that owns
 * the embedded database, its answer visible at once.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLUSTER_DIR } from "../../src/db/cluster-dir.js";
import { stopServer } from "../../src/db/embedded.js";
import { openDatabase } from "../../src/db/driver.js";
import { canaryExport } from "../support/canary.js";
import { cli } from "../support/cli.js";
import { migratedDataDir } from "../support/databases.js";
import { type GatewayProcess, request, settledOutput, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";
import { airNowPayload, airNowSites, cwaPayload, moenvWrapped } from "./payloads.js";
import { tempDir } from "../support/temp.js";

let tmp: string;
let dataDir: string;
const file = (name: string, content: unknown) => {
  const path = join(tmp, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
};
const ingest = (args: string[], input = "") => cli(dataDir, "ingest", args, { input });
/** The summary line, ending with the time it took. */
const summary = (text: string) => expect.stringMatching(new RegExp(`^${text.replace(/[()]/g, "\\$&")} in \\d+\\.\\d s\\n$`));

async function stationCount(): Promise<number> {
  const db = await openDatabase({ dataDir });
  try {
    return (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM station`))[0]!.n;
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  tmp = tempDir("ingest-cli-");
  dataDir = migratedDataDir(join(tmp, "data"));
  const first = await cli(dataDir, "import", ["-"], { input: JSON.stringify(canaryExport()) });
  expect(first.code).toBe(0);
}, 120_000);
afterAll(async () => {
  await stopAllGateways();
  await stopServer(join(dataDir, CLUSTER_DIR));
  rmSync(tmp, { recursive: true, force: true });
}, 60_000);

const cwa = cwaPayload([
  { id: "C0A520", time: "2026-03-09T20:00:00+08:00", wgs84: [25.02, 121.54], temp: 18.5, rh: 80, precipTotal: 0 },
  { id: "C0A530", time: "2026-03-09T20:00:00+08:00", wgs84: [25.03, 121.54], temp: "warm", rh: 80, precipTotal: 0 },
  { id: "C0A540", time: "2026-03-09T20:00:00+08:00", wgs84: [25.04, 121.54], temp: -99, rh: "75", precipTotal: "1.5" },
]);

describe("npm run ingest", () => {
  it("refuses a missing or unknown --source, and --sites where it does not belong, with exit 2", async () => {
    const none = await ingest([file("a.json", cwa)]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^ingest: --source must be one of cwa, moenv, nws, airnow, got null\nusage: npm run ingest -- /);
    expect((await ingest(["--source", "metar", file("a.json", cwa)])).code).toBe(2);
    const airnow = await ingest(["--source", "airnow", file("a.json", [])]);
    expect(airnow.code).toBe(2);
    expect(airnow.stderr).toMatch(/^ingest: --sites <file> is required with --source airnow\n/);
    expect((await ingest(["--source", "cwa", "--sites", "x", file("a.json", cwa)])).code).toBe(2);
    expect(await ingest(["--help"])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^usage: npm run ingest -- --source cwa\|moenv\|nws\|airnow/),
    });
  });

  it("refuses a payload that is not the agency's in one line, exit 1, storing nothing", async () => {
    const before = await stationCount();
    const wrong = await ingest(["--source", "cwa", file("moenv.json", moenvWrapped([]))]);
    expect(wrong).toEqual({
      code: 1,
      stdout: "",
      stderr: "ingest failed: not a CWA O-A0001-001 payload: expected records.Station to be an array\n",
    });
    const notJson = await ingest(["--source", "nws", "-"], "{ not json");
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/^ingest failed: the payload is not JSON: .+\n$/);
    expect(await stationCount()).toBe(before);
  });

  it("refuses a payload larger than 64 MiB before parsing it, exit 1", async () => {
    const huge = file("huge.json", `[${" ".repeat(64 * 2 ** 20)}]`);
    const run = await ingest(["--source", "moenv", huge]);
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr: "ingest failed: the payload is larger than 64 MiB: no agency sends one so large\n",
    });
  });

  it("stores the good records, reports each bad one on standard error, and ends with the summary", async () => {
    const before = await stationCount();
    const run = await ingest(["--source", "cwa", file("cwa.json", cwa)]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('skipped records.Station[1]: not a number: AirTemperature: not a number: "warm"\n');
    expect(run.stdout).toEqual(
      summary("ingested cwa: read 3, stored 2, unchanged 0, skipped 1 (not a number 1); stations added 2, changed 0"),
    );
    expect(await stationCount()).toBe(before + 2);
  });

  it("changes nothing when the same payload comes again, from standard input", async () => {
    const run = await ingest(["--source", "cwa", "-"], JSON.stringify(cwa));
    expect(run.code).toBe(0);
    expect(run.stdout).toEqual(
      summary("ingested cwa: read 3, stored 0, unchanged 2, skipped 1 (not a number 1); stations added 0, changed 0"),
    );
  });

  it("reads AirNow's site list from --sites, and reports the sites it does not list", async () => {
    const sites = file(
      "sites.dat",
      airNowSites([{ id: "530330080", name: "Seattle-Beacon Hill", latitude: 47.5683, longitude: -122.3081 }]),
    );
    const payload = airNowPayload([
      { siteID: "530330080", dateObserved: "2026-03-09 ", hourObserved: 4, localTimeZone: "PDT", parameterName: "PM2.5", nowcastAQI: 42 },
      { siteID: "999999999", dateObserved: "2026-03-09 ", hourObserved: 4, localTimeZone: "PDT", parameterName: "PM2.5", nowcastAQI: 42 },
    ]);
    const run = await ingest(["--source", "airnow", "--sites", sites, file("airnow.json", payload)]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("skipped [1]: unknown site: siteID 999999999: not in the site list, so it has no position\n");
    expect(run.stdout).toEqual(
      summary("ingested airnow: read 2, stored 1, unchanged 0, skipped 1 (unknown site 1); stations added 1, changed 0"),
    );
  });
});

describe("the examples of docs/operations.md", () => {
  const PAGE = readFileSync(join(import.meta.dirname, "..", "..", "docs", "operations.md"), "utf8");
  const blocks = [...PAGE.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }));
  const examples = blocks
    .filter((b) => b.lang === "sh")
    .flatMap((b) => b.text.split("\n"))
    .filter((line) => line.startsWith("npm run ingest -- "));

  it("show every agency, and each runs as written on an empty DATA_DIR, skipping nothing", async () => {
    expect(examples.map((line) => /--source (\w+)/.exec(line)?.[1])).toEqual(["cwa", "moenv", "nws", "airnow"]);
    const empty = join(tmp, "readme-data");
    const outputs: string[] = [];
    for (const line of examples) {
      const run = await cli(empty, "ingest", line.slice("npm run ingest -- ".length).split(" "));
      expect(run.stderr.replace(/^applied migration .*\n/gm, "")).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/ skipped 0; /);
      outputs.push(run.stdout);
    }
    // The output shown under them is the first one's.
    const shown = blocks[blocks.findIndex((b) => b.text.startsWith("npm run ingest -- ")) + 1]!;
    expect(outputs[0]!.replace(/ in \d+\.\d s/, "")).toBe(shown.text.replace(/ in \d+\.\d s/, ""));
  }, 120_000);
});

describe("while a gateway owns DATA_DIR", () => {
  let gateway: GatewayProcess;
  beforeAll(async () => {
    gateway = await startGateway("ingest", { DATA_DIR: dataDir, RESPONSE_CACHE_MS: "60000" });
    await waitReady(gateway, 120_000);
  }, 150_000);

  it("runs inside it, and the next answer shows the new reading though answers are cached for a minute", async () => {
    const created = await cli(dataDir, "keys", ["create", "--name", "ingest", "--json"]);
    const { key } = JSON.parse(created.stdout.trim().split("\n").pop()!) as { key: string };
    const realtime = async () => (await request(gateway, "/api/v1/environment/schools/NTU", { key })).json.data.realtime;
    await realtime(); // now cached
    // This hour in Taipei (UTC+8), as MOENV writes it.
    const taipei = new Date(Date.now() + 8 * 3_600_000).toISOString();
    const publishtime = `${taipei.slice(0, 10).replaceAll("-", "/")} ${taipei.slice(11, 13)}:00:00`;
    // Right on NTU: closer than 1 m, it takes all the weight.
    const payload = moenvWrapped([
      { siteid: "77", publishtime, latitude: "25.0174", longitude: "121.5405", aqi: "123", pm25: "45.6", pm10: "80" },
    ]);
    const run = await cli(dataDir, "ingest", ["--source", "moenv", "-"], { input: JSON.stringify(payload) });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toEqual(summary("ingested moenv: read 1, stored 1, unchanged 0, skipped 0; stations added 1, changed 0"));
    expect(await realtime()).toMatchObject({ aqi: 123, pm25_ugm3: 45.6, aqi_status: "Unhealthy for Sensitive Groups" });
  }, 90_000);

  it("--fetch: the command line fetches the payload, and the gateway stores it without seeing the URL or the key", async () => {
    const payload = moenvWrapped([{ siteid: "78", publishtime: "2026/03/09 20:00:00", latitude: "25.03", longitude: "121.55", aqi: "40" }]);
    const asked: string[] = [];
    const agency = createServer((req, res) => {
      asked.push(req.url ?? "");
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(payload));
    });
    await new Promise<void>((resolve) => agency.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(agency.address() as AddressInfo).port}/api/v2/aqx_p_432?format=json`;
      const run = await cli(dataDir, "ingest", ["--source", "moenv", "--fetch"], {
        env: { INGEST_MOENV_URL: url, INGEST_MOENV_KEY: "moenv-key-1" },
      });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toEqual(summary("ingested moenv: read 1, stored 1, unchanged 0, skipped 0; stations added 1, changed 0"));
      expect(asked).toEqual(["/api/v2/aqx_p_432?format=json&api_key=moenv-key-1"]);
      // The gateway was started without the agency's configuration: it stored what the command line sent.
      expect(await settledOutput(gateway)).not.toContain("moenv-key-1");
    } finally {
      await new Promise((resolve) => agency.close(resolve));
    }
  }, 60_000);
});
