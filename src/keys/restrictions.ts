/**
 * A key's restrictions (docs/api-keys.md, "A key in a web page"): the page
 * origins, the client addresses and the surfaces it may be used from, whether
 * it runs only trusted GraphQL documents, and a limit per visitor (client
 * address). Plain functions over plain values: how each is written and
 * checked. The key check (src/plugins/api-keys.ts) asks {@link refusalOf};
 * the GraphQL layer asks {@link documentAllowed}.
 *
 * What each binds, and what it does not:
 * - **origins** bind browsers, which set `Origin` (and `Referer`) themselves;
 *   any other client can write any header. A request that names no origin is
 *   refused too.
 * - **addresses** bind every client, as far as the address is true: the
 *   socket's peer, or, from a trusted proxy (TRUSTED_PROXIES), the address
 *   it forwards.
 * - **surfaces** and **documents only** bind every client that holds the key.
 */
import { BlockList, isIP } from "node:net";
import type { Surface } from "../refusal.js";
import { DOCUMENT_ID } from "../sha256.js";

/** The surfaces, as restrictions name them. */
export const SURFACES: readonly Surface[] = ["rest", "graphql", "mcp"];

/** How a surface is named in messages. */
export const SURFACE_NAMES: Record<Surface, string> = { rest: "REST", graphql: "GraphQL", mcp: "MCP" };

/** A key's restrictions as stored; null (or false) leaves that side open. */
export interface Restrictions {
  /** Page origins (`https://app.example.org`, `https://*.example.org`) whose requests it takes. */
  origins: string[] | null;
  /** CIDR ranges (`203.0.113.0/24`, `2001:db8::/32`) of the clients it takes. */
  addresses: string[] | null;
  /** The surfaces it may be used on. */
  surfaces: Surface[] | null;
  /** On GraphQL, only trusted documents, by id: its own set, else TRUSTED_DOCUMENTS. */
  documentsOnly: boolean;
  /** Requests one visitor (client address; an IPv6 one by its /64) may make a minute and a day. */
  visitorPerMinute: number | null;
  visitorPerDay: number | null;
}

export const UNRESTRICTED: Restrictions = {
  origins: null,
  addresses: null,
  surfaces: null,
  documentsOnly: false,
  visitorPerMinute: null,
  visitorPerDay: null,
};

/** Which restriction refused a request (403), as metrics and usage count it. */
export type Restriction = "origin" | "address" | "surface" | "document";

/** A restriction written wrong: the message names it and what is allowed. */
export class RestrictionError extends Error {
  override name = "RestrictionError";
}

const MAX_ENTRIES = 100;

/**
 * An origin as a restriction stores it: scheme, host and port as browsers
 * send them (`https://app.example.org`, default port dropped, lower case),
 * or a host pattern whose first label is `*` (`https://*.example.org`),
 * which takes that host's subdomains, not the host itself.
 */
export function normalizeOrigin(text: string): string {
  const trimmed = text.trim();
  const wild = /^(https?):\/\/\*\.([^/]+)$/i.exec(trimmed);
  const url = URL.canParse(wild ? `${wild[1]}://${wild[2]}` : trimmed) ? new URL(wild ? `${wild[1]}://${wild[2]}` : trimmed) : undefined;
  if (
    !url ||
    !["http:", "https:"].includes(url.protocol) ||
    url.username ||
    url.password ||
    !/^[^/]+:\/\/[^/?#]+\/?$/.test(trimmed) ||
    !/^(\[[0-9a-f:.]+\]|[a-z0-9-]+(\.[a-z0-9-]+)*)$/.test(url.hostname) ||
    (wild && url.hostname.split(".").length < 2)
  ) {
    throw new RestrictionError(
      `an origin is a scheme and host like https://app.example.org, http://localhost:5173 or https://*.example.org, got ${JSON.stringify(text)}`,
    );
  }
  return wild ? `${url.protocol}//*.${url.host}` : url.origin;
}

/** A CIDR range as a restriction stores it (`203.0.113.0/24`; an address alone is its own /32 or /128). */
export function normalizeRange(text: string): string {
  const match = /^([^/\s]+)(?:\/(\d{1,3}))?$/.exec(text.trim());
  const family = match ? isIP(match[1]!) : 0;
  const bits = family === 4 ? 32 : 128;
  const prefix = match?.[2] === undefined ? bits : Number(match[2]);
  if (!match || family === 0 || prefix > bits) {
    throw new RestrictionError(
      `an address range is an IP address or a CIDR range like 203.0.113.0/24 or 2001:db8::/32, got ${JSON.stringify(text)}`,
    );
  }
  return `${match[1]!.toLowerCase()}/${prefix}`;
}

/** A surface's name as written (`rest`, `graphql`, `mcp`, any case). */
export function normalizeSurface(text: string): Surface {
  const surface = text.trim().toLowerCase() as Surface;
  if (!SURFACES.includes(surface)) throw new RestrictionError(`a surface is one of rest, graphql and mcp, got ${JSON.stringify(text)}`);
  return surface;
}

/** A list of one kind, each entry normalized, without repeats; empty or null: unrestricted (null). */
export function normalizeList<T extends string>(
  entries: readonly string[] | null,
  normalize: (text: string) => T,
  what: string,
): T[] | null {
  if (entries === null) return null;
  const list = [...new Set(entries.filter((e) => e.trim() !== "").map(normalize))];
  if (list.length > MAX_ENTRIES) throw new RestrictionError(`at most ${MAX_ENTRIES} ${what}`);
  return list.length ? list : null;
}

/** What the restrictions read of one request. */
export interface RequestFacts {
  surface: Surface;
  /** The `Origin` header, if any. */
  origin: string | null | undefined;
  /** The `Referer` header, if any (read when there is no usable `Origin`). */
  referer: string | null | undefined;
  /** The client's address (see TRUSTED_PROXIES). */
  address: string | undefined;
}

/** A key's restrictions, ready to check requests with (made once per cached verification). */
export interface CompiledRestrictions {
  restrictions: Restrictions;
  /** Whether origins, addresses or surfaces are restricted (documents and visitors are checked elsewhere). */
  guarded: boolean;
  origins: { exact: Set<string>; suffixes: { scheme: string; suffix: string; port: string }[] } | null;
  addresses: BlockList | null;
  /**
   * What `addresses` said of each client address seen lately: a BlockList
   * check builds a native SocketAddress each time, which was 3% of a kept
   * answer's CPU for such a key; a page's visitors come back.
   */
  addressesSeen: Map<string, boolean>;
}

/** Client addresses whose check a key remembers; past it, it starts again. */
const ADDRESSES_SEEN = 1_024;

export function compileRestrictions(restrictions: Restrictions): CompiledRestrictions {
  let origins: CompiledRestrictions["origins"] = null;
  if (restrictions.origins) {
    origins = { exact: new Set(), suffixes: [] };
    for (const origin of restrictions.origins) {
      const wild = /^(https?:)\/\/\*\.(.+)$/.exec(origin);
      if (!wild) {
        origins.exact.add(origin);
        continue;
      }
      const host = new URL(`${wild[1]}//${wild[2]}`);
      origins.suffixes.push({ scheme: wild[1]!, suffix: `.${host.hostname}`, port: host.port });
    }
  }
  let addresses: BlockList | null = null;
  if (restrictions.addresses) {
    addresses = new BlockList();
    for (const range of restrictions.addresses) {
      const [address, prefix] = range.split("/") as [string, string];
      addresses.addSubnet(address, Number(prefix), isIP(address) === 4 ? "ipv4" : "ipv6");
    }
  }
  const guarded = origins !== null || addresses !== null || restrictions.surfaces !== null;
  return { restrictions, guarded, origins, addresses, addressesSeen: new Map() };
}

/** The origin a request came from: its `Origin`, else its `Referer`'s origin; null when it names none. */
function requestOrigin(origin: string | null | undefined, referer: string | null | undefined): string | null {
  if (origin && origin !== "null" && URL.canParse(origin)) return new URL(origin).origin;
  if (referer && URL.canParse(referer)) {
    const url = new URL(referer);
    if (url.protocol === "http:" || url.protocol === "https:") return url.origin;
  }
  return null;
}

function originAllowed(allowed: NonNullable<CompiledRestrictions["origins"]>, origin: string): boolean {
  if (allowed.exact.has(origin)) return true;
  const url = new URL(origin);
  return allowed.suffixes.some((s) => s.scheme === url.protocol && s.port === url.port && url.hostname.endsWith(s.suffix));
}

/** The address a BlockList reads: IPv4-mapped IPv6 as IPv4. */
const plainAddress = (address: string) => (address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address);

/** Whether the client at `raw` (as the socket or a trusted proxy gave it) is in the key's ranges. */
function addressAllowed(compiled: CompiledRestrictions, raw: string): boolean {
  const seen = compiled.addressesSeen.get(raw);
  if (seen !== undefined) return seen;
  const address = plainAddress(raw);
  const family = isIP(address);
  const allowed = family !== 0 && compiled.addresses!.check(address, family === 4 ? "ipv4" : "ipv6");
  if (compiled.addressesSeen.size >= ADDRESSES_SEEN) compiled.addressesSeen.clear();
  compiled.addressesSeen.set(raw, allowed);
  return allowed;
}

/** Why a request is outside a key's restrictions (which, and a message that names it), or undefined. */
export function refusalOf(
  compiled: CompiledRestrictions,
  request: RequestFacts,
): { restriction: Restriction; message: string } | undefined {
  if (!compiled.guarded) return undefined;
  const { surfaces } = compiled.restrictions;
  if (surfaces && !surfaces.includes(request.surface)) {
    return {
      restriction: "surface",
      message: `this API key may not be used on ${SURFACE_NAMES[request.surface]}: it is restricted to ${surfaces.map((s) => SURFACE_NAMES[s]).join(" and ")}`,
    };
  }
  if (compiled.addresses && !(request.address && addressAllowed(compiled, request.address))) {
    const address = request.address && plainAddress(request.address);
    return {
      restriction: "address",
      message: `this API key may be used only from its allowed addresses, and this request came from ${address ?? "an unknown address"}`,
    };
  }
  // A browser sends an allowed origin exactly as it is stored (normalizeOrigin): then nothing need be parsed.
  if (compiled.origins && !(request.origin && compiled.origins.exact.has(request.origin))) {
    const origin = requestOrigin(request.origin, request.referer);
    if (!origin || !originAllowed(compiled.origins, origin)) {
      return {
        restriction: "origin",
        message: origin
          ? `this API key may be used only from web pages on its allowed origins, and this request came from ${origin}`
          : "this API key may be used only from web pages on its allowed origins, and this request named none (no Origin or Referer)",
      };
    }
  }
  return undefined;
}

/**
 * The SHA-256 a GraphQL request names its document by: its text's, else its
 * `documentId` (`sha256:<hex>` or bare hex) or `extensions.persistedQuery`'s
 * hash; undefined when it names none.
 */
export function documentHashOf(
  params: { query?: unknown; documentId?: unknown; extensions?: unknown },
  sha256: (text: string) => string,
): string | undefined {
  if (typeof params.query === "string") return sha256(params.query);
  const id = typeof params.documentId === "string" ? DOCUMENT_ID.exec(params.documentId)?.[1] : undefined;
  if (id) return id;
  const extensions = typeof params.extensions === "string" ? parsedOrUndefined(params.extensions) : params.extensions;
  const hash = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | null | undefined)?.persistedQuery?.sha256Hash;
  return typeof hash === "string" && /^[0-9a-f]{64}$/.test(hash) ? hash : undefined;
}

/** JSON text parsed, or undefined when it is not JSON. */
export function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The message of a GraphQL document a documents-only key may not run. */
export const DOCUMENT_REFUSAL =
  "this API key runs only its trusted GraphQL documents, and this document is not one of them: send one of them, by its id or its text";

/**
 * Whether a documents-only key may run the document whose SHA-256 is `hash`:
 * one of its own set when it has one, else one of TRUSTED_DOCUMENTS.
 */
export function documentAllowed(
  hash: string | undefined,
  own: { has(hash: string): boolean } | null,
  trusted: { has(hash: string): boolean } | undefined,
): boolean {
  if (hash === undefined) return false;
  return own ? own.has(hash) : (trusted?.has(hash) ?? false);
}

/**
 * A visitor, as per-visitor limits count them: the client's address, an
 * IPv6 one by its /64 (one subscriber's network, which its devices share and
 * rotate addresses within).
 */
export function visitorOf(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const plain = plainAddress(address);
  if (isIP(plain) !== 6) return plain;
  const [head, tail] = plain.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g || "0", 16).toString(16))
    .join(":")}::/64`;
}
