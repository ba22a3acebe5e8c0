/**
 * Per-key limits in memory (src/limits/rate-limits.ts) and their headers
 * (src/limits/headers.ts): clock-aligned windows, exact bursts, refusals
 * that use no quota, per-key overrides, the day window.
 */
import { describe, expect, it } from "vitest";
import { limitHeaders } from "../../src/limits/headers.js";
import { type Decision, RateLimits } from "../../src/limits/rate-limits.js";
import { windowAt } from "../../src/limits/windows.js";

const DEFAULTS = { perMinute: 60, perDay: 10_000 };
const NONE = { perMinute: null, perDay: null };
const at = (iso: string) => Date.parse(iso);

/** A limiter on a clock the test moves. */
function limiter(start: string, defaults = DEFAULTS) {
  const clock = { now: at(start) };
  const limits = new RateLimits({ defaults, now: () => clock.now });
  return { limits, clock };
}

const remaining = (d: Decision) => Object.fromEntries(d.windows.map((w) => [w.name, w.remaining]));

describe("windows", () => {
  it("are aligned to the clock minute and the UTC day", () => {
    expect(windowAt("minute", at("2026-11-20T12:00:59.999Z"))).toEqual({
      index: Math.floor(at("2026-11-20T12:00:00Z") / 60_000),
      resetsAt: at("2026-11-20T12:01:00Z"),
    });
    expect(windowAt("minute", at("2026-11-20T12:01:00.000Z")).resetsAt).toBe(at("2026-11-20T12:02:00Z"));
    expect(windowAt("day", at("2026-11-20T23:59:59.999Z")).resetsAt).toBe(at("2026-11-21T00:00:00Z"));
    expect(windowAt("day", at("2026-11-21T00:00:00.000Z")).resetsAt).toBe(at("2026-11-22T00:00:00Z"));
  });

  it("a request at 12:00:59.9 and one at 12:01:00.0 fall in different minutes", async () => {
    const { limits, clock } = limiter("2026-11-20T12:00:59.900Z");
    const own = { perMinute: 1, perDay: null };
    const first = await limits.take(1, own);
    expect(first.allowed).toBe(true);
    expect(first.windows[0]).toEqual({ name: "minute", limit: 1, remaining: 0, resetsAt: at("2026-11-20T12:01:00Z") });
    clock.now = at("2026-11-20T12:00:59.999Z");
    const refused = await limits.take(1, own);
    expect(refused).toMatchObject({ allowed: false, refusedBy: "minute", retryAfterSeconds: 1 });

    clock.now = at("2026-11-20T12:01:00.000Z");
    const second = await limits.take(1, own);
    expect(second.allowed).toBe(true);
    expect(second.windows).toEqual([
      { name: "minute", limit: 1, remaining: 0, resetsAt: at("2026-11-20T12:02:00Z") },
      { name: "day", limit: 10_000, remaining: 9_998, resetsAt: at("2026-11-21T00:00:00Z") },
    ]);
    clock.now = at("2026-11-20T12:01:30.000Z");
    expect(await limits.take(1, own)).toMatchObject({ allowed: false, refusedBy: "minute", retryAfterSeconds: 30 });
  });

  it("the day resets at 00:00 UTC", async () => {
    const { limits, clock } = limiter("2026-11-20T23:59:58.000Z");
    const own = { perMinute: null, perDay: 2 };
    expect((await limits.take(2, own)).allowed).toBe(true);
    clock.now = at("2026-11-20T23:59:59.999Z");
    expect(remaining(await limits.take(2, own))).toEqual({ minute: 58, day: 0 });
    const refused = await limits.take(2, own);
    // One millisecond before midnight: retry in 1 s (never 0).
    expect(refused).toMatchObject({ allowed: false, refusedBy: "day", retryAfterSeconds: 1 });

    clock.now = at("2026-11-21T00:00:00.000Z");
    const next = await limits.take(2, own);
    expect(next.allowed).toBe(true);
    expect(next.windows[1]).toEqual({ name: "day", limit: 2, remaining: 1, resetsAt: at("2026-11-22T00:00:00Z") });
  });

  it("keys have separate counters", async () => {
    const { limits } = limiter("2026-11-20T12:00:00Z");
    const own = { perMinute: 1, perDay: null };
    expect((await limits.take(10, own)).allowed).toBe(true);
    expect((await limits.take(11, own)).allowed).toBe(true);
    expect((await limits.take(10, own)).allowed).toBe(false);
  });
});

describe("counting", () => {
  it("exactly N of a concurrent burst succeed", async () => {
    const { limits } = limiter("2026-11-20T12:00:10Z");
    const decisions = await Promise.all(Array.from({ length: 250 }, () => limits.take(3, NONE)));
    const allowed = decisions.filter((d) => d.allowed);
    expect(allowed).toHaveLength(60);
    expect(decisions.filter((d) => !d.allowed && d.refusedBy === "minute")).toHaveLength(190);
    // Each success saw a distinct remaining count: 59 down to 0.
    expect(allowed.map((d) => d.windows[0]!.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    // Refusals gave their points back: the day counted only the 60.
    const later = await limits.take(3, { perMinute: 61, perDay: null });
    expect(remaining(later)).toEqual({ minute: 0, day: 10_000 - 61 });
  });

  it("a refused request uses no quota", async () => {
    const { limits } = limiter("2026-11-20T12:00:10Z");
    const own = { perMinute: 3, perDay: 100 };
    for (let i = 0; i < 3; i++) expect((await limits.take(4, own)).allowed).toBe(true);
    for (let i = 0; i < 5; i++) {
      const refused = await limits.take(4, own);
      expect(refused).toMatchObject({ allowed: false, refusedBy: "minute", retryAfterSeconds: 50 });
      expect(refused.windows).toEqual([{ name: "minute", limit: 3, remaining: 0, resetsAt: at("2026-11-20T12:01:00Z") }]);
    }
    // With a higher limit, the count continues from the 3 admitted, not from 8.
    const next = await limits.take(4, { perMinute: 5, perDay: 100 });
    expect(next.allowed).toBe(true);
    expect(remaining(next)).toEqual({ minute: 1, day: 96 });
  });

  it("a key's own limits win over the defaults (either way)", async () => {
    const { limits } = limiter("2026-11-20T12:00:10Z");
    const low = { perMinute: 2, perDay: null };
    const first = await limits.take(5, low);
    expect(first.limits).toEqual({ minute: 2, day: 10_000 });
    expect((await limits.take(5, low)).allowed).toBe(true);
    expect(await limits.take(5, low)).toMatchObject({ allowed: false, refusedBy: "minute" });

    const high = { perMinute: 100, perDay: 20_000 };
    const decisions = [];
    for (let i = 0; i < 80; i++) decisions.push(await limits.take(6, high));
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(decisions[79]!.limits).toEqual({ minute: 100, day: 20_000 });
    expect(remaining(decisions[79]!)).toEqual({ minute: 20, day: 19_920 });

    // Without own limits, the defaults apply.
    const plain = await limits.take(7, NONE);
    expect(plain.limits).toEqual({ minute: 60, day: 10_000 });
  });

  it("the day limit: with perDay 5 the 6th is refused by the day, and the minute point is given back", async () => {
    const { limits } = limiter("2026-11-20T12:00:10Z");
    const own = { perMinute: 10, perDay: 5 };
    for (let i = 1; i <= 5; i++) {
      const d = await limits.take(8, own);
      expect(d.allowed).toBe(true);
      expect(remaining(d)).toEqual({ minute: 10 - i, day: 5 - i });
    }
    const sixth = await limits.take(8, own);
    expect(sixth).toMatchObject({ allowed: false, refusedBy: "day", retryAfterSeconds: 43_190 });
    expect(sixth.windows.map((w) => w.name)).toEqual(["minute", "day"]);
    expect(sixth.windows[0]).toMatchObject({ name: "minute", limit: 10, resetsAt: at("2026-11-20T12:01:00Z") });
    expect(sixth.windows[1]).toEqual({ name: "day", limit: 5, remaining: 0, resetsAt: at("2026-11-21T00:00:00Z") });
    expect((await limits.take(8, own)).allowed).toBe(false);
    // Both refusals gave their minute and day points back.
    const raised = await limits.take(8, { perMinute: 10, perDay: 50 });
    expect(raised.allowed).toBe(true);
    expect(remaining(raised)).toEqual({ minute: 4, day: 44 });
  });

  it("a day refusal reports the minute as it is after the point is given back", async () => {
    const { limits } = limiter("2026-11-20T12:00:10Z");
    const own = { perMinute: 10, perDay: 5 };
    for (let i = 0; i < 5; i++) await limits.take(9, own);
    const sixth = await limits.take(9, own);
    expect(sixth.allowed).toBe(false);
    // 5 requests were admitted this minute and the refused one used nothing: 5 remain.
    expect(sixth.windows[0]).toEqual({ name: "minute", limit: 10, remaining: 5, resetsAt: at("2026-11-20T12:01:00Z") });
  });
});

describe("limitHeaders", () => {
  it("an admitted request: policy, current state, and the tightest window", async () => {
    const now = at("2026-11-20T12:00:30Z");
    const { limits } = limiter("2026-11-20T12:00:30Z");
    const headers = limitHeaders(await limits.take(20, NONE), now);
    expect(headers).toEqual({
      "ratelimit-policy": '"minute";q=60;w=60, "day";q=10000;w=86400',
      ratelimit: '"minute";r=59;t=30, "day";r=9999;t=43170',
      "x-ratelimit-limit": "60",
      "x-ratelimit-remaining": "59",
      "x-ratelimit-reset": String(at("2026-11-20T12:01:00Z") / 1000),
    });
  });

  it("X-RateLimit-* follow the day when the day is closer to running out", async () => {
    const now = at("2026-11-20T12:00:30Z");
    const { limits } = limiter("2026-11-20T12:00:30Z");
    const headers = limitHeaders(await limits.take(21, { perMinute: null, perDay: 5 }), now);
    expect(headers).toEqual({
      "ratelimit-policy": '"minute";q=60;w=60, "day";q=5;w=86400',
      ratelimit: '"minute";r=59;t=30, "day";r=4;t=43170',
      "x-ratelimit-limit": "5",
      "x-ratelimit-remaining": "4",
      "x-ratelimit-reset": String(at("2026-11-21T00:00:00Z") / 1000),
    });
  });

  it("a refusal carries Retry-After in whole seconds, at least 1", async () => {
    const { limits, clock } = limiter("2026-11-20T12:00:29.400Z");
    const own = { perMinute: 1, perDay: null };
    await limits.take(22, own);
    const refused = await limits.take(22, own);
    const headers = limitHeaders(refused, clock.now);
    expect(headers).toEqual({
      "ratelimit-policy": '"minute";q=1;w=60, "day";q=10000;w=86400',
      ratelimit: '"minute";r=0;t=31',
      "x-ratelimit-limit": "1",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(at("2026-11-20T12:01:00Z") / 1000),
      "retry-after": "31",
    });

    clock.now = at("2026-11-20T12:00:59.950Z");
    const last = await limits.take(22, own);
    expect(last.allowed).toBe(false);
    const lastHeaders = limitHeaders(last, clock.now);
    expect(lastHeaders["retry-after"]).toBe("1");
    expect(lastHeaders.ratelimit).toBe('"minute";r=0;t=1');
  });

  it("a day refusal: Retry-After to midnight UTC", async () => {
    const { limits, clock } = limiter("2026-11-20T23:00:00.500Z");
    const own = { perMinute: null, perDay: 1 };
    await limits.take(23, own);
    const headers = limitHeaders(await limits.take(23, own), clock.now);
    expect(headers["retry-after"]).toBe("3600");
    expect(headers["x-ratelimit-limit"]).toBe("1");
    expect(headers["x-ratelimit-remaining"]).toBe("0");
    expect(headers["x-ratelimit-reset"]).toBe(String(at("2026-11-21T00:00:00Z") / 1000));
    expect(headers.ratelimit).toMatch(/^"minute";r=\d+;t=60, "day";r=0;t=3600$/);
  });
});
