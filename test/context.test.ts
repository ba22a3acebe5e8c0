/**
 * How long an answer stays true is counted from when it is stored, not from
 * when its request began: an environment answer that took long to compute
 * must not be kept past the instant it stops being true (a loaded machine
 * once served one from the cache after that instant).
 */
import { expect, it } from "vitest";
import { createContext } from "../src/context.js";
import type { ReadClient } from "../src/db/client.js";

it("validForMs is the validity left at the request's instant, less the time spent since", async () => {
  const now = new Date("2026-11-19T18:59:59.000Z");
  const context = createContext({} as ReadClient, now);
  const created = performance.now();
  expect(context.validForMs()).toBe(Number.POSITIVE_INFINITY);
  context.validity.until = now.getTime() + 1_000;
  expect(context.validForMs()).toBeLessThanOrEqual(1_000);
  expect(context.validForMs()).toBeGreaterThan(900);
  await new Promise((resolve) => setTimeout(resolve, 300));
  // At least the time measured since the context was made is spent (a timer may fire a fraction of a millisecond early).
  const spent = performance.now() - created;
  expect(spent).toBeGreaterThan(250);
  expect(context.validForMs()).toBeLessThanOrEqual(1_000 - spent);
});

it("a request's loaders are made once, when first asked for, and are the same loaders after", () => {
  const context = createContext({} as ReadClient, new Date("2026-11-19T18:59:59.000Z"));
  const loaders = context.loaders;
  expect(loaders.snapshot).toBeDefined();
  // One set per request: a second set would split the request's batches (one query per kind of lookup).
  expect(context.loaders).toBe(loaders);
  expect(createContext({} as ReadClient).loaders).not.toBe(loaders);
});
