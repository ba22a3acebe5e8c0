/**
 * My API Keys shows each of the holder's keys' requests per day for the last
 * 30 days (a server-rendered SVG chart) and the deprecated coordinates it
 * used, from what the gateway recorded (src/usage/), and nothing of another
 * holder's keys.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USAGE_DAYS } from "../../src/account/pages.js";
import { serviceDeprecations } from "../../src/usage/deprecated.js";
import { daysBefore, keyUsages } from "../../src/usage/report.js";
import { type AccountHarness, accountHarness } from "../support/account.js";
import { putUsage } from "../support/usage.js";

let h: AccountHarness;
let failing = false;
const ids: Record<"alice" | "bob", { id: number; prefix: string }> = {} as never;
const today = daysBefore(new Date(), 0);
const yesterday = daysBefore(new Date(), 1);

beforeAll(async () => {
  h = await accountHarness({
    usage: (keyIds) =>
      failing
        ? Promise.reject(new Error("connect ECONNREFUSED"))
        : keyUsages(h.t.db, keyIds, { days: USAGE_DAYS, today: new Date(), deprecated: serviceDeprecations() }),
  });
  for (const owner of ["alice", "bob"] as const) {
    const made = await h.keys.createOwned(owner, `${owner}'s app`, 5);
    ids[owner] = { id: made.id, prefix: made.prefix };
  }
  const now = new Date().toISOString();
  const [alice, bob] = [ids.alice.id, ids.bob.id];
  await putUsage(h.t.db, [
    { day: today, keyId: alice, coordinate: "/graphql", requests: 12, lastAt: now },
    { day: today, keyId: alice, coordinate: "/api/v1/courses", requests: 3, lastAt: now },
    { day: today, keyId: alice, coordinate: "/api/v1/courses?q", requests: 3, lastAt: now },
    { day: yesterday, keyId: alice, coordinate: "/mcp (modern)", requests: 5, lastAt: now },
    { day: yesterday, keyId: alice, coordinate: "MCP list_courses", requests: 5, lastAt: now },
    { day: today, keyId: bob, coordinate: "/graphql", requests: 777, lastAt: now },
    { day: today, keyId: bob, coordinate: "EnvironmentDay.dateTaipei", requests: 700, lastAt: `${today}T09:30:00.000Z` },
    { day: today, keyId: bob, coordinate: "Query.papers", requests: 777, lastAt: now },
  ]);
}, 60_000);
afterAll(() => h?.close());

describe("a key's usage on My API Keys", () => {
  it("shows the holder's key's requests per day as an SVG chart with its total, and nothing of another holder's keys", async () => {
    const alice = await h.signIn("alice");
    const page = await (await alice.get("/account/keys")).text();
    const chart = /<svg class="usage" role="img" aria-label="([^"]+)"[^>]*>(.*?)<\/svg>/s.exec(page);
    expect(chart?.[1]).toBe("20 requests in the last 30 days (UTC), at most 15 a day");
    expect([...chart![2]!.matchAll(/<title>([^<]+)<\/title>/g)].map((m) => m[1]).slice(-2)).toEqual([`${yesterday}: 5`, `${today}: 15`]);
    expect(chart![2]!.match(/<rect /g)).toHaveLength(30);
    expect(chart![0]).not.toMatch(/<script|on\w+=/);
    expect(page).not.toContain(ids.bob.prefix);
    expect(page).not.toContain("777");
    expect(page).not.toContain("dateTaipei");
  });

  it("says which deprecated coordinates the key used, with what replaces each", async () => {
    const bob = await h.signIn("bob");
    const page = await (await bob.get("/account/keys")).text();
    const row = /<tr class="deprecated-uses" data-prefix="([^"]+)">(.*?)<\/tr>/s.exec(page);
    expect(row?.[1]).toBe(ids.bob.prefix);
    expect(row?.[2]).toContain(
      `<code>EnvironmentDay.dateTaipei</code>: Use dateLocal. 700 requests, last <time datetime="${today}T09:30:00.000Z">`,
    );
    expect(page).toContain('aria-label="777 requests in the last 30 days (UTC), at most 777 a day"');
    expect(page).not.toContain(ids.alice.prefix);
  });

  it("a usage that cannot be read now is shown as unknown, and the page still answers", async () => {
    failing = true;
    try {
      const alice = await h.signIn("alice");
      const answer = await alice.get("/account/keys");
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('<td class="usage"><span class="muted">unknown</span></td>');
      expect(h.logs.some((line) => line.includes("reading the keys' usage failed"))).toBe(true);
    } finally {
      failing = false;
    }
  });
});
