/**
 * The form of an API key: `uedu_` + 40 base62 characters (238 bits of
 * randomness). The fixed prefix makes a leaked key easy to spot by secret
 * scanners, as GitHub's `ghp_` and Stripe's `sk_live_` do.
 */
import { randomBytes } from "node:crypto";
import { sha256Hex } from "../sha256.js";

export const KEY_PREFIX = "uedu_";
const BODY_LENGTH = 40;
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH}}$`);
/** Characters of the key shown in lists: the prefix and 8 of the secret. */
const DISPLAY_LENGTH = KEY_PREFIX.length + 8;

/** A new random key (rejection sampling keeps every character uniform). */
export function generateKey(): string {
  let body = "";
  while (body.length < BODY_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && body.length < BODY_LENGTH) body += ALPHABET[byte % 62];
    }
  }
  return KEY_PREFIX + body;
}

/** Whether a string has the form of a key (says nothing of its validity). */
export function isWellFormed(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** The stored form of a key: its SHA-256, hex. */
export function hashKey(key: string): string {
  return sha256Hex(key);
}

/** The non-secret start of a key, for lists and logs. */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_LENGTH);
}

/**
 * The key of an `Authorization: Bearer <key>` header (scheme
 * case-insensitive), or the reason there is none.
 */
export function bearerKey(header: string | null): { key: string } | { problem: "missing" | "malformed" } {
  if (header === null || header.trim() === "") return { problem: "missing" };
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1] || !isWellFormed(match[1])) return { problem: "malformed" };
  return { key: match[1] };
}
