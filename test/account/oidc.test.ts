/**
 * Sign-in to "My API Keys" through a real OpenID Connect provider
 * (`oidc-provider`, on a free port of 127.0.0.1, with its development
 * login and consent pages), driven end to end: the gateway's start, the
 * provider's pages, the callback, the session, a key created and used.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OidcSignIn } from "../../src/account/oidc.js";
import { SESSION_COOKIE } from "../../src/account/plugin.js";
import { type AccountHarness, accountHarness, BASE, csrfOf, setCookie } from "../support/account.js";

const CLIENT = { id: "public-data-gateway", secret: "a confidential client's secret" };
const REDIRECT = `${BASE}/account/oidc/callback`;

let server: Server;
let issuer: string;
let h: AccountHarness;

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    claims: { openid: ["sub"], profile: ["name", "preferred_username"], email: ["email", "email_verified"] },
    // Every account has a name and an e-mail address; the gateway must ask for the first only.
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ sub, name: "Alice Chen", preferred_username: "alice", email: "alice@example.org", email_verified: true }),
    }),
    cookies: { keys: ["a key for the provider's own cookies"] },
  });
  provider.on("server_error", (_ctx, error) => console.error(error));
  server.on("request", provider.callback());
  h = await accountHarness({ oidc: new OidcSignIn({ issuer, clientId: CLIENT.id, clientSecret: CLIENT.secret }) });
}, 60_000);

afterAll(async () => {
  await h?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** A browser's cookies, by host, and its way through redirects and the provider's forms. */
class Browser {
  private readonly jar = new Map<string, Map<string, string>>();
  /** Every URL it was sent to. */
  readonly visited: string[] = [];

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    this.visited.push(url);
    const target = new URL(url);
    const cookies = [...(this.jar.get(target.host) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join("; ");
    const headers = { ...(init.headers as Record<string, string>), ...(cookies ? { cookie: cookies } : {}) };
    const response =
      target.origin === BASE
        ? await h.fetch(`${target.pathname}${target.search}`, { ...init, headers })
        : await fetch(url, { ...init, headers, redirect: "manual" });
    const jar = this.jar.get(target.host) ?? new Map<string, string>();
    for (const c of response.headers.getSetCookie()) {
      const [pair, ...attributes] = c.split(/;\s*/);
      const [name, value] = [pair!.slice(0, pair!.indexOf("=")), pair!.slice(pair!.indexOf("=") + 1)];
      if (attributes.some((a) => /^max-age=0$/i.test(a) || /^expires=thu, 01 jan 1970/i.test(a)) || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    this.jar.set(target.host, jar);
    return response;
  }

  cookie(host: string, name: string): string | undefined {
    return this.jar.get(host)?.get(name);
  }

  /**
   * Follows redirects and answers the provider's login (as `login`) and
   * consent forms, until the gateway answers something that is not a redirect
   * to the provider; returns that answer.
   */
  async through(url: string, login: string): Promise<Response> {
    let next = url;
    for (let step = 0; step < 20; step++) {
      const response = await this.fetch(next);
      const location = response.headers.get("location");
      if (location && response.status >= 300 && response.status < 400) {
        next = new URL(location, next).href;
        if (new URL(next).origin === BASE && !next.includes("/account/oidc/")) return response;
        continue;
      }
      if (new URL(next).origin === BASE) return response;
      const page = await response.text();
      const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/.exec(page);
      if (!form) throw new Error(`the provider answered ${response.status} with no form:\n${page.slice(0, 500)}`);
      const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
      const fields: Record<string, string> = prompt === "login" ? { prompt, login, password: "any" } : { prompt: prompt ?? "consent" };
      const submitted = await this.fetch(new URL(form[1]!, next).href, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
      });
      next = new URL(submitted.headers.get("location")!, next).href;
    }
    throw new Error("too many steps");
  }
}

describe("OpenID Connect sign-in against a real provider", () => {
  it("the sign-in page offers the provider", async () => {
    const page = await (await h.fetch("/account/sign-in")).text();
    expect(page).toContain('href="/account/oidc/start?next=%2Faccount%2Fkeys"');
  });

  it("signs in with the provider's sub (code + PKCE + state + nonce), and the holder creates and uses a key", async () => {
    const browser = new Browser();
    const start = await browser.fetch(`${BASE}/account/oidc/start?next=%2Faccount%2Fkeys`);
    expect(start.status).toBe(302);
    const authorization = new URL(start.headers.get("location")!);
    expect(authorization.origin).toBe(issuer);
    expect(authorization.searchParams.get("scope")).toBe("openid profile");
    expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorization.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(authorization.searchParams.get("state")).toBeTruthy();
    expect(authorization.searchParams.get("nonce")).toBeTruthy();
    expect(authorization.searchParams.get("redirect_uri")).toBe(REDIRECT);
    const flow = start.headers.getSetCookie().find((c) => c.startsWith("uedu_oidc="))!;
    expect(flow).toMatch(/HttpOnly/);
    expect(flow).toMatch(/SameSite=Lax/);
    expect(flow).toMatch(/Path=\/account\/oidc/);

    const signedIn = await browser.through(authorization.href, "sub-alice-7");
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe("/account/keys");
    expect(browser.visited.some((u) => u.startsWith(`${REDIRECT}?code=`))).toBe(true);
    expect(browser.cookie("gateway.test", "uedu_oidc")).toBeUndefined(); // used up

    const page = await (await browser.fetch(`${BASE}/account/keys`)).text();
    expect(page).toContain("Signed in as <strong>Alice Chen</strong>");
    expect(page).toContain("(account <code>sub-alice-7</code>)");
    expect(page).not.toContain("alice@example.org");

    const csrf = csrfOf(page)!;
    const created = await browser.fetch(`${BASE}/account/keys`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: BASE },
      body: new URLSearchParams({ csrf, name: "from OIDC" }).toString(),
    });
    expect(created.status).toBe(201);
    const key = /<code id="new-key">(uedu_\w+)<\/code>/.exec(await created.text())![1]!;
    expect((await h.keys.listOwned("sub-alice-7")).map((k) => k.name)).toEqual(["from OIDC"]);
    const answer = await h.fetch("/api/v1/universities", { headers: { authorization: `Bearer ${key}` } });
    expect(answer.status).toBe(200);

    // Nothing of the e-mail address was stored.
    const sessions = await h.t.db.query<Record<string, unknown>>(`SELECT * FROM account_session WHERE account = 'sub-alice-7'`);
    expect(sessions).toHaveLength(1);
    expect(JSON.stringify(sessions)).not.toContain("example.org");
    expect(sessions[0]!.method).toBe("oidc");
    expect(h.logs.some((l) => l.includes('"audit":"account.signed_in"') && l.includes('"method":"oidc"'))).toBe(true);
  });

  it("a callback without the flow's cookie (another browser, or too late) is refused, and no session starts", async () => {
    const browser = new Browser();
    const start = await browser.fetch(`${BASE}/account/oidc/start`);
    const stranger = new Browser();
    let url = start.headers.get("location")!;
    // The provider's part in the first browser, the callback in a stranger's.
    for (let i = 0; i < 20 && new URL(url).origin !== BASE; i++) {
      const response = await browser.fetch(url);
      const location = response.headers.get("location");
      if (location) {
        url = new URL(location, url).href;
        continue;
      }
      const page = await response.text();
      const action = new URL(/<form[^>]*action="([^"]+)"/.exec(page)![1]!, url).href;
      const prompt = /name="prompt" value="(\w+)"/.exec(page)![1]!;
      const submitted = await browser.fetch(action, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(prompt === "login" ? { prompt, login: "sub-bob", password: "x" } : { prompt }).toString(),
      });
      url = new URL(submitted.headers.get("location")!, action).href;
    }
    expect(url.startsWith(`${REDIRECT}?code=`)).toBe(true);
    const refused = await stranger.fetch(url);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("This sign-in took too long, or was started in another browser.");
    expect(setCookie(refused, SESSION_COOKIE)).toBeUndefined();

    // A state that is not the flow's: refused too.
    const tampered = new URL(url);
    tampered.searchParams.set("state", "not-the-state");
    const bad = await browser.fetch(tampered.href);
    expect(bad.status).toBe(400);
    expect(setCookie(bad, SESSION_COOKIE)).toBeUndefined();
  });

  it("a refusal at the provider comes back as a clear page", async () => {
    const browser = new Browser();
    await browser.fetch(`${BASE}/account/oidc/start`);
    const refused = await browser.fetch(`${REDIRECT}?error=access_denied&state=x`);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("The identity provider did not sign you in.");
  });

  it("a provider that does not answer gives 503, and the next attempt works again", async () => {
    const away = await accountHarness({ oidc: new OidcSignIn({ issuer: "http://127.0.0.1:9", clientId: "x", timeoutSeconds: 2 }) });
    try {
      const start = await away.fetch("/account/oidc/start");
      expect(start.status).toBe(503);
      expect(await start.text()).not.toMatch(/ECONNREFUSED|at .*\.js/);
    } finally {
      await away.close();
    }
  });
});
