/**
 * The form of an API key, its stored hash, and reading it from an
 * `Authorization: Bearer <key>` header (src/keys/secret.ts).
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bearerKey, displayPrefix, generateKey, hashKey, isWellFormed, KEY_PREFIX } from "../../src/keys/secret.js";

const FORM = /^uedu_[0-9A-Za-z]{40}$/;

describe("generateKey", () => {
  it("is uedu_ followed by 40 base62 characters", () => {
    expect(KEY_PREFIX).toBe("uedu_");
    for (let i = 0; i < 200; i++) {
      const key = generateKey();
      expect(key).toMatch(FORM);
      expect(key).toHaveLength(45);
      expect(isWellFormed(key)).toBe(true);
    }
  });

  it("never repeats over 1,000 keys, and uses the whole alphabet", () => {
    const keys = Array.from({ length: 1_000 }, generateKey);
    expect(new Set(keys).size).toBe(1_000);
    // 40,000 uniform draws from 62 characters: every one appears (the chance
    // that one is missing is about 62·(61/62)^40000, i.e. zero).
    const seen = new Set(keys.flatMap((k) => [...k.slice(5)]));
    expect(seen.size).toBe(62);
  });
});

describe("hashKey", () => {
  it("is the SHA-256 of the key, as 64 lowercase hex digits", () => {
    const key = generateKey();
    const expected = createHash("sha256").update(key, "utf8").digest("hex");
    expect(hashKey(key)).toBe(expected);
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
    // A known vector, so that the test does not only compare the code with itself.
    expect(hashKey("uedu_0000000000000000000000000000000000000000")).toBe(
      createHash("sha256").update("uedu_0000000000000000000000000000000000000000").digest("hex"),
    );
    expect(hashKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("differs for keys differing in one character", () => {
    const key = generateKey();
    const other = key.slice(0, -1) + (key.endsWith("a") ? "b" : "a");
    expect(hashKey(other)).not.toBe(hashKey(key));
  });
});

describe("displayPrefix", () => {
  it("is uedu_ and the first 8 characters of the secret", () => {
    const key = generateKey();
    expect(displayPrefix(key)).toBe(key.slice(0, 13));
    expect(displayPrefix(key)).toHaveLength(13);
  });
});

describe("bearerKey", () => {
  const key = generateKey();

  it("reads the key of a Bearer header, the scheme in any case", () => {
    expect(bearerKey(`Bearer ${key}`)).toEqual({ key });
    expect(bearerKey(`bearer ${key}`)).toEqual({ key });
    expect(bearerKey(`BEARER ${key}`)).toEqual({ key });
    expect(bearerKey(`BeArEr ${key}`)).toEqual({ key });
    expect(bearerKey(`  Bearer   ${key}  `)).toEqual({ key });
  });

  it("reports a missing or empty header as missing", () => {
    expect(bearerKey(null)).toEqual({ problem: "missing" });
    expect(bearerKey("")).toEqual({ problem: "missing" });
    expect(bearerKey("   ")).toEqual({ problem: "missing" });
  });

  it("reports anything else as malformed", () => {
    for (const header of [
      "Basic x",
      "Basic dXNlcjpwYXNz",
      `Token ${key}`,
      key, // no scheme
      "Bearer",
      "Bearer ",
      `Bearer ${key.slice(0, -1)}`, // 39 characters
      `Bearer ${key}x`, // 41 characters
      `Bearer ${key.replace(/^uedu_/, "uedx_")}`,
      `Bearer ${key.slice(0, -1)}-`, // not base62
      `Bearer ${key.slice(0, -1)}é`,
      `Bearer ${key} ${key}`,
      `Bearer${key}`,
    ]) {
      expect(bearerKey(header), header).toEqual({ problem: "malformed" });
    }
  });
});
