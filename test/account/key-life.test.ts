/**
 * A key's life on "My API Keys" through `gateway.fetch`: an expiry chosen at
 * creation and changed later, the warning in a key's last 7 days, an expired
 * key's status and 401, a roll to a new secret with each overlap, and the
 * key's restrictions set on its page and held on every surface; only the
 * holder's own keys, bad choices refused with nothing changed, and audit
 * lines without a secret.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyStore } from "../../src/keys/store.js";
import { type AccountHarness, accountHarness, type Holder } from "../support/account.js";

let h: AccountHarness;
let dora: Holder;

beforeAll(async () => {
  h = await accountHarness({ maxKeys: 20, creationsPerHour: 100 });
  dora = await h.signIn("dora");
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const DAY = 86_400_000;
const call = (key: string) => h.fetch("/api/v1/universities", { headers: { authorization: `Bearer ${key}` } });
const newKey = (html: string) => /<code id="new-key">(uedu_\w+)<\/code>/.exec(html)?.[1];
/** The row of the key whose prefix is `prefix`, as the list renders it. */
const rowOf = (html: string, prefix: string) =>
  new RegExp(`<tr class="[^"]*" data-prefix="${prefix}">[\\s\\S]*?</tr>`).exec(html)?.[0] ?? "";

async function create(name: string, expires?: string): Promise<{ key: string; id: number; html: string }> {
  const answer = await dora.post("/account/keys", { csrf: dora.csrf, name, ...(expires ? { expires } : {}) });
  const html = await answer.text();
  expect(answer.status, html).toBe(201);
  const key = newKey(html)!;
  const id = (await h.keys.listOwned("dora")).find((k) => k.prefix === key.slice(0, 13))!.id;
  return { key, id, html };
}

describe("expiry", () => {
  it("chosen at creation: stored, shown, and never by default", async () => {
    const before = Date.now();
    const { id, key } = await create("quarterly", "90d");
    const expiresAt = (await h.keys.find(String(id))).expiresAt!.getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + 90 * DAY);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 90 * DAY);
    const plain = await create("forever");
    expect((await h.keys.find(String(plain.id))).expiresAt).toBeNull();
    const list = await (await dora.get("/account/keys")).text();
    expect(rowOf(list, key.slice(0, 13))).toContain(`<td class="expires"><time datetime="${new Date(expiresAt).toISOString()}">`);
    expect(rowOf(list, key.slice(0, 13))).not.toContain("expires in");
    expect(rowOf(list, plain.key.slice(0, 13))).toContain('<td class="expires">never</td>');
    expect(list).toContain('<select id="key-expires" name="expires">');
  });

  it("a key in its last 7 days is marked, and the page warns of it", async () => {
    const { key } = await create("weekly", "7d");
    const list = await (await dora.get("/account/keys")).text();
    expect(rowOf(list, key.slice(0, 13))).toMatch(/^<tr class="active warn"/);
    expect(rowOf(list, key.slice(0, 13))).toContain('<strong class="warn">expires in 7 days</strong>');
    expect(list).toMatch(/<div class="notice warning" id="expiring" role="status">One key expires within 7 days: “weekly”/);
  });

  it("an expired key shows as expired, and the API says it expired", async () => {
    // Set by a store whose clock is two days back: its expiry, yesterday, was in the future then.
    const past = new KeyStore(h.t.db, { now: () => Date.now() - 2 * DAY });
    const { id, key } = await past.createOwned("dora", "lapsed", 20, new Date(Date.now() - DAY));
    const list = await (await dora.get("/account/keys")).text();
    expect(rowOf(list, key.slice(0, 13))).toMatch(/<td class="status">expired <time/);
    const refused = await call(key);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toMatch(/^this API key expired at \d{4}-/);
    // A later expiry, set on its page, makes it work again.
    const set = await dora.post(`/account/keys/${id}/expiry`, { csrf: dora.csrf, expires: "30d" });
    expect(set.status).toBe(303);
    expect(set.headers.get("location")).toBe(`/account/keys/${id}?saved=expiry`);
    expect((await call(key)).status).toBe(200);
    const page = await (await dora.get(set.headers.get("location")!)).text();
    expect(page).toContain("The new expiry is saved.");
  });

  it("changed on the key's page; a bad choice, another's key or a missing token changes nothing", async () => {
    const { id } = await create("changed", "7d");
    const page = await dora.get(`/account/keys/${id}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Manage “changed”");
    expect(html).toContain(`<form method="post" action="/account/keys/${id}/expiry" id="set-expiry">`);
    const before = (await h.keys.find(String(id))).expiresAt;
    for (const [fields, status] of [
      [{ csrf: dora.csrf, expires: "2d" }, 400],
      [{ csrf: dora.csrf, expires: "constructor" }, 400],
      [{ csrf: dora.csrf }, 400],
      [{ expires: "never" }, 403],
    ] as const) {
      expect((await dora.post(`/account/keys/${id}/expiry`, fields)).status, JSON.stringify(fields)).toBe(status);
    }
    expect((await h.keys.find(String(id))).expiresAt).toEqual(before);
    const carols = await h.keys.create({ name: "carol's", owner: "carol", expiresAt: new Date(Date.now() + DAY) });
    expect((await dora.get(`/account/keys/${carols.id}`)).status).toBe(404);
    expect((await dora.post(`/account/keys/${carols.id}/expiry`, { csrf: dora.csrf, expires: "never" })).status).toBe(404);
    expect((await h.keys.find(String(carols.id))).expiresAt).not.toBeNull();
    expect((await dora.post(`/account/keys/${id}/expiry`, { csrf: dora.csrf, expires: "never" })).status).toBe(303);
    expect((await h.keys.find(String(id))).expiresAt).toBeNull();
  });

  it("a creation with a bad expiry is refused and creates nothing", async () => {
    const before = (await h.keys.listOwned("dora")).length;
    const refused = await dora.post("/account/keys", { csrf: dora.csrf, name: "bad", expires: "forever" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("Choose an expiry: never, 7d, 30d, 90d, 365d.");
    expect((await h.keys.listOwned("dora")).length).toBe(before);
  });
});

describe("roll", () => {
  it("with an overlap: the new secret shown once, both work until the overlap ends; the same key", async () => {
    const { id, key } = await create("rolled", "30d");
    const before = await h.keys.find(String(id));
    const rolled = await dora.post(`/account/keys/${id}/roll`, { csrf: dora.csrf, overlap: "24h" });
    expect(rolled.status).toBe(201);
    expect(rolled.headers.get("cache-control")).toBe("no-store");
    const html = await rolled.text();
    const fresh = newKey(html)!;
    expect(fresh).toMatch(/^uedu_[0-9A-Za-z]{40}$/);
    expect(html).toContain(`The new secret of your key “rolled”.</strong> The old one (<code>${key.slice(0, 13)}…</code>) works until`);
    expect(html).not.toContain(key);
    const after = await h.keys.find(String(id));
    expect(after).toMatchObject({ id, name: "rolled", owner: "dora", expiresAt: before.expiresAt, createdAt: before.createdAt });
    expect(after.prefix).toBe(fresh.slice(0, 13));
    expect(after.previousUntil!.getTime() - after.rolledAt!.getTime()).toBe(DAY);
    expect((await call(fresh)).status).toBe(200);
    expect((await call(key)).status).toBe(200);
    const page = await (await dora.get(`/account/keys/${id}`)).text();
    expect(page).toMatch(/<dt>Rolled<\/dt><dd><time [^>]+>[^<]+<\/time>; the old secret works until <time/);
  });

  it("with none: the old secret is refused at once as replaced", async () => {
    const { id, key } = await create("leaked");
    expect((await call(key)).status).toBe(200); // cached as valid
    const rolled = await dora.post(`/account/keys/${id}/roll`, { csrf: dora.csrf, overlap: "none" });
    expect(rolled.status).toBe(201);
    const html = await rolled.text();
    expect(html).toContain("stopped working now");
    const refused = await call(key);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toContain("was replaced by a new one (rolled)");
    expect((await call(newKey(html)!)).status).toBe(200);
  });

  it("a bad overlap, another's key, a missing token or a GET roll nothing", async () => {
    const { id, key } = await create("kept");
    for (const [fields, status] of [
      [{ csrf: dora.csrf, overlap: "2h" }, 400],
      [{ csrf: dora.csrf }, 400],
      [{ overlap: "none" }, 403],
      [{ csrf: "wrong", overlap: "none" }, 403],
    ] as const) {
      expect((await dora.post(`/account/keys/${id}/roll`, fields)).status, JSON.stringify(fields)).toBe(status);
    }
    const get = await dora.get(`/account/keys/${id}/roll`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const carols = await h.keys.create({ name: "carol's", owner: "carol" });
    expect((await dora.post(`/account/keys/${carols.id}/roll`, { csrf: dora.csrf, overlap: "none" })).status).toBe(404);
    for (const k of [key, carols.key]) expect((await call(k)).status).toBe(200);
    expect((await h.keys.find(String(id))).rolledAt).toBeNull();
    expect((await h.keys.find(String(carols.id))).rolledAt).toBeNull();
  });

  it("a revoked key has no page and is not rolled", async () => {
    const { id } = await create("gone");
    await h.keys.revokeOwned("dora", id);
    expect((await dora.get(`/account/keys/${id}`)).status).toBe(303);
    const refused = await dora.post(`/account/keys/${id}/roll`, { csrf: dora.csrf, overlap: "none" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("is revoked: it cannot be rolled");
  });

  it("rolls and expiry changes are audit lines with prefixes, never a secret", async () => {
    h.logs.length = 0;
    const { id, key } = await create("audited");
    await dora.post(`/account/keys/${id}/expiry`, { csrf: dora.csrf, expires: "7d" });
    const fresh = newKey(await (await dora.post(`/account/keys/${id}/roll`, { csrf: dora.csrf, overlap: "1h" })).text())!;
    const lines = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.audit);
    expect(lines.map((l) => [l.audit, l.account, l.keyId, l.prefix])).toEqual([
      ["key.created", "dora", id, key.slice(0, 13)],
      ["key.expiry_set", "dora", id, key.slice(0, 13)],
      ["key.rolled", "dora", id, fresh.slice(0, 13)],
    ]);
    expect(lines[2]!.previousPrefix).toBe(key.slice(0, 13));
    expect(Date.parse(String(lines[2]!.previousUntil)) - Date.now()).toBeGreaterThan(59 * 60_000);
    const all = h.logs.join("\n");
    for (const secret of [key.slice(13), fresh.slice(13), dora.cookie, dora.csrf]) expect(all).not.toContain(secret);
  });
});

describe("restrictions", () => {
  const form = (fields: Record<string, string | readonly string[]>) => {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v);
    return body;
  };
  const post = (id: number, fields: Record<string, string | readonly string[]>) =>
    h.fetch(`/account/keys/${id}/restrictions`, {
      method: "POST",
      headers: {
        cookie: `uedu_session=${dora.cookie}`,
        "content-type": "application/x-www-form-urlencoded",
        origin: "http://gateway.test",
      },
      body: form({ csrf: dora.csrf, ...fields }).toString(),
    });

  it("set on the key's page: held on every surface at once, shown in the list, an audit line", async () => {
    const { id, key } = await create("web page");
    const page = await (await dora.get(`/account/keys/${id}`)).text();
    expect(page).toContain(`<form method="post" action="/account/keys/${id}/restrictions" id="restrict-key" class="restrictions">`);
    h.logs.length = 0;
    const saved = await post(id, {
      origins: "https://app.example.org\r\nhttps://*.example.net",
      addresses: "",
      surfaces: ["rest", "graphql"],
      documents_only: "",
      visitor_per_minute: "10",
      visitor_per_day: "",
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(`/account/keys/${id}?saved=restrictions`);
    expect((await h.keys.find(String(id))).restrictions).toEqual({
      origins: ["https://app.example.org", "https://*.example.net"],
      addresses: null,
      surfaces: ["rest", "graphql"],
      documentsOnly: false,
      visitorPerMinute: 10,
      visitorPerDay: null,
    });
    const api = (headers: Record<string, string>, path = "/api/v1/universities") =>
      h.fetch(path, { headers: { authorization: `Bearer ${key}`, ...headers } });
    expect((await api({ origin: "https://app.example.org" })).status).toBe(200);
    expect((await api({ origin: "https://shop.example.net" })).status).toBe(200);
    expect((await api({ origin: "https://copier.test" })).status).toBe(403);
    expect((await api({})).status).toBe(403);
    const mcp = await h.fetch("/mcp", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.status).toBe(403);
    const list = await (await dora.get("/account/keys")).text();
    expect(rowOf(list, key.slice(0, 13))).toContain(
      "Restricted: pages on https://app.example.org, https://*.example.net; REST and GraphQL only; 10 a minute per visitor",
    );
    const shown = await (await dora.get(saved.headers.get("location")!)).text();
    expect(shown).toContain("The restrictions are saved");
    expect(shown).toContain(">https://app.example.org\nhttps://*.example.net</textarea>");
    const audit = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.audit === "key.restrictions_set");
    expect(audit).toMatchObject({ account: "dora", keyId: id, prefix: key.slice(0, 13), restrictions: { visitorPerMinute: 10 } });
    expect(h.logs.join("\n")).not.toContain(key.slice(13));
  });

  it("a bad origin, range or limit, or no surface at all, is a 400 that says why, and nothing changes", async () => {
    const { id } = await create("kept open");
    for (const [fields, words] of [
      [{ origins: "app.example.org", surfaces: ["rest"] }, "an origin is a scheme and host"],
      [{ addresses: "10.0.0.0/99", surfaces: ["rest"] }, "an address range is an IP address or a CIDR range"],
      [{ visitor_per_minute: "0", surfaces: ["rest"] }, "a limit per visitor is a positive whole number"],
      [{ origins: "https://app.example.org" }, "choose at least one surface"],
    ] as const) {
      const refused = await post(id, fields);
      expect(refused.status, words).toBe(400);
      expect(await refused.text()).toContain(`Nothing was changed: ${words}`);
    }
    expect((await h.keys.find(String(id))).restrictions).toEqual({
      origins: null,
      addresses: null,
      surfaces: null,
      documentsOnly: false,
      visitorPerMinute: null,
      visitorPerDay: null,
    });
    const carols = await h.keys.create({ name: "carol's", owner: "carol" });
    expect((await post(carols.id, { origins: "https://app.example.org", surfaces: ["rest"] })).status).toBe(404);
    expect((await h.keys.find(String(carols.id))).restrictions.origins).toBeNull();
  });
});
