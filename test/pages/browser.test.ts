/**
 * The front door in a real browser (Debian's Chromium, driven by
 * playwright-core), on a machine with no internet: every request that is not
 * to the gateway itself fails the test, and so does any error on a page.
 *   - The landing page renders, and a pasted key is remembered.
 *   - GraphiQL, served with every file from the gateway, runs a query with
 *     that key and shows the result, and its Docs explorer lists the schema
 *     without a manual re-fetch.
 *   - The REST reference (Swagger UI) lists the 11 operations, and its
 *     "try it" calls the gateway with the key.
 *   - axe-core finds no serious or critical accessibility violation on them.
 * Screenshots of each page go to artifacts/screenshots/ (git-ignored).
 *
 * `.ci/run` installs Chromium; elsewhere the test is skipped when it is
 * missing, unless REQUIRE_BROWSER is set (as CI sets it).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../rest/routes.js";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { canaryExport } from "../support/canary.js";
import { seriousViolations } from "../support/axe.js";
import { chromiumPresent, launchChromium, SCREENSHOTS } from "../support/chromium.js";
import { freshDatabase } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

const present = chromiumPresent;

let t: TestGateway;
let server: Server;
let base: string;
let key: string;
let browser: Browser;
let context: BrowserContext;
/** Requests to anywhere but the gateway, and errors on pages: each fails the test. */
const outside: string[] = [];
const pageErrors: string[] = [];
/** The Authorization header of each POST to /graphql, and of each REST call, the pages sent. */
const graphqlAuth: (string | undefined)[] = [];
const restAuth: (string | undefined)[] = [];

beforeAll(async () => {
  if (!present) return;
  const db = await freshDatabase();
  key = (await new KeyStore(db).create({ name: "browser" })).key;
  const limits = new RateLimits({ defaults: { perMinute: 1_000, perDay: 100_000 } });
  t = await testGateway(canaryExport(), {
    db,
    gateway: { auth: { keys: new KeyStore(db), limits }, limits: { perMinute: 60, perDay: 10_000 } },
  });
  server = createServer(t.gateway);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol === "data:" || url.protocol === "blob:") return;
    if (url.origin !== base) outside.push(request.url());
    if (url.pathname === "/graphql" && request.method() === "POST") graphqlAuth.push(request.headers().authorization);
    if (url.pathname.startsWith("/api/v1/")) restAuth.push(request.headers().authorization);
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

async function open(path: string): Promise<Page> {
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(`${path}: ${error.message}`));
  await page.goto(`${base}${path}`);
  return page;
}

describe.skipIf(!present)("the front door in a browser, offline", () => {
  it("the landing page renders the service, its terms and limits, and remembers a pasted key", async () => {
    const page = await open("/");
    expect(await page.textContent("h1")).toBe("Public Data API");
    expect(await page.textContent("#per-minute")).toBe("60");
    expect(await page.textContent("#per-day")).toBe("10,000");
    expect(await page.textContent("#terms + ul")).toContain("No commercial bulk scraping or resale of the data.");
    expect(await page.textContent("#key-state")).toBe("no key saved");
    await page.fill("#api-key", key);
    await Promise.all([page.waitForEvent("load"), page.click("#save-key")]);
    expect(await page.evaluate(() => localStorage.getItem("uedu.apiKey"))).toBe(key);
    expect(await page.textContent("#key-state")).toBe(`saved: ${key.slice(0, 10)}…`);
    expect(await page.textContent("#key-check")).toContain("A key is saved in this browser");
    // The key is in the browser, never in the page the server wrote.
    expect(await (await fetch(`${base}/`)).text()).not.toContain(key);
    await page.screenshot({ path: join(SCREENSHOTS, "landing.png"), fullPage: true });
    await page.close();
  }, 60_000);

  it("GraphiQL runs a query with the saved key, and its Docs list the schema with no re-fetch", async () => {
    const page = await open("/graphql");
    expect(await page.title()).toBe("Public Data API — GraphQL");
    await page.getByRole("button", { name: /Execute query/ }).click();
    // The result editor writes its spaces as no-break spaces (\s matches both).
    await page.waitForFunction(() => /"totalCount":\s3/.test(document.querySelector(".graphiql-response")?.textContent ?? ""), null, {
      timeout: 30_000,
    });
    expect(await page.textContent(".graphiql-response")).toMatch(/"code":\s"NTU"/);
    await page.getByRole("button", { name: "Show Documentation Explorer" }).click();
    await page.locator(".graphiql-doc-explorer").getByText("Query", { exact: true }).first().click();
    await expect.poll(() => page.textContent(".graphiql-doc-explorer"), { timeout: 10_000 }).toContain("University");
    // Every request GraphiQL made, the schema's introspection first, carried the key.
    expect(graphqlAuth.length).toBeGreaterThanOrEqual(2);
    expect(graphqlAuth.every((header) => header === `Bearer ${key}`)).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, "graphiql.png") });
    await page.close();
  }, 90_000);

  it("the REST reference lists the 11 operations, and its try-it answers 200 with the saved key", async () => {
    const page = await open("/docs");
    await page.waitForSelector(".opblock-summary-path", { timeout: 30_000 });
    const paths = await page.locator(".opblock-summary-path").evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-path")));
    for (const route of ROUTES) expect(paths, route.path).toContain(route.path);
    const universities = page.locator(".opblock").filter({ has: page.locator('[data-path="/api/v1/universities"]') });
    await universities.locator(".opblock-summary").click();
    await universities.locator("button.execute").click();
    const status = universities.locator(".live-responses-table tbody .response-col_status");
    await expect.poll(() => status.first().textContent(), { timeout: 20_000 }).toBe("200");
    expect(await universities.locator(".live-responses-table tbody .response-col_description").first().textContent()).toContain(
      '"success": true',
    );
    expect(restAuth.at(-1)).toBe(`Bearer ${key}`);
    await page.screenshot({ path: join(SCREENSHOTS, "docs.png"), fullPage: true });
    await page.close();
  }, 90_000);

  // Issue 32 item 4: axe-core 4.14 found nested controls in GraphiQL's tabs and Swagger UI's operations, an unnamed
  // server picker, and 52 elements under 4.5:1 contrast on /docs. The key is saved (the earlier test saved it).
  it("no page has a serious or critical accessibility violation (axe-core)", async () => {
    const found: Record<string, string[]> = {};
    for (const [path, ready] of [
      ["/", "#api-key"],
      ["/graphql", ".graphiql-tab-button"],
      ["/docs", ".opblock-summary-path"],
    ] as const) {
      const page = await open(path);
      await page.waitForSelector(ready, { timeout: 30_000 });
      found[path] = await seriousViolations(page);
      await page.close();
    }
    expect(found).toEqual({ "/": [], "/graphql": [], "/docs": [] });
  }, 90_000);

  it("nothing was asked of any other host, and no page had an error", () => {
    expect(outside).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
