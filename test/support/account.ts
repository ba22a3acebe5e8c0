/**
 * A gateway over a fresh embedded database with "My API Keys" and API keys
 * switched on, called through `gateway.fetch`, and a holder that keeps its
 * cookie between requests as a browser would.
 */
import { pino } from "pino";
import { type AccountOptions, SESSION_COOKIE } from "../../src/account/plugin.js";
import { AccountSessions, issueSignInToken } from "../../src/account/sessions.js";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { canaryExport } from "./canary.js";
import { freshDatabase } from "./databases.js";
import { type TestGateway, testGateway } from "./gateway.js";

export const BASE = "http://gateway.test";

export interface AccountHarness {
  t: TestGateway;
  keys: KeyStore;
  sessions: AccountSessions;
  /** Every log line the gateway wrote. */
  logs: string[];
  /** The accounts' clock, in epoch ms; tests move it. */
  clock: { now: number };
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** A sign-in link's token for `owner`. */
  link(owner: string, minutes?: number): Promise<string>;
  /** A holder signed in through a link. */
  signIn(owner: string): Promise<Holder>;
  close(): Promise<void>;
}

export interface Holder {
  /** The session cookie's value. */
  cookie: string;
  /** The CSRF token of the session, read off the page. */
  csrf: string;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** POSTs a form, from this service's own origin unless the headers say otherwise. */
  post(path: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
}

/** The value of a cookie set by a response (undefined if it sets none of that name). */
export const setCookie = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(";")[0]
    ?.slice(name.length + 1);

export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];

export async function accountHarness(options: Partial<AccountOptions> = {}): Promise<AccountHarness> {
  const logs: string[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => void logs.push(line) });
  const clock = { now: Date.now() };
  const db = await freshDatabase();
  const store = new KeyStore(db);
  const sessions = new AccountSessions(db, { secret: await AccountSessions.secretOf(db), now: () => clock.now });
  const limits = new RateLimits({ defaults: { perMinute: 60, perDay: 10_000 } });
  const t = await testGateway(canaryExport(), {
    db,
    gateway: {
      auth: { keys: store, limits },
      limits: { perMinute: 60, perDay: 10_000 },
      log,
      account: { sessions, keys: store, limits, defaults: { perMinute: 60, perDay: 10_000 }, publicUrl: BASE, log, ...options },
    },
  });
  const gateway = t.gateway;
  const harness: AccountHarness = {
    t,
    keys: store,
    sessions,
    logs,
    clock,
    fetch: async (path, init) => gateway.fetch(`${BASE}${path}`, { redirect: "manual", ...init }),
    async link(owner, minutes = 15) {
      return (await issueSignInToken(db, owner, minutes, clock.now)).token;
    },
    async signIn(owner) {
      const token = await harness.link(owner);
      const signedIn = await harness.fetch("/account/sign-in", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: BASE },
        body: new URLSearchParams({ token }).toString(),
      });
      if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}: ${await signedIn.text()}`);
      const cookie = setCookie(signedIn, SESSION_COOKIE)!;
      const holder: Holder = {
        cookie,
        csrf: "",
        get: (path, headers = {}) => harness.fetch(path, { headers: { cookie: `${SESSION_COOKIE}=${cookie}`, ...headers } }),
        post: (path, fields, headers = {}) =>
          harness.fetch(path, {
            method: "POST",
            headers: {
              cookie: `${SESSION_COOKIE}=${cookie}`,
              "content-type": "application/x-www-form-urlencoded",
              origin: BASE,
              ...headers,
            },
            body: new URLSearchParams(fields).toString(),
          }),
      };
      holder.csrf = csrfOf(await (await holder.get("/account/keys")).text())!;
      return holder;
    },
    close: () => t.close(),
  };
  return harness;
}

/**
 * A holder of `owner` signed in through a link on a gateway process served at
 * `base` (over HTTP, not `gateway.fetch`), able to revoke a key as the page's
 * confirmation form does.
 */
export async function signInAt(base: string, db: Parameters<typeof issueSignInToken>[0], owner: string) {
  const { token } = await issueSignInToken(db, owner, 5);
  const form = { "content-type": "application/x-www-form-urlencoded", origin: base };
  const signedIn = await fetch(`${base}/account/sign-in`, { method: "POST", headers: form, body: `token=${token}`, redirect: "manual" });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}: ${await signedIn.text()}`);
  const cookie = `${SESSION_COOKIE}=${setCookie(signedIn, SESSION_COOKIE)}`;
  const csrf = csrfOf(await (await fetch(`${base}/account/keys`, { headers: { cookie } })).text())!;
  return {
    revoke: (id: number) =>
      fetch(`${base}/account/keys/${id}/revoke`, {
        method: "POST",
        headers: { ...form, cookie },
        body: new URLSearchParams({ csrf }).toString(),
        redirect: "manual",
      }),
  };
}
