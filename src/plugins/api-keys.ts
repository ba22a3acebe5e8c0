/**
 * `useApiKeys`: every request to `/graphql` (except the GraphiQL page itself)
 * and `/mcp` must carry a valid key and fit its limits; REST routes call the
 * same `authorize` after routing (docs/contract.md §2 puts 404/405 before 401).
 * Refusals use each surface's own error shape; every keyed response carries
 * the limit headers.
 */
import type { IncomingMessage } from "node:http";
import type { Plugin } from "graphql-yoga";
import proxyAddr from "proxy-addr";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { isUnavailable, RETRY_AFTER_SECONDS, UNAVAILABLE_MESSAGE } from "../db/availability.js";
import { GraphQLError } from "graphql";
import {
  DOCUMENT_REFUSAL,
  documentAllowed,
  documentHashOf,
  parsedOrUndefined,
  type Restriction,
  refusalOf,
  visitorOf,
} from "../keys/restrictions.js";
import { sha256Hex } from "../sha256.js";
import type { KeyStore } from "../keys/store.js";
import { bearerKey } from "../keys/secret.js";
import { limitHeaders } from "../limits/headers.js";
import type { RateLimits } from "../limits/rate-limits.js";
import type { LimitName } from "../limits/windows.js";
import { jsonAnswer, refusalBody, type Surface } from "../refusal.js";
import { ownerOf } from "../path-owners.js";
import { isGraphiQLPage } from "./paths.js";
import { requestIdOf } from "./access-log.js";

export interface ApiKeyOptions {
  /** Verifies presented keys. */
  keys: Pick<KeyStore, "verify">;
  /** Counts requests per key. */
  limits: Pick<RateLimits, "take">;
  /** Told why a key could not be checked (the database did not answer, or a bug). */
  onError?: (error: unknown, call: KeyCall) => void;
  /**
   * Failed key checks (a malformed, unknown, revoked or expired key, or one
   * used outside its restrictions) one client address may make per minute;
   * past it, its keys are refused with 429 before any lookup, so guessing
   * keys costs the database nothing. Per process. Default 30.
   */
  failedChecksPerMinute?: number;
  /**
   * The proxies whose `X-Forwarded-For` names the client (TRUSTED_PROXIES):
   * addresses, CIDR ranges or proxy-addr's names (`loopback`,
   * `uniquelocal`). Unset: the client is the socket's peer, and the header
   * is never read.
   */
  trustedProxies?: readonly string[] | undefined;
  /** The gateway's trusted documents (TRUSTED_DOCUMENTS): what a documents-only key without a set of its own runs. */
  trustedDocuments?: ReadonlyMap<string, string> | undefined;
}

export interface ApiKeyGuard {
  /** The yoga plugin guarding `/graphql` and `/mcp` and adding limit headers. */
  plugin: Plugin;
  /** Checks one request; a Response means refuse it with that response. */
  authorize(request: Request, surface: Surface): Promise<Response | undefined>;
  /** Checks one call, whatever carried it (`authorize` for a Fetch request, src/lean/path.ts for a Node one). */
  check(call: KeyCall, surface: Surface): Promise<KeyCheck>;
  /** What the check of a request found (for the access log and metrics); undefined if it was not checked. */
  outcomeOf(request: Request): KeyOutcome | undefined;
}

/**
 * Why a request's key was refused: 401 (`missing`, `malformed`, `invalid`,
 * `expired`, or `rolled`: an old secret after its overlap), 403 (a
 * restriction: `origin`, `address`, `surface`, `document`), 429 (a limit,
 * the key's or its visitor's, or `failed_checks`), or 503/500.
 */
export type KeyRefusal =
  | "missing"
  | "malformed"
  | "invalid"
  | "expired"
  | "rolled"
  | Restriction
  | LimitName
  | "failed_checks"
  | "unavailable"
  | "error";

/** What checking a request's key found: the key's id when it was valid, and the refusal if there was one. */
export interface KeyOutcome {
  keyId?: number;
  refusal?: KeyRefusal;
  /**
   * A documents-only key's documents, for the GraphQL layer to hold it to:
   * its own (hash → text), else the gateway's trusted ones (undefined: none).
   */
  documentsOnly?: { own: ReadonlyMap<string, string> | null };
}

/** What a key check reads of a request. */
export interface KeyCall {
  /** The `Authorization` header, if any. */
  authorization: string | null | undefined;
  /** The origin the request was addressed to (`http://host:port`), asked only to tell a refused client where keys come from. */
  origin(): string;
  /** The socket's peer address, where the request came over a socket. */
  address: string | undefined;
  /** The request's `Origin`, `Referer` and `X-Forwarded-For` headers, as sent. */
  originHeader: string | null | undefined;
  referer: string | null | undefined;
  forwardedFor: string | null | undefined;
  /**
   * The SHA-256 of the GraphQL document the request runs (its text's, or the
   * id it sends), read only for a documents-only key.
   */
  document?: (() => string | undefined | Promise<string | undefined>) | undefined;
  /** The request's id (src/plugins/access-log.ts), for the log line of a failed check. */
  requestId: string | undefined;
}

/** What a key check decided: a refusal to answer with, or the limit headers of a request let through. */
export interface KeyCheck {
  outcome: KeyOutcome;
  /** The answer of a refused call: its status, body (in the surface's shape) and headers. */
  refusal?: { status: number; body: string; headers: Record<string, string> };
  /** The limit headers of a call let through. */
  headers?: Record<string, string>;
}

/**
 * Checks made before the gateway saw a request, by the Node request they
 * were made for: the lean path (src/lean/path.ts) checked the key of a
 * request it then handed on, and the request must not be checked (and
 * counted against the key's limits) twice.
 */
const checkedBefore = new WeakMap<object, KeyCheck>();

/** Records that `nodeRequest`'s key was checked, and let through, by `check`. */
export function keyCheckedBefore(nodeRequest: object, check: KeyCheck): void {
  checkedBefore.set(nodeRequest, check);
}

const REALM = 'Bearer realm="public-data-api"';

/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 6750 §3): the error code and
 * the refusal's own message as `error_description`, so that a client that
 * shows only the header (an MCP client reads a 401 as an OAuth challenge)
 * shows why and how to get a key. The service publishes no OAuth metadata:
 * keys come from the "My API Keys" page, not from an authorization server.
 */
function challenge(error: "invalid_request" | "invalid_token", description: string): string {
  // A quoted-string of RFC 6750 holds printable ASCII but `"` and `\`.
  const safe = description.replace(/[^\x20-\x7e]|["\\]/g, "?");
  return `${REALM}, error="${error}", error_description="${safe}"`;
}

/** JSON-RPC error codes of refusals on `/mcp` (server-defined range, and internal error). */
const MCP_CODES: Record<string, number> = { UNAUTHENTICATED: -32001, FORBIDDEN: -32001, RATE_LIMITED: -32001, SERVICE_UNAVAILABLE: -32000 };

/** How a 429 names the limit it hit. */
const LIMIT_WORDS: Record<LimitName, string> = {
  minute: "minute",
  day: "day",
  "visitor-minute": "minute from one address (the key's per-visitor limit)",
  "visitor-day": "day from one address (the key's per-visitor limit)",
};

/**
 * The client's address: the socket's peer, or, when the peer is a trusted
 * proxy, the address proxy-addr reads from `X-Forwarded-For` (the nearest
 * one that is not itself a trusted proxy).
 */
function clientAddress(call: KeyCall, trust: ((address: string, i: number) => boolean) | undefined): string | undefined {
  if (!trust || !call.address || !call.forwardedFor) return call.address;
  const request = { headers: { "x-forwarded-for": call.forwardedFor }, socket: { remoteAddress: call.address } };
  return proxyAddr(request as unknown as IncomingMessage, trust);
}

export function useApiKeys(options: ApiKeyOptions): ApiKeyGuard {
  const granted = new WeakMap<Request, Record<string, string>>();
  const outcomes = new WeakMap<Request, KeyOutcome>();
  /** The peer address of each request that came over a socket. */
  const addresses = new WeakMap<Request, string>();
  /** The body the lean path read of a request it handed on (src/lean/path.ts `handOn`): parsed, or its bytes. */
  const handedBodies = new WeakMap<Request, unknown>();
  const allowedFailures = options.failedChecksPerMinute ?? 30;
  const failures = new RateLimiterMemory({ keyPrefix: "key-check-failures", points: allowedFailures, duration: 60 });
  const trust = options.trustedProxies?.length ? proxyAddr.compile([...options.trustedProxies]) : undefined;

  async function check(call: KeyCall, surface: Surface): Promise<KeyCheck> {
    // Where a refused client learns how to get a key: the landing page of the address it asked.
    const howToGetAKey = () => `how to get a key: ${call.origin()}/`;
    const outcome: KeyOutcome = {};
    const refuse = (refusal: KeyRefusal, status: number, message: string, code: string, headers: Record<string, string> = {}): KeyCheck => {
      outcome.refusal = refusal;
      return {
        outcome,
        refusal: { status, body: refusalBody(surface, message, { graphql: code, rpc: MCP_CODES[code] ?? -32603 }), headers },
      };
    };
    const presented = bearerKey(call.authorization ?? null);
    if ("problem" in presented && presented.problem === "missing") {
      const message = `an API key is required: send Authorization: Bearer <API_KEY>; ${howToGetAKey()}`;
      return refuse("missing", 401, message, "UNAUTHENTICATED", {
        "www-authenticate": challenge("invalid_token", message),
      });
    }
    const address = clientAddress(call, trust);
    const failed = address ? await failures.get(address) : null;
    if (failed && failed.consumedPoints >= allowedFailures) {
      const retry = Math.max(1, Math.ceil(failed.msBeforeNext / 1000));
      return refuse("failed_checks", 429, `too many failed API key checks from this address; retry in ${retry} s`, "RATE_LIMITED", {
        "retry-after": String(retry),
      });
    }
    const fail = async () => {
      if (address) await failures.penalty(address, 1);
    };
    if ("problem" in presented) {
      await fail();
      const message = "malformed Authorization header: expected Bearer <API_KEY>";
      return refuse("malformed", 401, message, "UNAUTHENTICATED", {
        "www-authenticate": challenge("invalid_request", message),
      });
    }
    let decision: Awaited<ReturnType<ApiKeyOptions["limits"]["take"]>>;
    try {
      const verified = await options.keys.verify(presented.key);
      if ("refused" in verified) {
        await fail();
        const message =
          verified.refused === "expired"
            ? `this API key expired at ${verified.at.toISOString()}; its holder can set a later expiry or create another key; ${howToGetAKey()}`
            : verified.refused === "rolled"
              ? `this API key's secret was replaced by a new one (rolled) and stopped working at ${verified.at.toISOString()}: use the new secret; ${howToGetAKey()}`
              : `invalid or revoked API key; ${howToGetAKey()}`;
        return refuse(verified.refused, 401, message, "UNAUTHENTICATED", {
          "www-authenticate": challenge("invalid_token", message),
        });
      }
      const { key, restrictions } = verified;
      outcome.keyId = key.id;
      // Most keys have no restriction: nothing more is read of the request.
      let restricted = restrictions.guarded
        ? refusalOf(restrictions, { surface, origin: call.originHeader, referer: call.referer, address })
        : undefined;
      const documentsOnly = surface === "graphql" && key.restrictions.documentsOnly;
      if (!restricted && documentsOnly && !documentAllowed(await call.document?.(), verified.documents, options.trustedDocuments)) {
        restricted = { restriction: "document", message: DOCUMENT_REFUSAL };
      }
      if (restricted) {
        // Counted for the key by the access log, and as a failed check of the address.
        await fail();
        return refuse(restricted.restriction, 403, restricted.message, "FORBIDDEN");
      }
      if (documentsOnly) outcome.documentsOnly = { own: verified.documents };
      const { visitorPerMinute, visitorPerDay } = key.restrictions;
      const visitor =
        visitorPerMinute || visitorPerDay
          ? { id: visitorOf(address) ?? "unknown", perMinute: visitorPerMinute, perDay: visitorPerDay }
          : undefined;
      decision = await options.limits.take(key.id, key, visitor);
    } catch (error) {
      options.onError?.(error, call);
      return isUnavailable(error)
        ? refuse("unavailable", 503, UNAVAILABLE_MESSAGE, "SERVICE_UNAVAILABLE", { "retry-after": String(RETRY_AFTER_SECONDS) })
        : refuse("error", 500, "internal error", "INTERNAL_SERVER_ERROR");
    }
    const headers = limitHeaders(decision, decision.at);
    if (!decision.allowed) {
      const limit = decision.limits[decision.refusedBy];
      return refuse(
        decision.refusedBy,
        429,
        `rate limit exceeded: ${limit} requests per ${LIMIT_WORDS[decision.refusedBy]}; retry in ${decision.retryAfterSeconds} s`,
        "RATE_LIMITED",
        headers,
      );
    }
    return { outcome, headers };
  }

  /**
   * The document a GraphQL request names: read from its URL, from the body
   * the lean path read and handed on with it, or from a copy of its body
   * (yoga reads the body itself later).
   */
  async function documentOf(request: Request): Promise<string | undefined> {
    const handed = handedBodies.get(request);
    const params =
      request.method === "GET"
        ? Object.fromEntries(new URL(request.url).searchParams)
        : handed !== undefined
          ? Buffer.isBuffer(handed)
            ? parsedOrUndefined(handed.toString("utf8"))
            : handed
          : await request
              .clone()
              .json()
              .catch(() => undefined);
    return params && typeof params === "object" ? documentHashOf(params, sha256Hex) : undefined;
  }

  async function authorize(request: Request, surface: Surface): Promise<Response | undefined> {
    const checked = await check(
      {
        authorization: request.headers.get("authorization"),
        origin: () => new URL(request.url).origin,
        address: addresses.get(request),
        originHeader: request.headers.get("origin"),
        referer: request.headers.get("referer"),
        forwardedFor: trust ? request.headers.get("x-forwarded-for") : undefined,
        requestId: requestIdOf(request),
        document: surface === "graphql" ? () => documentOf(request) : undefined,
      },
      surface,
    );
    outcomes.set(request, checked.outcome);
    if (checked.refusal) return jsonAnswer(checked.refusal.status, checked.refusal.body, checked.refusal.headers);
    if (checked.headers) granted.set(request, checked.headers);
    return undefined;
  }

  const plugin: Plugin = {
    async onRequest({ request, url, endResponse, serverContext }) {
      const nodeRequest = (serverContext as { req?: { socket?: { remoteAddress?: string }; body?: unknown } }).req;
      const address = nodeRequest?.socket?.remoteAddress;
      if (address) addresses.set(request, address);
      if (nodeRequest?.body !== undefined) handedBodies.set(request, nodeRequest.body);
      const before = nodeRequest && checkedBefore.get(nodeRequest);
      if (before) {
        outcomes.set(request, before.outcome);
        if (before.headers) granted.set(request, before.headers);
        return;
      }
      // REST routes call `authorize` themselves, after routing.
      const owner = ownerOf(url.pathname);
      const surface = owner === "graphql" || owner === "mcp" ? owner : undefined;
      if (!surface || (surface === "graphql" && isGraphiQLPage(request, url))) return;
      const refusal = await authorize(request, surface);
      if (refusal) endResponse(refusal);
    },
    // A documents-only key's document was checked with its key; one of its own sent by id is given its text here.
    onParams({ request, params, setParams }) {
      const outcome = outcomes.get(request);
      if (!outcome?.documentsOnly) return;
      const { own } = outcome.documentsOnly;
      const hash = documentHashOf(params as Parameters<typeof documentHashOf>[0], sha256Hex);
      if (!documentAllowed(hash, own, options.trustedDocuments)) {
        outcome.refusal = "document";
        throw new GraphQLError(DOCUMENT_REFUSAL, { extensions: { code: "FORBIDDEN", http: { status: 403 } } });
      }
      const text = own?.get(hash!);
      if (text !== undefined && typeof params.query !== "string") setParams({ ...params, query: text });
    },
    onResponse({ request, response }) {
      const headers = granted.get(request);
      if (headers) for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    },
  };
  return { plugin, authorize, check, outcomeOf: (request) => outcomes.get(request) };
}
