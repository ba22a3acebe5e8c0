/**
 * A key in a web page, end to end, on two gateway processes (`npm start`'s
 * entry) sharing one PostgreSQL database and the run's Redis, behind a
 * trusted proxy (TRUSTED_PROXIES=loopback):
 *
 * - a real Chromium page on the key's allowed origin runs the app's document
 *   with it; the same page served from another origin is refused;
 * - curl with the documents-only key runs the app's document, by id or text,
 *   and is refused any other;
 * - an address outside the key's CIDR range is refused, as the proxy names it;
 * - the per-visitor limit holds exactly across the two processes, and a
 *   second visitor has a share of its own.
 *
 * Any request of the browser to another host, or any error on its page,
 * fails the test.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { KeyStore } from "../../src/keys/store.js";
import { canaryExport } from "../support/canary.js";
import { chromiumPresent, launchChromium } from "../support/chromium.js";
import { inOneClockMinute } from "../support/clock.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";

const REDIS_URL = inject("redisUrl");
const skipped = REDIS_URL ? "" : ` (skipped: ${inject("redisMissing")})`;
const run = promisify(execFile);
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** The app's one document, as its build would persist it. */
const APP_DOCUMENT = "query CourseMap { universities(first: 2) { totalCount nodes { code } } }";
const APP_ID = `sha256:${sha256(APP_DOCUMENT)}`;

let db: Database & { url: string };
let a: GatewayProcess;
let b: GatewayProcess;
const pages: { server: Server; origin: string }[] = [];
const keys: Record<"page" | "servers" | "visitors", { id: number; key: string }> = {} as never;

/** A static page that calls the gateway with the key, by the app's document id, and shows what it got. */
const pageHtml = (gateway: string, key: string) => `<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Course map</title>
<main><h1>Course map</h1><p id="result">loading</p></main>
<script type="module">
const result = document.getElementById("result");
try {
  const response = await fetch(${JSON.stringify(`${gateway}/graphql`)}, {
    method: "POST",
    headers: { authorization: "Bearer ${key}", "content-type": "application/json" },
    body: JSON.stringify({ documentId: ${JSON.stringify(APP_ID)} }),
  });
  result.textContent = response.status + " " + (await response.text());
} catch (error) {
  result.textContent = "failed " + error.message;
}
</script></html>`;

async function servePage(html: () => string): Promise<{ server: Server; origin: string }> {
  const server = createServer((_, response) => response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html()));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const page = { server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
  pages.push(page);
  return page;
}

beforeAll(async () => {
  if (!REDIS_URL) return;
  db = await freshDatabase();
  await importObject(db, canaryExport());
  // Counters in Redis are named by key id: this run's ids of their own (as test/limits/redis.test.ts).
  await db.query(`SELECT setval('api_key_id_seq', $1)`, [1_000_000 + Math.floor(Math.random() * 1_000_000_000)]);
  const env = { DATABASE_URL: db.url, REDIS_URL, TRUSTED_PROXIES: "loopback" };
  a = await startGateway("gateway A", env);
  b = await startGateway("gateway B", env);
  await Promise.all([waitReady(a), waitReady(b)]);
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  for (const { server } of pages) server.close();
  await db?.close();
});

describe.skipIf(!REDIS_URL)(`a key in a web page${skipped}`, () => {
  it("set up: the page's key, restricted to its origin and the app's documents; a server key; a key shared by visitors", async () => {
    const store = new KeyStore(db);
    const allowed = await servePage(() => pageHtml(a.base, keys.page.key));
    keys.page = await store.create({
      name: "course map page",
      perMinute: 1_000,
      restrictions: { origins: [allowed.origin], surfaces: ["graphql"], documentsOnly: true, visitorPerMinute: 30 },
    });
    await store.setDocuments(String(keys.page.id), new Map([[sha256(APP_DOCUMENT), APP_DOCUMENT]]));
    keys.servers = await store.create({ name: "servers", restrictions: { addresses: ["203.0.113.0/24"] } });
    keys.visitors = await store.create({ name: "visitors", perMinute: 1_000, restrictions: { visitorPerMinute: 5 } });
  });

  it.skipIf(!chromiumPresent)(
    "Chromium: the page on the allowed origin runs the app's document; the same page on another origin is refused",
    async () => {
      const elsewhere = await servePage(() => pageHtml(a.base, keys.page.key));
      const browser: Browser = await launchChromium();
      try {
        const context = await browser.newContext();
        const outside: string[] = [];
        const errors: string[] = [];
        const local = [a.base, ...pages.map((p) => p.origin)];
        context.on("request", (r) => {
          if (!local.some((origin) => r.url().startsWith(origin))) outside.push(r.url());
        });
        const page = await context.newPage();
        page.on("pageerror", (error) => errors.push(error.message));
        const resultOn = async (origin: string) => {
          await page.goto(`${origin}/`);
          await expect.poll(() => page.textContent("#result"), { timeout: 15_000 }).not.toBe("loading");
          return (await page.textContent("#result"))!;
        };
        const ok = await resultOn(pages[0]!.origin);
        expect(ok).toMatch(/^200 /);
        expect(JSON.parse(ok.slice(4)).data.universities.totalCount).toBeGreaterThan(0);
        const refused = await resultOn(elsewhere.origin);
        // The refusal is readable by the page (CORS), in GraphQL's shape, and names the restriction.
        expect(refused).toMatch(/^403 /);
        expect(JSON.parse(refused.slice(4))).toEqual({
          errors: [
            {
              message: `this API key may be used only from web pages on its allowed origins, and this request came from ${elsewhere.origin}`,
              extensions: { code: "FORBIDDEN" },
            },
          ],
        });
        expect(outside).toEqual([]);
        expect(errors).toEqual([]);
        await context.close();
      } finally {
        await browser.close();
      }
    },
    60_000,
  );

  it("curl with the page's key: the app's document by id or text; any other document refused, and so is REST", async () => {
    const origin = pages[0]!.origin;
    const curl = async (body: unknown, path = "/graphql") => {
      const { stdout } = await run("curl", [
        "-sS",
        "-w",
        "\n%{http_code}",
        "-H",
        `Authorization: Bearer ${keys.page.key}`,
        "-H",
        `Origin: ${origin}`,
        ...(body === undefined ? [] : ["-H", "content-type: application/json", "-d", JSON.stringify(body)]),
        `${a.base}${path}`,
      ]);
      const cut = stdout.lastIndexOf("\n");
      return { status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)) };
    };
    const byId = await curl({ documentId: APP_ID });
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    expect((await curl({ query: APP_DOCUMENT })).status).toBe(200);
    const other = await curl({ query: "{ universities(first: 100) { nodes { code nameZh } } }" });
    expect(other.status).toBe(403);
    expect(other.body.errors[0].message).toContain("runs only its trusted GraphQL documents");
    const rest = await curl(undefined, "/api/v1/universities");
    expect(rest.status).toBe(403);
    expect(rest.body).toEqual({ success: false, error: "this API key may not be used on REST: it is restricted to GraphQL" });
  });

  it("a server key behind the trusted proxy: its range is served, an address outside it refused", async () => {
    const from = (address: string) =>
      request(a, "/api/v1/universities", { key: keys.servers.key, headers: { "x-forwarded-for": address } });
    expect((await from("203.0.113.9")).status).toBe(200);
    const refused = await from("198.51.100.7");
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe("this API key may be used only from its allowed addresses, and this request came from 198.51.100.7");
  });

  it("the per-visitor limit holds exactly across the two processes; another visitor has a share of its own", async () => {
    const burst = (address: string) =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          request(i % 2 ? b : a, "/api/v1/universities", { key: keys.visitors.key, headers: { "x-forwarded-for": address } }),
        ),
      );
    // A burst that straddled two minutes proves nothing: once more, as other visitors.
    await inOneClockMinute(async (attempt) => {
      const [first, second] = [await burst(`198.51.100.${attempt * 2}`), await burst(`198.51.100.${attempt * 2 + 1}`)];
      for (const answers of [first, second]) {
        expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
        const refused = answers.filter((r) => r.status === 429);
        expect(refused).toHaveLength(15);
        for (const r of refused)
          expect(r.json.error).toMatch(/^rate limit exceeded: 5 requests per minute from one address \(the key's per-visitor limit\)/);
        // Each success saw its own place in the visitor's one shared count.
        expect(
          answers
            .filter((r) => r.status === 200)
            .map((r) => Number(r.headers.get("x-ratelimit-remaining")))
            .sort(),
        ).toEqual([0, 1, 2, 3, 4]);
      }
    });
  }, 120_000);
});
