/**
 * "My API Keys" through `gateway.fetch`: sign-in links, the list, creation,
 * revocation, isolation between accounts, the limits on keys, and the
 * hostile cases (CSRF, forged cookies, open redirects, what reaches the logs).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "../../src/account/plugin.js";
import { SESSION_MS } from "../../src/account/sessions.js";
import { type AccountHarness, accountHarness, BASE, csrfOf, type Holder, setCookie } from "../support/account.js";

let h: AccountHarness;

beforeAll(async () => {
  h = await accountHarness({ maxKeys: 3, creationsPerHour: 6 });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const form = { "content-type": "application/x-www-form-urlencoded", origin: BASE };
const call = (key: string) => h.fetch("/api/v1/universities", { headers: { authorization: `Bearer ${key}` } });
const activeKeysOf = async (owner: string) => (await h.keys.listOwned(owner)).filter((k) => !k.revokedAt).length;
/** The key shown once on a creation's page. */
const newKey = (html: string) => /<code id="new-key">(uedu_\w+)<\/code>/.exec(html)?.[1];

describe("sign-in links", () => {
  it("a valid link shows whom it signs in as, and does not use itself up on GET", async () => {
    const token = await h.link("alice");
    for (let i = 0; i < 2; i++) {
      const shown = await h.fetch(`/account/sign-in?token=${token}`);
      expect(shown.status).toBe(200);
      expect(shown.headers.get("cache-control")).toBe("no-store");
      const text = await shown.text();
      expect(text).toContain("signs you in as <strong>alice</strong>");
      expect(text).toContain('id="use-link"');
    }
  });

  it("works once: the POST signs in (303 to the keys), the replay is refused with a clear page", async () => {
    const token = await h.link("alice");
    const body = new URLSearchParams({ token }).toString();
    const first = await h.fetch("/account/sign-in", { method: "POST", headers: form, body });
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/account/keys");
    expect(setCookie(first, SESSION_COOKIE)).toBeTruthy();

    const again = await h.fetch("/account/sign-in", { method: "POST", headers: form, body });
    expect(again.status).toBe(410);
    expect(setCookie(again, SESSION_COOKIE)).toBeUndefined();
    expect(await again.text()).toContain("This sign-in link has been used already");
    const shown = await h.fetch(`/account/sign-in?token=${token}`);
    expect(shown.status).toBe(410);
    expect(await shown.text()).toContain("has been used already");
  });

  it("an expired link is refused, on GET and on POST", async () => {
    const token = await h.link("alice", 15);
    h.clock.now += 15 * 60_000 + 1;
    try {
      const shown = await h.fetch(`/account/sign-in?token=${token}`);
      expect(shown.status).toBe(410);
      expect(await shown.text()).toContain("This sign-in link has expired");
      const used = await h.fetch("/account/sign-in", { method: "POST", headers: form, body: `token=${token}` });
      expect(used.status).toBe(410);
      expect(setCookie(used, SESSION_COOKIE)).toBeUndefined();
    } finally {
      h.clock.now -= 15 * 60_000 + 1;
    }
  });

  it("an unknown or malformed token is refused without a session", async () => {
    for (const token of ["A".repeat(43), "short", "x".repeat(5_000), "%00"]) {
      const shown = await h.fetch(`/account/sign-in?token=${encodeURIComponent(token)}`);
      expect(shown.status).toBe(404);
      expect(await shown.text()).toContain("This sign-in link is not valid");
      const used = await h.fetch("/account/sign-in", { method: "POST", headers: form, body: new URLSearchParams({ token }).toString() });
      expect(used.status === 404 || used.status === 413).toBe(true);
      expect(setCookie(used, SESSION_COOKIE)).toBeUndefined();
    }
  });

  it("the session cookie is HttpOnly, SameSite=Lax, for /account only, at most 12 hours, not Secure over http", async () => {
    const token = await h.link("flags");
    const signedIn = await h.fetch("/account/sign-in", { method: "POST", headers: form, body: `token=${token}` });
    const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
    const attributes = cookie.split(/;\s*/).slice(1);
    expect(attributes).toContain("HttpOnly");
    expect(attributes).toContain("SameSite=Lax");
    expect(attributes).toContain("Path=/account");
    const maxAge = Number(attributes.find((a) => a.startsWith("Max-Age="))!.slice(8));
    expect(maxAge).toBeGreaterThan(SESSION_MS / 1000 - 60);
    expect(maxAge).toBeLessThanOrEqual(12 * 3600);
    expect(attributes).not.toContain("Secure");
  });

  it("the session ends after 12 hours", async () => {
    const holder = await h.signIn("late");
    h.clock.now += SESSION_MS + 1;
    try {
      const page = await holder.get("/account/keys");
      expect(page.status).toBe(303);
      expect(page.headers.get("location")).toBe("/account/sign-in?next=%2Faccount%2Fkeys");
    } finally {
      h.clock.now -= SESSION_MS + 1;
    }
  });
});

describe("the page", () => {
  let bob: Holder;
  beforeAll(async () => {
    bob = await h.signIn("bob");
  });

  it("asks for sign-in without a session, and is linked from the landing page", async () => {
    const page = await h.fetch("/account/keys");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/account/sign-in?next=%2Faccount%2Fkeys");
    const signIn = await h.fetch("/account/sign-in?next=%2Faccount%2Fkeys");
    expect(await signIn.text()).toContain("npm run keys -- sign-in-link --owner NAME");
    expect(await (await h.fetch("/")).text()).toContain('href="/account/keys"');
  });

  it("lists the holder's keys, the ones an operator made with --owner included, and no one else's", async () => {
    const operators = await h.keys.create({ name: "made by the operator", owner: "bob", perDay: 500 });
    const others = await h.keys.create({ name: "carol's", owner: "carol" });
    for (let i = 0; i < 3; i++) expect((await call(operators.key)).status).toBe(200);
    const page = await bob.get("/account/keys");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<h1>My API Keys</h1>");
    const row = new RegExp(`<tr class="active" data-prefix="${operators.prefix}">([\\s\\S]*?)</tr>`).exec(html)?.[1];
    expect(row).toContain("made by the operator");
    expect(row).toContain(`<code>${operators.prefix}…</code>`);
    expect(row).toContain('<td>60 <span class="muted">(default)</span></td>');
    expect(row).toContain("<td>500</td>");
    expect(row).toContain('<td class="today">3 of 500</td>');
    expect(row).toContain('<td class="status">active</td>');
    expect(row).toMatch(/<td><time datetime="\d{4}-/); // created
    expect(html).not.toContain(others.prefix);
    expect(html).not.toContain(operators.key);
  });

  it("creates a key shown once, which the API takes at once; the list then shows only its prefix", async () => {
    const before = await activeKeysOf("bob");
    const created = await bob.post("/account/keys", { csrf: bob.csrf, name: "dashboard" });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const html = await created.text();
    expect(html).toContain("it cannot be shown again");
    expect(html).toContain('id="copy-key"');
    const key = newKey(html)!;
    expect(key).toMatch(/^uedu_[0-9A-Za-z]{40}$/);
    expect(await activeKeysOf("bob")).toBe(before + 1);
    expect((await call(key)).status).toBe(200);

    const listed = await (await bob.get("/account/keys")).text();
    expect(listed).toContain(`<code>${key.slice(0, 13)}…</code>`);
    expect(listed).not.toContain(key);
    expect(listed).toContain("dashboard");
  });

  it("revokes after a confirmation: the key is refused at once", async () => {
    const key = newKey(await (await bob.post("/account/keys", { csrf: bob.csrf, name: "to revoke" })).text())!;
    expect((await call(key)).status).toBe(200); // now cached as valid
    const id = (await h.keys.listOwned("bob")).find((k) => k.prefix === key.slice(0, 13))!.id;
    const confirm = await bob.get(`/account/keys/${id}/revoke`);
    expect(confirm.status).toBe(200);
    const page = await confirm.text();
    expect(page).toContain("Revoke “to revoke”?");
    expect(csrfOf(page)).toBe(bob.csrf);
    const revoked = await bob.post(`/account/keys/${id}/revoke`, { csrf: bob.csrf });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("location")).toBe(`/account/keys?revoked=${key.slice(0, 13)}`);
    const refused = await call(key);
    expect(refused.status).toBe(401);
    const listed = await (await bob.get(revoked.headers.get("location")!)).text();
    expect(listed).toContain(`The key ${key.slice(0, 13)}… is revoked.`);
    expect(listed).toMatch(new RegExp(`<tr class="revoked" data-prefix="${key.slice(0, 13)}">[\\s\\S]*?revoked <time`));
  });

  it("another account's key answers 404 and stays valid", async () => {
    const carols = await h.keys.create({ name: "carol's own", owner: "carol" });
    expect((await bob.get(`/account/keys/${carols.id}/revoke`)).status).toBe(404);
    expect((await bob.post(`/account/keys/${carols.id}/revoke`, { csrf: bob.csrf })).status).toBe(404);
    expect((await bob.get("/account/keys/999999/revoke")).status).toBe(404);
    expect((await call(carols.key)).status).toBe(200);
    expect((await h.keys.find(String(carols.id))).revokedAt).toBeNull();
  });

  it("refuses a name that is empty, too long or holds control characters (400), creating nothing", async () => {
    const before = (await h.keys.listOwned("bob")).length;
    for (const name of ["", "   ", "x".repeat(101), "tab\there", "bell\u0007", "rtl\u202Eoverride"]) {
      const refused = await bob.post("/account/keys", { csrf: bob.csrf, name });
      expect(refused.status, JSON.stringify(name)).toBe(400);
      expect(await refused.text()).toContain("Give the key a name of 1 to 100 printable characters.");
    }
    expect((await h.keys.listOwned("bob")).length).toBe(before);
  });
});

describe("limits on keys", () => {
  it("holds at most maxKeys active keys (409); a revocation makes room", async () => {
    const dave = await h.signIn("dave");
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await dave.post("/account/keys", { csrf: dave.csrf, name: `k${i}` });
      expect(created.status).toBe(201);
      made.push(newKey(await created.text())!);
    }
    const page = await (await dave.get("/account/keys")).text();
    expect(page).toContain("You hold 3 active keys, the most an account may hold.");
    const refused = await dave.post("/account/keys", { csrf: dave.csrf, name: "one more" });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("an account may hold at most 3 active keys: revoke one first");
    expect(await activeKeysOf("dave")).toBe(3);

    const first = (await h.keys.listOwned("dave")).find((k) => k.prefix === made[0]!.slice(0, 13))!;
    expect((await dave.post(`/account/keys/${first.id}/revoke`, { csrf: dave.csrf })).status).toBe(303);
    expect((await dave.post("/account/keys", { csrf: dave.csrf, name: "replacement" })).status).toBe(201);
  });

  it("concurrent creations cannot pass the bound", async () => {
    const erin = await h.signIn("erin");
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => erin.post("/account/keys", { csrf: erin.csrf, name: `c${i}` })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(2);
    expect(await activeKeysOf("erin")).toBe(3);
  });

  it("creation is rate-limited per account (429 with Retry-After), whatever was revoked", async () => {
    const fay = await h.signIn("fay");
    let created = 0;
    for (let i = 0; i < 6; i++) {
      const answer = await fay.post("/account/keys", { csrf: fay.csrf, name: `r${i}` });
      expect(answer.status).toBe(201);
      created++;
      const id = (await h.keys.listOwned("fay"))[0]!.id;
      expect((await fay.post(`/account/keys/${id}/revoke`, { csrf: fay.csrf })).status).toBe(303);
    }
    const refused = await fay.post("/account/keys", { csrf: fay.csrf, name: "seventh" });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.text()).toContain("Too many keys created: at most 6 an hour.");
    expect((await h.keys.listOwned("fay")).length).toBe(created);
  });
});

describe("hostile requests", () => {
  let gil: Holder;
  beforeAll(async () => {
    gil = await h.signIn("gil");
  });

  it("a changing request without the CSRF token, with a wrong one, or another session's, is 403 and changes nothing", async () => {
    const other = await h.signIn("other");
    const before = (await h.keys.listOwned("gil")).length;
    const attempts: Record<string, string>[] = [
      { name: "x" },
      { name: "x", csrf: "" },
      { name: "x", csrf: "forged" },
      { name: "x", csrf: other.csrf },
    ];
    for (const fields of attempts) {
      const refused = await gil.post("/account/keys", fields);
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain("missing its security token");
    }
    const key = await h.keys.create({ name: "gil's", owner: "gil" });
    expect((await gil.post(`/account/keys/${key.id}/revoke`, { csrf: "forged" })).status).toBe(403);
    expect((await gil.post("/account/sign-out", {})).status).toBe(403);
    expect((await h.keys.listOwned("gil")).length).toBe(before + 1);
    expect((await call(key.key)).status).toBe(200);
    expect((await gil.get("/account/keys")).status).toBe(200); // still signed in
  });

  it("a request from another origin is 403 even with the right token; so is a cross-site fetch", async () => {
    const before = (await h.keys.listOwned("gil")).length;
    const foreign: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
    ];
    for (const headers of foreign) {
      const refused = await gil.post("/account/keys", { csrf: gil.csrf, name: "x" }, headers);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
    }
    const link = await h.link("gil");
    const signIn = await h.fetch("/account/sign-in", {
      method: "POST",
      headers: { ...form, origin: "https://evil.example" },
      body: `token=${link}`,
    });
    expect(signIn.status).toBe(403);
    expect((await h.fetch(`/account/sign-in?token=${link}`)).status).toBe(200); // the link was not used
    expect((await h.keys.listOwned("gil")).length).toBe(before);
  });

  it("a forged, altered or foreign cookie is no session", async () => {
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
    const cookies = [
      "forged",
      flip(gil.cookie, 20),
      flip(gil.cookie, gil.cookie.length - 5),
      gil.cookie.slice(0, -10),
      `${gil.cookie}x`,
      "Fe26.2**0000**AAAA",
      "x".repeat(5_000),
    ];
    for (const value of cookies) {
      const page = await h.fetch("/account/keys", { headers: { cookie: `${SESSION_COOKIE}=${value}` } });
      expect(page.status, value).toBe(303);
      const post = await h.fetch("/account/keys", {
        method: "POST",
        headers: { ...form, cookie: `${SESSION_COOKIE}=${value}` },
        body: `csrf=${gil.csrf}&name=x`,
      });
      expect(post.status).toBe(403);
    }
  });

  it("a cookie sealed with another secret is no session", async () => {
    const { AccountSessions } = await import("../../src/account/sessions.js");
    const elsewhere = new AccountSessions(h.t.db, { secret: "another secret of at least 32 characters" });
    const { cookie } = await elsewhere.start("gil", "gil", "link");
    expect((await h.fetch("/account/keys", { headers: { cookie: `${SESSION_COOKIE}=${cookie}` } })).status).toBe(303);
  });

  it("next= never leads off this surface (no open redirect)", async () => {
    for (const next of [
      "//evil.example",
      "https://evil.example/",
      "/\\evil.example",
      "/account/../graphql",
      "/account//evil.example",
      "javascript:alert(1)",
      "/account/keys?x=1",
    ]) {
      const token = await h.link("gil");
      const signedIn = await h.fetch("/account/sign-in", {
        method: "POST",
        headers: form,
        body: new URLSearchParams({ token, next }).toString(),
      });
      expect(signedIn.status).toBe(303);
      expect(signedIn.headers.get("location"), next).toBe("/account/keys");
      const page = await (await h.fetch(`/account/sign-in?token=${await h.link("gil")}&next=${encodeURIComponent(next)}`)).text();
      expect(page).toContain('name="next" value="/account/keys"');
    }
    const token = await h.link("gil");
    const kept = await h.fetch("/account/sign-in", {
      method: "POST",
      headers: form,
      body: new URLSearchParams({ token, next: "/account/keys" }).toString(),
    });
    expect(kept.headers.get("location")).toBe("/account/keys");
  });

  it("a body that is not a small form is refused", async () => {
    const json = await h.fetch("/account/keys", {
      method: "POST",
      headers: { "content-type": "application/json", origin: BASE, cookie: `${SESSION_COOKIE}=${gil.cookie}` },
      body: JSON.stringify({ csrf: gil.csrf, name: "x" }),
    });
    expect(json.status).toBe(415);
    const big = await gil.post("/account/keys", { csrf: gil.csrf, name: "x", pad: "y".repeat(10_000) });
    expect(big.status).toBe(413);
  });

  it("sign-out ends the session on the server: the old cookie opens nothing", async () => {
    const holder = await h.signIn("leaving");
    const out = await holder.post("/account/sign-out", { csrf: holder.csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/");
    expect(out.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=;`))).toMatch(/Max-Age=0/);
    expect((await holder.get("/account/keys")).status).toBe(303);
    expect((await holder.post("/account/keys", { csrf: holder.csrf, name: "after" })).status).toBe(403);
  });

  it("unknown account paths are 404 and wrong methods 405, as pages; no CORS for other origins", async () => {
    expect((await h.fetch("/account/nothing")).status).toBe(404);
    const wrong = await h.fetch("/account/sign-out");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    const page = await h.fetch("/account/sign-in", { headers: { origin: "https://evil.example" } });
    expect(page.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await h.fetch("/account/keys", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("key management is nowhere in REST, GraphQL or MCP", async () => {
    const { key } = await h.keys.create({ name: "probe", owner: "probe" });
    const auth = { authorization: `Bearer ${key}` };
    expect((await h.fetch("/api/v1/account/keys", { headers: auth })).status).toBe(404);
    expect((await h.fetch("/api/v1/keys", { headers: auth })).status).toBe(404);
    const types = await h.fetch("/graphql", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ query: "{ __schema { types { name } mutationType { name } } }" }),
    });
    const schema = (await types.json()) as { data: { __schema: { types: { name: string }[]; mutationType: unknown } } };
    expect(schema.data.__schema.mutationType).toBeNull();
    expect(schema.data.__schema.types.map((t) => t.name).filter((n) => /key|account|session|sign/i.test(n))).toEqual([]);
  });

  it("the logs hold the audit lines with account and prefix, and never a key, a token or a cookie", async () => {
    h.logs.length = 0;
    const token = await h.link("audited");
    const signedIn = await h.fetch("/account/sign-in", { method: "POST", headers: form, body: `token=${token}` });
    const cookie = setCookie(signedIn, SESSION_COOKIE)!;
    const headers = { cookie: `${SESSION_COOKIE}=${cookie}` };
    const csrf = csrfOf(await (await h.fetch("/account/keys", { headers })).text())!;
    const created = await h.fetch("/account/keys", { method: "POST", headers: { ...form, ...headers }, body: `csrf=${csrf}&name=logged` });
    const key = newKey(await created.text())!;
    const id = (await h.keys.listOwned("audited"))[0]!.id;
    await h.fetch(`/account/keys/${id}/revoke`, { method: "POST", headers: { ...form, ...headers }, body: `csrf=${csrf}` });
    await h.fetch("/account/sign-in", { method: "POST", headers: form, body: `token=${token}` }); // replayed
    await h.fetch("/account/sign-out", { method: "POST", headers: { ...form, ...headers }, body: `csrf=${csrf}` });

    const lines = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const audit = lines.filter((l) => l.audit).map((l) => [l.audit, l.account, l.prefix ?? l.reason ?? null]);
    expect(audit).toEqual([
      ["account.signed_in", "audited", null],
      ["key.created", "audited", key.slice(0, 13)],
      ["key.revoked", "audited", key.slice(0, 13)],
      ["account.sign_in_refused", undefined, "used"],
      ["account.signed_out", "audited", null],
    ]);
    const all = h.logs.join("\n");
    for (const secret of [key, key.slice(5), token, cookie, csrf]) expect(all).not.toContain(secret);
  });
});
