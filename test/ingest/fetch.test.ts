/**
 * `npm run ingest -- --fetch`: the payload comes from the agency's configured
 * URL with its key, from a local server standing in for the agency (no test
 * reaches the internet). An attempt has a time limit, a failure that may pass
 * is tried again after a back-off, a final one says in one line what
 * happened, and the key is never printed.
 */
import { readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../support/cli.js";
import { migratedDataDir } from "../support/databases.js";
import { tempDir } from "../support/temp.js";

const KEY = "CWA-SECRET-0123-4567";
const CWA = readFileSync(join(import.meta.dirname, "samples", "cwa-O-A0001-001.json"), "utf8");

let tmp: string;
let server: Server;
let base: string;
/** What the stand-in agency does with the next requests, in order; then it serves the payload. */
let plan: ((res: ServerResponse) => void)[] = [];
const seen: string[] = [];

beforeAll(async () => {
  tmp = tempDir("ingest-fetch-");
  migratedDataDir(join(tmp, "data"));
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(req.url ?? "");
    const step = plan.shift();
    if (step) return step(res);
    const url = new URL(req.url ?? "/", "http://x");
    if (url.searchParams.get("Authorization") !== KEY) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"success":"false"}');
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(CWA);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(tmp, { recursive: true, force: true });
});

const fetchCwa = (env: Record<string, string | undefined>, dir = join(tmp, "data")) =>
  cli(dir, "ingest", ["--source", "cwa", "--fetch"], {
    env: {
      INGEST_CWA_URL: `${base}/api/v1/rest/datastore/O-A0001-001?format=JSON`,
      INGEST_CWA_KEY: KEY,
      INGEST_FETCH_RETRIES: "0",
      ...env,
    },
  });

describe("npm run ingest -- --fetch", () => {
  it("gets the payload from the configured URL, with the key as the agency takes it, and stores it", async () => {
    seen.length = 0;
    const run = await fetchCwa({});
    expect(run.stderr.replace(/^applied migration .*\n/gm, "")).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ingested cwa: read 3, stored 3, unchanged 0, skipped 0; /);
    expect(seen).toEqual([`/api/v1/rest/datastore/O-A0001-001?format=JSON&Authorization=${KEY}`]);
  });

  it("refuses, exit 2, when the URL or the key is not configured, or a file is named too", async () => {
    const noUrl = await fetchCwa({ INGEST_CWA_URL: undefined });
    expect(noUrl).toMatchObject({ code: 2, stderr: "ingest failed: --fetch needs INGEST_CWA_URL, the agency's URL\n" });
    const noKey = await fetchCwa({ INGEST_CWA_KEY: undefined });
    expect(noKey).toMatchObject({ code: 2, stderr: "ingest failed: --fetch needs INGEST_CWA_KEY, the agency's API key\n" });
    const both = await cli(join(tmp, "data"), "ingest", ["--source", "cwa", "--fetch", "x.json"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^ingest: --fetch takes no file\n/);
  });

  it("tries again after 0.5 s and 1 s when the agency answers 503, and then stores the payload", async () => {
    const unavailable = (res: ServerResponse) => res.writeHead(503, "Service Unavailable").end();
    plan = [unavailable, unavailable];
    const started = Date.now();
    const run = await fetchCwa({ INGEST_FETCH_RETRIES: "3" });
    expect(run.code).toBe(0);
    expect(run.stderr.replace(/^applied migration .*\n/gm, "")).toBe(
      "fetch: HTTP 503 Service Unavailable; trying again in 0.5 s (attempt 2 of 4)\n" +
        "fetch: HTTP 503 Service Unavailable; trying again in 1.0 s (attempt 3 of 4)\n",
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(run.stdout).toMatch(/^ingested cwa: read 3, stored 0, unchanged 3, /);
  });

  it("gives up on an agency that does not answer, within the time limit of each attempt, and never prints the key", async () => {
    plan = [() => undefined, () => undefined]; // accepted, never answered
    const run = await fetchCwa({ INGEST_FETCH_TIMEOUT_MS: "300", INGEST_FETCH_RETRIES: "1" });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `fetch: no answer within 300 ms; trying again in 0.5 s (attempt 2 of 2)\n` +
        `ingest failed: cannot fetch ${base}/api/v1/rest/datastore/O-A0001-001: no answer within 300 ms (2 attempts)\n`,
    );
    expect(run.stderr).not.toContain(KEY);
  });

  it("says so when nothing listens, and does not try again after a refusal of the key", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await fetchCwa({ INGEST_CWA_URL: `http://127.0.0.1:${port}/O-A0001-001` });
    expect(refused).toMatchObject({
      code: 1,
      stderr: `ingest failed: cannot fetch http://127.0.0.1:${port}/O-A0001-001: the connection was refused (1 attempt)\n`,
    });
    const wrongKey = await fetchCwa({ INGEST_CWA_KEY: "CWA-WRONG", INGEST_FETCH_RETRIES: "3" });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/: HTTP 401 Unauthorized \(1 attempt\)\n$/);
    expect(wrongKey.stderr).not.toContain("CWA-WRONG");
  });
});
