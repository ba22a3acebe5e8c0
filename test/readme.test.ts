/**
 * The README is executed: every `curl` line of its `sh` examples runs, as
 * written, through bash against `npm start`'s entry (src/main.ts) listening
 * on a real socket, on a private PostgreSQL that it fills with the demo data.
 * Only the address is changed (to the test's port) and `-sS -w` added to read
 * the status. The first REST example must answer the JSON shown under it.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { KeyStore } from "../src/keys/store.js";
import { freshDatabase } from "./support/databases.js";
import { type GatewayProcess, startGateway, stopAllGateways, waitReady } from "./support/gateway-process.js";

const README = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");
const run = promisify(execFile);

/** Each fenced block: its language and text. */
const blocks = [...README.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }));
/** The curl commands of the `sh` blocks, continuation lines joined. */
const curls = blocks
  .filter((b) => b.lang === "sh")
  .flatMap((b) => b.text.replace(/\\\n\s*/g, "").split("\n"))
  .filter((line) => line.startsWith("curl "));

let gateway: GatewayProcess;
let key: string;
let drop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  // A fresh database: the gateway finds it empty and imports the demo data, as `npm start` does.
  const db = await freshDatabase();
  drop = db.close; // closes this connection and drops the database
  gateway = await startGateway("readme", { DATABASE_URL: db.url });
  await waitReady(gateway, 180_000);
  key = (await new KeyStore(db).create({ name: "readme", owner: "test" })).key;
}, 240_000);

afterAll(async () => {
  await stopAllGateways();
  await drop?.();
});

async function curl(line: string): Promise<{ status: number; body: any }> {
  const command = line.replace(/^curl /, `curl -sS -w '\\n%{http_code}' `).replaceAll("http://127.0.0.1:4000", gateway.base);
  const { stdout } = await run("bash", ["-c", command], { env: { ...process.env, KEY: key }, timeout: 30_000 });
  const cut = stdout.lastIndexOf("\n");
  return { status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)) };
}

it("has examples to run, of every surface", () => {
  expect(curls.length).toBeGreaterThanOrEqual(6);
  expect(curls.some((c) => c.includes("/api/v1/"))).toBe(true);
  expect(curls.some((c) => c.includes("/graphql"))).toBe(true);
  expect(curls.some((c) => c.includes("/mcp"))).toBe(true);
});

it("the first REST example answers the JSON the README shows under it", async () => {
  const first = blocks.findIndex((b) => b.lang === "sh" && b.text.includes("curl "));
  const shown = blocks[first + 1]!;
  expect(shown.lang).toBe("json");
  const answer = await curl(curls[0]!);
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual(JSON.parse(shown.text));
});

it.each(curls.map((c, i) => [i + 1, c]))("example %i answers 200 in its surface's success shape: %s", async (_i, line) => {
  const { status, body } = await curl(line as string);
  expect(status).toBe(200);
  if ((line as string).includes("/api/v1/")) expect(body.success).toBe(true);
  else if ((line as string).includes("/graphql")) {
    expect(body.errors).toBeUndefined();
    expect(body.data).toBeTruthy();
  } else {
    expect(body.jsonrpc).toBe("2.0");
    expect(body.result.isError).toBeFalsy();
    expect(body.result.structuredContent.success).toBe(true);
  }
});
