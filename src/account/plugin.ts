/**
 * `useAccount`: "My API Keys" under `/account/` (docs/contract.md §1a), the
 * only routes of the service that change data. They take an account
 * session, never an API key; REST, GraphQL and MCP stay read-only and know
 * nothing of them.
 *
 * Every request that changes something (POST) must come from this service's
 * own pages: its `Origin` (and `Sec-Fetch-Site`), when the browser sends
 * them, must be this service's, and a signed-in form must carry the session's
 * CSRF token; otherwise 403. Answers are never stored by caches.
 *
 * Creations, revocations, rolls, expiry changes, sign-ins and sign-outs are
 * logged (`audit`) with the account and the key's prefix: never a key, a
 * token or a cookie.
 */
import { parse as parseCookies, serialize as serializeCookie } from "cookie";
import type { Plugin } from "graphql-yoga";
import type { Logger } from "pino";
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";
import { isUnavailable, RETRY_AFTER_SECONDS, UNAVAILABLE_MESSAGE } from "../db/availability.js";
import { KeyError, KeyQuotaError, type KeyStore } from "../keys/store.js";
import type { Limits, RateLimits } from "../limits/rate-limits.js";
import type { OidcFlow, OidcSignIn } from "./oidc.js";
import type { KeyUsage } from "../usage/report.js";
import { SURFACES } from "../keys/restrictions.js";
import type { Surface } from "../refusal.js";
import {
  EXPIRY_CHOICES,
  keysPage,
  type KeysPageOptions,
  linkPage,
  linkRefusedPage,
  managePage,
  OVERLAP_CHOICES,
  problemPage,
  revokePage,
  signInPage,
} from "./pages.js";
import type { AccountSession, AccountSessions } from "./sessions.js";

export interface AccountOptions {
  /** Sign-in links and sessions. */
  sessions: AccountSessions;
  /** The keys an account owns. */
  keys: Pick<KeyStore, "listOwned" | "createOwned" | "revokeOwned" | "findOwned" | "rollOwned" | "setExpiryOwned" | "setRestrictionsOwned">;
  /** Where today's count of each key is read. */
  limits: Pick<RateLimits, "usedToday">;
  /** The limits of a key that has none of its own. */
  defaults: Limits;
  /**
   * The service's public URL (`https://data.example.org`): the OpenID Connect
   * redirect URI is under it, and a changing request's `Origin` may be its
   * origin (or the one the request itself came in on).
   */
  publicUrl: string;
  /** Sign-in through the platform's identity provider; unset: sign-in links only. */
  oidc?: OidcSignIn | undefined;
  /** Most active keys one account may hold. Default 5. */
  maxKeys?: number;
  /** Keys one account may create per hour (each attempt counts). Default 10. */
  creationsPerHour?: number;
  /** A connected ioredis client: the creation limit is shared by every process. */
  redis?: unknown;
  /** Where the audit lines and failures go. */
  log?: Pick<Logger, "info" | "warn" | "error">;
  /** Reads the recorded use of the given keys (src/usage/report.ts); unset: the page shows none. */
  usage?: ((keyIds: readonly number[]) => Promise<Map<number, KeyUsage>>) | undefined;
}

/** The session cookie, sent only to `/account/`. */
export const SESSION_COOKIE = "uedu_session";
/** The cookie that carries an OpenID Connect flow from its start to its callback. */
const FLOW_COOKIE = "uedu_oidc";
const FLOW_SECONDS = 600;
/** Longest form body accepted. */
const MAX_FORM_BYTES = 8 * 1024;
/** Longest key name. */
const MAX_KEY_NAME = 100;

/** What a key's page says after a change it redirected to. */
const SAVED: Record<string, string> = {
  expiry: "The new expiry is saved.",
  restrictions: "The restrictions are saved: every gateway holds the key to them within a second.",
};

const EXPIRY_PROBLEM = `Choose an expiry: ${Object.keys(EXPIRY_CHOICES).join(", ")}.`;
const OVERLAP_NAMES = Object.keys(OVERLAP_CHOICES).join(", ");

/** The entry of `choices` that a form's value names (never an inherited property), or undefined. */
const chosen = <T>(choices: Record<string, T>, value: string | null): T | undefined =>
  value !== null && Object.hasOwn(choices, value) ? choices[value] : undefined;

/** Where a sign-in may send the browser afterwards: a path of this surface, nothing else (no open redirect). */
function safeNext(next: string | null | undefined): string {
  return typeof next === "string" && /^\/account(\/[A-Za-z0-9_-]+)*\/?$/.test(next) ? next : "/account/keys";
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** A form's fields; a body that is not a small URL-encoded form is refused. */
async function formOf(request: Request): Promise<URLSearchParams> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") throw new Refusal(415, "Not a form", "this address takes a submitted form");
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_FORM_BYTES) throw new Refusal(413, "Too large", "the form is too large");
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_FORM_BYTES) throw new Refusal(413, "Too large", "the form is too large");
  return new URLSearchParams(text);
}

export function useAccount(options: AccountOptions): Plugin {
  const { sessions, keys, log } = options;
  const maxKeys = options.maxKeys ?? 5;
  const perHour = options.creationsPerHour ?? 10;
  const creationsBase = { keyPrefix: "uedu-account-creations", points: perHour, duration: 3600 };
  const memory = new RateLimiterMemory(creationsBase);
  const creations: RateLimiterAbstract = options.redis
    ? new RateLimiterRedis({ ...creationsBase, storeClient: options.redis, insuranceLimiter: memory })
    : memory;
  const publicOrigin = new URL(options.publicUrl).origin;
  const redirectUri = new URL("/account/oidc/callback", options.publicUrl).href;

  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== "/account" && !url.pathname.startsWith("/account/")) return;
      const secure = url.protocol === "https:" || publicOrigin.startsWith("https:");
      const setCookies: string[] = [];
      const cookie = (name: string, value: string, path: string, maxAgeSeconds: number) =>
        setCookies.push(serializeCookie(name, value, { httpOnly: true, sameSite: "lax", secure, path, maxAge: maxAgeSeconds }));
      const respond = (status: number, body: string | null, headers: Record<string, string> = {}) => {
        // `same-origin`: with no-referrer a browser sends its forms with `Origin: null`, which the Origin check refuses.
        const h = new fetchAPI.Headers({ "cache-control": "no-store", "referrer-policy": "same-origin", ...headers });
        if (body !== null) {
          h.set("content-type", "text/html; charset=utf-8");
          h.set("content-length", String(Buffer.byteLength(body)));
        }
        for (const c of setCookies) h.append("set-cookie", c);
        endResponse(new fetchAPI.Response(request.method === "HEAD" ? null : body, { status, headers: h }));
      };
      const redirect = (location: string) => respond(303, null, { location });
      const cookies = parseCookies(request.headers.get("cookie") ?? "");
      const method = request.method === "HEAD" ? "GET" : request.method;
      const path = url.pathname.replace(/\/$/, "") || "/";

      /** Refuses a changing request that did not come from this service's own pages. */
      const checkOrigin = () => {
        const origin = request.headers.get("origin");
        const site = request.headers.get("sec-fetch-site");
        if (
          (origin !== null && origin !== url.origin && origin !== publicOrigin) ||
          (site !== null && site !== "same-origin" && site !== "none")
        ) {
          throw new Refusal(403, "Refused", "this request did not come from this service's own pages");
        }
      };
      const signedIn = () => sessions.resume(cookies[SESSION_COOKIE]);
      /** The session of a changing request whose form carries its CSRF token. */
      const changing = async (): Promise<{ session: AccountSession; form: URLSearchParams }> => {
        checkOrigin();
        const session = await signedIn();
        const form = await formOf(request);
        if (!session) throw new Refusal(403, "Not signed in", "sign in first: your session has ended or was never started");
        if (!sessions.csrfMatches(session, form.get("csrf"))) {
          throw new Refusal(403, "Refused", "this form is missing its security token, or it is out of date: reload the page and try again");
        }
        return { session, form };
      };
      const renderKeys = async (session: AccountSession, extra: Partial<KeysPageOptions> = {}) => {
        const owned = await keys.listOwned(session.account);
        const usedToday = new Map(
          await Promise.all(owned.map(async (k) => [k.id, k.revokedAt ? null : await options.limits.usedToday(k.id)] as const)),
        );
        // Only the holder's own keys are asked for. A usage that cannot be read now is "unknown", not a failed page.
        const usage = await options.usage?.(owned.map((k) => k.id)).catch((error: unknown) => {
          options.log?.warn({ err: String(error) }, "reading the keys' usage failed");
          return undefined;
        });
        return keysPage({ session, keys: owned, usedToday, usage, defaults: options.defaults, maxKeys, ...extra });
      };
      const startSession = async (account: string, name: string, via: "link" | "oidc", next: string) => {
        const started = await sessions.start(account, name, via);
        cookie(SESSION_COOKIE, started.cookie, "/account", Math.floor((started.expiresAt.getTime() - Date.now()) / 1000));
        log?.info({ audit: "account.signed_in", account, method: via }, "account holder signed in");
        redirect(next);
      };

      try {
        const onKey = /^\/account\/keys\/(\d{1,9})(?:\/(revoke|roll|expiry|restrictions))?$/.exec(path);
        const revoke = onKey?.[2] === "revoke" ? onKey : null;
        const route = onKey ? `/account/keys/{id}${onKey[2] ? `/${onKey[2]}` : ""}` : path;
        const allowed: Record<string, string> = {
          "/account": "GET, HEAD",
          "/account/keys": "GET, HEAD, POST",
          "/account/keys/{id}": "GET, HEAD",
          "/account/keys/{id}/revoke": "GET, HEAD, POST",
          "/account/keys/{id}/roll": "POST",
          "/account/keys/{id}/expiry": "POST",
          "/account/keys/{id}/restrictions": "POST",
          "/account/sign-in": "GET, HEAD, POST",
          "/account/sign-out": "POST",
          "/account/oidc/start": "GET, HEAD",
          "/account/oidc/callback": "GET, HEAD",
        };
        const methods = allowed[route];
        if (!methods) return respond(404, problemPage("Not found", `no such page: ${url.pathname}`));
        if (!methods.split(", ").includes(request.method)) {
          return respond(405, problemPage("Method not allowed", `${url.pathname} answers ${methods}`), { allow: methods });
        }

        if (route === "/account") return redirect("/account/keys");

        if (route === "/account/keys" && method === "GET") {
          const session = await signedIn();
          if (!session) return redirect(`/account/sign-in?next=${encodeURIComponent("/account/keys")}`);
          const revoked = url.searchParams.get("revoked");
          return respond(
            200,
            await renderKeys(
              session,
              revoked && /^uedu_\w{1,20}$/.test(revoked) ? { notice: { kind: "info", text: `The key ${revoked}… is revoked.` } } : {},
            ),
          );
        }

        if (route === "/account/keys") {
          const { session, form } = await changing();
          const name = (form.get("name") ?? "").trim();
          if (!name || name.length > MAX_KEY_NAME || /[\p{Cc}\p{Cf}]/u.test(name)) {
            return respond(
              400,
              await renderKeys(session, {
                notice: { kind: "error", text: `Give the key a name of 1 to ${MAX_KEY_NAME} printable characters.` },
              }),
            );
          }
          const expiry = chosen(EXPIRY_CHOICES, form.get("expires") ?? "never");
          if (!expiry) {
            return respond(400, await renderKeys(session, { notice: { kind: "error", text: EXPIRY_PROBLEM } }));
          }
          // rate-limiter-flexible rejects with the limiter's state when the account is over its allowance.
          const refused = await creations.consume(session.account).then(
            () => undefined,
            (error: unknown) => error,
          );
          if (refused instanceof RateLimiterRes) {
            const retry = Math.max(1, Math.ceil(refused.msBeforeNext / 1000));
            log?.warn({ audit: "key.creation_refused", account: session.account, reason: "rate" }, "key creation refused: too many");
            return respond(
              429,
              await renderKeys(session, {
                notice: {
                  kind: "error",
                  text: `Too many keys created: at most ${perHour} an hour. Try again in ${Math.ceil(retry / 60)} min.`,
                },
              }),
              { "retry-after": String(retry) },
            );
          }
          if (refused !== undefined) throw refused;
          try {
            const expiresAt = expiry.ms === null ? null : new Date(Date.now() + expiry.ms);
            const created = await keys.createOwned(session.account, name, maxKeys, expiresAt);
            log?.info(
              { audit: "key.created", account: session.account, keyId: created.id, prefix: created.prefix, expiresAt },
              "API key created",
            );
            return respond(201, await renderKeys(session, { created: { key: created.key, prefix: created.prefix, name } }));
          } catch (error) {
            if (!(error instanceof KeyQuotaError)) throw error;
            return respond(409, await renderKeys(session, { notice: { kind: "error", text: error.message } }));
          }
        }

        if (route === "/account/keys/{id}") {
          const session = await signedIn();
          if (!session) return redirect(`/account/sign-in?next=${encodeURIComponent("/account/keys")}`);
          const key = await keys.findOwned(session.account, Number(onKey![1]));
          if (!key) return respond(404, problemPage("Not found", "you have no key with that id"));
          if (key.revokedAt) return redirect("/account/keys");
          const saved = chosen(SAVED, url.searchParams.get("saved"));
          return respond(200, managePage(session, key, saved ? { kind: "info", text: saved } : undefined));
        }

        if (route === "/account/keys/{id}/restrictions") {
          const { session, form } = await changing();
          const id = Number(onKey![1]);
          const lines = (name: string) => (form.get(name) ?? "").split(/[\n,]/).filter((line) => line.trim() !== "");
          const count = (name: string) => {
            const value = (form.get(name) ?? "").trim();
            if (value === "") return null;
            if (!/^\d{1,10}$/.test(value) || Number(value) < 1)
              throw new KeyError(`a limit per visitor is a positive whole number, got ${JSON.stringify(value)}`);
            return Number(value);
          };
          const key = await keys.findOwned(session.account, id);
          if (!key) return respond(404, problemPage("Not found", "you have no key with that id"));
          const surfaces = form.getAll("surfaces");
          let changed: Awaited<ReturnType<typeof keys.setRestrictionsOwned>>;
          try {
            if (surfaces.length === 0) throw new KeyError("choose at least one surface: a key for none would be refused everywhere");
            changed = await keys.setRestrictionsOwned(session.account, id, {
              origins: lines("origins"),
              addresses: lines("addresses"),
              surfaces: surfaces.length === SURFACES.length ? null : (surfaces as Surface[]),
              documentsOnly: form.get("documents_only") === "yes",
              visitorPerMinute: count("visitor_per_minute"),
              visitorPerDay: count("visitor_per_day"),
            });
          } catch (error) {
            if (!(error instanceof KeyError)) throw error;
            return respond(400, managePage(session, key, { kind: "error", text: `Nothing was changed: ${error.message}.` }));
          }
          if (!changed) return respond(404, problemPage("Not found", "you have no key with that id"));
          log?.info(
            {
              audit: "key.restrictions_set",
              account: session.account,
              keyId: changed.id,
              prefix: changed.prefix,
              restrictions: changed.restrictions,
            },
            "API key restrictions set",
          );
          return redirect(`/account/keys/${changed.id}?saved=restrictions`);
        }

        if (route === "/account/keys/{id}/expiry") {
          const { session, form } = await changing();
          const id = Number(onKey![1]);
          const expiry = chosen(EXPIRY_CHOICES, form.get("expires"));
          if (!expiry) return respond(400, problemPage("Refused", EXPIRY_PROBLEM));
          const key = await keys.setExpiryOwned(session.account, id, expiry.ms === null ? null : new Date(Date.now() + expiry.ms));
          if (!key) return respond(404, problemPage("Not found", "you have no key with that id"));
          log?.info(
            { audit: "key.expiry_set", account: session.account, keyId: key.id, prefix: key.prefix, expiresAt: key.expiresAt },
            "API key expiry set",
          );
          return redirect(`/account/keys/${key.id}?saved=expiry`);
        }

        if (route === "/account/keys/{id}/roll") {
          const { session, form } = await changing();
          const id = Number(onKey![1]);
          const overlap = chosen(OVERLAP_CHOICES, form.get("overlap"));
          if (!overlap) return respond(400, problemPage("Refused", `Choose how long the old secret keeps working: ${OVERLAP_NAMES}.`));
          const rolled = await keys.rollOwned(session.account, id, overlap.ms);
          if (!rolled) return respond(404, problemPage("Not found", "you have no key with that id"));
          const { record } = rolled;
          log?.info(
            {
              audit: "key.rolled",
              account: session.account,
              keyId: record.id,
              prefix: record.prefix,
              previousPrefix: rolled.previousPrefix,
              previousUntil: record.previousUntil,
            },
            "API key rolled",
          );
          return respond(
            201,
            await renderKeys(session, {
              created: {
                key: rolled.key,
                prefix: record.prefix,
                name: record.name,
                rolled: { previousPrefix: rolled.previousPrefix, until: record.previousUntil!, overlap: overlap.ms > 0 },
              },
            }),
          );
        }

        if (revoke) {
          const id = Number(revoke[1]);
          if (method === "GET") {
            const session = await signedIn();
            if (!session) return redirect(`/account/sign-in?next=${encodeURIComponent("/account/keys")}`);
            const key = await keys.findOwned(session.account, id);
            if (!key) return respond(404, problemPage("Not found", "you have no key with that id"));
            if (key.revokedAt) return redirect("/account/keys");
            return respond(200, revokePage(session, key));
          }
          const { session } = await changing();
          const key = await keys.revokeOwned(session.account, id);
          if (!key) return respond(404, problemPage("Not found", "you have no key with that id"));
          log?.info({ audit: "key.revoked", account: session.account, keyId: key.id, prefix: key.prefix }, "API key revoked");
          return redirect(`/account/keys?revoked=${encodeURIComponent(key.prefix)}`);
        }

        if (route === "/account/sign-in" && method === "GET") {
          const next = safeNext(url.searchParams.get("next"));
          const token = url.searchParams.get("token");
          if (token === null) {
            if (await signedIn()) return redirect(next);
            return respond(200, signInPage({ oidc: options.oidc !== undefined, next }));
          }
          const checked = await sessions.checkLink(token);
          if ("refused" in checked) return respond(checked.refused === "unknown" ? 404 : 410, linkRefusedPage(checked.refused));
          return respond(200, linkPage(checked.owner, token, next));
        }

        if (route === "/account/sign-in") {
          checkOrigin();
          const form = await formOf(request);
          const redeemed = await sessions.redeemLink(form.get("token") ?? "");
          if ("refused" in redeemed) {
            log?.warn({ audit: "account.sign_in_refused", method: "link", reason: redeemed.refused }, "sign-in link refused");
            return respond(redeemed.refused === "unknown" ? 404 : 410, linkRefusedPage(redeemed.refused));
          }
          return await startSession(redeemed.owner, redeemed.owner, "link", safeNext(form.get("next")));
        }

        if (route === "/account/sign-out") {
          const { session } = await changing();
          await sessions.end(session);
          cookie(SESSION_COOKIE, "", "/account", 0);
          log?.info({ audit: "account.signed_out", account: session.account }, "account holder signed out");
          return redirect("/");
        }

        if (!options.oidc) return respond(404, problemPage("Not found", "sign-in through an identity provider is not configured"));

        if (route === "/account/oidc/start") {
          let started: Awaited<ReturnType<OidcSignIn["start"]>>;
          try {
            started = await options.oidc.start(redirectUri, safeNext(url.searchParams.get("next")));
          } catch (error) {
            log?.warn({ err: error instanceof Error ? error.message : String(error) }, "the identity provider did not answer");
            return respond(
              503,
              signInPage({
                oidc: true,
                next: "/account/keys",
                problem: "The identity provider does not answer just now. Try again in a moment.",
              }),
              {
                "retry-after": String(RETRY_AFTER_SECONDS),
              },
            );
          }
          const { url: authorization, flow } = started;
          cookie(FLOW_COOKIE, await sessions.seal(flow, FLOW_SECONDS), "/account/oidc", FLOW_SECONDS);
          return respond(302, null, { location: authorization.href });
        }

        // The callback.
        const flow = await sessions.unseal<OidcFlow>(cookies[FLOW_COOKIE]);
        cookie(FLOW_COOKIE, "", "/account/oidc", 0);
        const problem = (text: string) => respond(400, signInPage({ oidc: true, next: "/account/keys", problem: text }));
        if (url.searchParams.has("error")) {
          log?.warn(
            { audit: "account.sign_in_refused", method: "oidc", reason: url.searchParams.get("error")?.slice(0, 64) },
            "identity provider refused",
          );
          return problem("The identity provider did not sign you in. Try again.");
        }
        if (!flow?.verifier || !flow.state || !flow.nonce)
          return problem("This sign-in took too long, or was started in another browser. Try again.");
        let identity: Awaited<ReturnType<OidcSignIn["finish"]>>;
        try {
          identity = await options.oidc.finish(url, flow as OidcFlow, redirectUri);
        } catch (error) {
          log?.warn(
            { audit: "account.sign_in_refused", method: "oidc", err: error instanceof Error ? error.name : "error" },
            "OpenID Connect sign-in failed",
          );
          return problem("The sign-in could not be completed. Try again.");
        }
        return await startSession(identity.sub, identity.name, "oidc", safeNext(flow.next));
      } catch (error) {
        if (error instanceof Refusal) return respond(error.status, problemPage(error.title, error.message));
        if (error instanceof KeyError) return respond(400, problemPage("Refused", error.message));
        log?.error({ err: error }, "account page failed");
        if (!isUnavailable(error)) return respond(500, problemPage("Internal error", "something went wrong on our side"));
        return respond(503, problemPage("Unavailable", UNAVAILABLE_MESSAGE), { "retry-after": String(RETRY_AFTER_SECONDS) });
      }
    },
  };
}
