/**
 * A key's restrictions as plain functions (src/keys/restrictions.ts): how
 * origins, address ranges and surfaces are written and refused when wrong,
 * which requests each lets through, the visitor a per-visitor limit counts,
 * and the document hash a documents-only key is held to.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  compileRestrictions,
  documentAllowed,
  documentHashOf,
  normalizeList,
  normalizeOrigin,
  normalizeRange,
  normalizeSurface,
  type RequestFacts,
  type Restrictions,
  RestrictionError,
  refusalOf,
  UNRESTRICTED,
  visitorOf,
} from "../../src/keys/restrictions.js";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const facts = (over: Partial<RequestFacts> = {}): RequestFacts => ({
  surface: "rest",
  origin: null,
  referer: null,
  address: "203.0.113.7",
  ...over,
});
const refused = (r: Partial<Restrictions>, request: Partial<RequestFacts>) =>
  refusalOf(compileRestrictions({ ...UNRESTRICTED, ...r }), facts(request))?.restriction;

describe("writing restrictions", () => {
  it("origins: scheme and host as browsers send them, or a subdomain pattern", () => {
    expect(normalizeOrigin("https://App.Example.org")).toBe("https://app.example.org");
    expect(normalizeOrigin("https://app.example.org:443/")).toBe("https://app.example.org");
    expect(normalizeOrigin("http://localhost:5173")).toBe("http://localhost:5173");
    expect(normalizeOrigin("https://*.Example.org")).toBe("https://*.example.org");
    for (const bad of ["app.example.org", "ftp://x.org", "https://x.org/path", "https://u:p@x.org", "https://*", "https://x.org?q", "*"]) {
      expect(() => normalizeOrigin(bad), bad).toThrow(RestrictionError);
    }
  });

  it("address ranges: an address or a CIDR range, IPv4 or IPv6", () => {
    expect(normalizeRange("203.0.113.0/24")).toBe("203.0.113.0/24");
    expect(normalizeRange("203.0.113.7")).toBe("203.0.113.7/32");
    expect(normalizeRange("2001:DB8::/32")).toBe("2001:db8::/32");
    for (const bad of ["203.0.113.0/33", "2001:db8::/129", "example.org", "10.0.0/8", ""]) {
      expect(() => normalizeRange(bad), bad).toThrow(RestrictionError);
    }
  });

  it("surfaces by name; lists lose repeats and blanks, and an empty list is no restriction", () => {
    expect(normalizeSurface(" GraphQL ")).toBe("graphql");
    expect(() => normalizeSurface("soap")).toThrow("a surface is one of rest, graphql and mcp");
    expect(normalizeList(["rest", "REST", " ", "mcp"], normalizeSurface, "surfaces")).toEqual(["rest", "mcp"]);
    expect(normalizeList([], normalizeSurface, "surfaces")).toBeNull();
    expect(normalizeList(null, normalizeSurface, "surfaces")).toBeNull();
    const many = Array.from({ length: 101 }, (_, i) => `10.0.${i}.0/24`);
    expect(() => normalizeList(many, normalizeRange, "address ranges")).toThrow("at most 100 address ranges");
  });
});

describe("what each restriction lets through", () => {
  it("no restriction refuses nothing", () => {
    expect(refused({}, { address: undefined })).toBeUndefined();
  });

  it("surfaces", () => {
    expect(refused({ surfaces: ["graphql"] }, { surface: "graphql" })).toBeUndefined();
    expect(refused({ surfaces: ["graphql"] }, { surface: "rest" })).toBe("surface");
    expect(refusalOf(compileRestrictions({ ...UNRESTRICTED, surfaces: ["rest", "mcp"] }), facts({ surface: "graphql" }))?.message).toBe(
      "this API key may not be used on GraphQL: it is restricted to REST and MCP",
    );
  });

  it("origins: Origin, else Referer's origin; none named is refused; a pattern takes subdomains only", () => {
    const origins = { origins: ["https://app.example.org", "https://*.pages.example.net", "http://localhost:5173"] };
    expect(refused(origins, { origin: "https://app.example.org" })).toBeUndefined();
    expect(refused(origins, { origin: "https://APP.example.org:443" })).toBeUndefined();
    expect(refused(origins, { referer: "https://app.example.org/courses?x=1" })).toBeUndefined();
    expect(refused(origins, { origin: "https://team.pages.example.net" })).toBeUndefined();
    expect(refused(origins, { origin: "https://pages.example.net" })).toBe("origin");
    expect(refused(origins, { origin: "http://team.pages.example.net" })).toBe("origin");
    expect(refused(origins, { origin: "http://localhost:5174" })).toBe("origin");
    expect(refused(origins, { origin: "https://app.example.org.evil.test" })).toBe("origin");
    expect(refused(origins, {})).toBe("origin");
    // `Origin: null` (a sandboxed frame, a file) names no origin; its Referer is read instead.
    expect(refused(origins, { origin: "null" })).toBe("origin");
    expect(refused(origins, { origin: "null", referer: "https://app.example.org/" })).toBeUndefined();
    const message = refusalOf(compileRestrictions({ ...UNRESTRICTED, ...origins }), facts({ origin: "https://evil.test" }))?.message;
    expect(message).toBe(
      "this API key may be used only from web pages on its allowed origins, and this request came from https://evil.test",
    );
    expect(message).not.toContain("app.example.org");
  });

  it("addresses: in a range, IPv4-mapped IPv6 read as IPv4, an unknown address refused", () => {
    const addresses = { addresses: ["203.0.113.0/24", "2001:db8::/32"] };
    expect(refused(addresses, { address: "203.0.113.200" })).toBeUndefined();
    expect(refused(addresses, { address: "::ffff:203.0.113.9" })).toBeUndefined();
    expect(refused(addresses, { address: "2001:db8:1::5" })).toBeUndefined();
    expect(refused(addresses, { address: "198.51.100.1" })).toBe("address");
    expect(refused(addresses, { address: "2001:db9::1" })).toBe("address");
    expect(refused(addresses, { address: undefined })).toBe("address");
  });

  it("one key's checks give the same answers when asked again, past the addresses it remembers", () => {
    const compiled = compileRestrictions({ ...UNRESTRICTED, addresses: ["203.0.113.0/24"], origins: ["https://app.example.org"] });
    const ask = (address: string, origin: string) => refusalOf(compiled, facts({ address, origin }))?.restriction;
    // 3,256 addresses, past the 1,024 a key remembers, each asked twice in turn.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 3_000; i++) {
        const inside = `203.0.113.${i % 256}`;
        const outside = `198.51.${Math.floor(i / 256)}.${i % 256}`;
        expect(ask(inside, "https://app.example.org"), inside).toBeUndefined();
        expect(ask(outside, "https://app.example.org"), outside).toBe("address");
        expect(ask(inside, "https://evil.test"), inside).toBe("origin");
        expect(ask(inside, "https://APP.example.org:443"), inside).toBeUndefined();
      }
    }
    expect(compiled.addressesSeen.size).toBeLessThanOrEqual(1_024);
  });
});

describe("visitors and documents", () => {
  it("a visitor is its address; an IPv6 one its /64", () => {
    expect(visitorOf("203.0.113.7")).toBe("203.0.113.7");
    expect(visitorOf("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(visitorOf("2001:db8:aa:bb:1:2:3:4")).toBe("2001:db8:aa:bb::/64");
    expect(visitorOf("2001:db8:aa:bb::9")).toBe("2001:db8:aa:bb::/64");
    expect(visitorOf("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(visitorOf("::1")).toBe("0:0:0:0::/64");
    expect(visitorOf(undefined)).toBeUndefined();
  });

  it("the document a request names: its text's hash, else its id or persisted hash", () => {
    const text = "{ universities(first: 1) { totalCount } }";
    const hash = sha256(text);
    expect(documentHashOf({ query: text }, sha256)).toBe(hash);
    expect(documentHashOf({ documentId: `sha256:${hash}` }, sha256)).toBe(hash);
    expect(documentHashOf({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }, sha256)).toBe(hash);
    // A GET's extensions are JSON text.
    expect(documentHashOf({ extensions: JSON.stringify({ persistedQuery: { sha256Hash: hash } }) }, sha256)).toBe(hash);
    expect(documentHashOf({ extensions: "{" }, sha256)).toBeUndefined();
    expect(documentHashOf({}, sha256)).toBeUndefined();
  });

  it("a documents-only key runs its own set when it has one, else the gateway's trusted documents", () => {
    const own = new Set(["a"]);
    const trusted = new Map([["b", "{ x }"]]);
    expect(documentAllowed("a", own, trusted)).toBe(true);
    expect(documentAllowed("b", own, trusted)).toBe(false);
    expect(documentAllowed("b", null, trusted)).toBe(true);
    expect(documentAllowed("a", null, undefined)).toBe(false);
    expect(documentAllowed(undefined, own, trusted)).toBe(false);
  });
});
