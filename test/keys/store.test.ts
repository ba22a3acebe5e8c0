/**
 * KeyStore on an embedded database: the secret exists only in create's
 * answer, the table holds its SHA-256; find / revoke / setLimits; and verify
 * through its cache (revocations seen once the cache expires, no database
 * round trip on the hot path).
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { generateKey } from "../../src/keys/secret.js";
import { KeyError, KeyStore, type Verification } from "../../src/keys/store.js";
import { freshDatabase } from "../support/databases.js";

const INVALID = { refused: "invalid" };
/** The key a verification accepted, or undefined. */
const keyOf = (verified: Verification) => ("key" in verified ? verified.key : undefined);
const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);

let db: Database;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.close());

/** A database whose statements are counted (and optionally recorded). */
function counting(inner: Database) {
  const statements: string[] = [];
  const wrapped: Pick<Database, "query" | "transaction"> = {
    query: <Row>(sql: string, params?: unknown[]) => {
      statements.push(sql);
      return inner.query<Row>(sql, params);
    },
    transaction: (work) => inner.transaction(work),
  };
  return { db: wrapped, statements };
}

describe("create and list", () => {
  it("returns the key once; the table holds only its SHA-256", async () => {
    const store = new KeyStore(db);
    const created = await store.create({ name: " ci ", owner: "ops@example.org", perMinute: 10, perDay: 100 });
    expect(Object.keys(created).sort()).toEqual(["id", "key", "prefix"]);
    expect(created.key).toMatch(/^uedu_[0-9A-Za-z]{40}$/);
    expect(created.prefix).toBe(created.key.slice(0, 13));
    expect(typeof created.id).toBe("number");

    const rows = await db.query<Record<string, unknown>>(`SELECT * FROM api_key WHERE id = $1`, [created.id]);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(Object.keys(row).sort()).toEqual(
      [
        "allowed_addresses",
        "allowed_origins",
        "allowed_surfaces",
        "created_at",
        "documents_only",
        "expires_at",
        "hash",
        "id",
        "last_used_at",
        "name",
        "owner",
        "per_day",
        "per_minute",
        "prefix",
        "previous_hash",
        "previous_until",
        "revoked_at",
        "rolled_at",
        "visitor_per_day",
        "visitor_per_minute",
      ].sort(),
    );
    expect(row.hash).toBe(sha256(created.key));
    expect(row.prefix).toBe(created.prefix);
    expect(row.name).toBe("ci");
    expect(row.owner).toBe("ops@example.org");
    expect(row.per_minute).toBe(10);
    expect(row.per_day).toBe(100);
    expect(row.revoked_at).toBeNull();

    // The secret appears in no column, whole or in its secret part.
    const secretPart = created.key.slice(13);
    for (const [column, value] of Object.entries(row)) {
      const text = value instanceof Date ? value.toISOString() : String(value);
      expect(text, column).not.toContain(created.key);
      expect(text, column).not.toContain(secretPart);
    }
    const everything = JSON.stringify(await db.query(`SELECT * FROM api_key`));
    expect(everything).not.toContain(created.key);
    expect(everything).not.toContain(secretPart);
  });

  it("each key is different", async () => {
    const store = new KeyStore(db);
    const a = await store.create({ name: "a" });
    const b = await store.create({ name: "b" });
    expect(a.key).not.toBe(b.key);
    expect(b.id).toBe(a.id + 1);
  });

  it("list has no secret and no hash", async () => {
    const store = new KeyStore(db);
    const created = await store.create({ name: "listed" });
    const all = await store.list();
    expect(all.map((k) => k.id)).toEqual([...all.map((k) => k.id)].sort((x, y) => x - y));
    const listed = all.find((k) => k.id === created.id)!;
    expect(listed).toMatchObject({ prefix: created.prefix, name: "listed", owner: null, revokedAt: null, perMinute: null, perDay: null });
    expect(listed.createdAt).toBeInstanceOf(Date);
    expect(Object.keys(listed).sort()).toEqual(
      [
        "createdAt",
        "expiresAt",
        "id",
        "lastUsedAt",
        "name",
        "owner",
        "perDay",
        "perMinute",
        "prefix",
        "previousUntil",
        "restrictions",
        "revokedAt",
        "rolledAt",
      ].sort(),
    );
    const text = JSON.stringify(all);
    expect(text).not.toContain(created.key);
    expect(text).not.toContain(created.key.slice(13));
    expect(text).not.toContain(sha256(created.key));
  });

  it("refuses an empty name", async () => {
    const store = new KeyStore(db);
    await expect(store.create({ name: "  " })).rejects.toThrow(KeyError);
  });
});

describe("find, revoke, setLimits", () => {
  it("finds a key by id and by prefix", async () => {
    const store = new KeyStore(db);
    const created = await store.create({ name: "findable" });
    const byId = await store.find(String(created.id));
    const byPrefix = await store.find(created.prefix);
    expect(byId.id).toBe(created.id);
    expect(byId.name).toBe("findable");
    expect(byPrefix).toEqual(byId);
  });

  it("an unknown reference is a KeyError naming it", async () => {
    const store = new KeyStore(db);
    await expect(store.find("99999")).rejects.toThrow(new KeyError('no API key with id or prefix "99999"'));
    await expect(store.find("uedu_nothere")).rejects.toThrow(new KeyError('no API key with id or prefix "uedu_nothere"'));
    await expect(store.revoke("99999")).rejects.toBeInstanceOf(KeyError);
    await expect(store.setLimits("99999", { perDay: 5 })).rejects.toBeInstanceOf(KeyError);
  });

  it("revokes (idempotently, keeping the first revocation time)", async () => {
    const store = new KeyStore(db);
    const created = await store.create({ name: "revocable" });
    const revoked = await store.revoke(String(created.id));
    expect(revoked.id).toBe(created.id);
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    const again = await store.revoke(created.prefix);
    expect(again.revokedAt!.getTime()).toBe(revoked.revokedAt!.getTime());
    expect((await store.find(String(created.id))).revokedAt!.getTime()).toBe(revoked.revokedAt!.getTime());
  });

  it("sets limits, keeps the one not given, and null clears", async () => {
    const store = new KeyStore(db);
    const created = await store.create({ name: "limited" });
    const ref = String(created.id);
    expect(await store.setLimits(ref, { perMinute: 30 })).toMatchObject({ perMinute: 30, perDay: null });
    expect(await store.setLimits(ref, { perDay: 500 })).toMatchObject({ perMinute: 30, perDay: 500 });
    expect(await store.setLimits(created.prefix, { perMinute: null })).toMatchObject({ perMinute: null, perDay: 500 });
    expect(await store.setLimits(ref, { perDay: null })).toMatchObject({ perMinute: null, perDay: null });
    const [row] = await db.query<{ per_minute: number | null; per_day: number | null }>(
      `SELECT per_minute, per_day FROM api_key WHERE id = $1`,
      [created.id],
    );
    expect(row).toEqual({ per_minute: null, per_day: null });
  });

  it("refuses limits that are not positive integers (0, -1, 1.5)", async () => {
    const store = new KeyStore(db);
    const before = (await store.list()).length;
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(store.create({ name: "bad", perMinute: bad })).rejects.toThrow(new KeyError("--per-minute must be a positive integer"));
      await expect(store.create({ name: "bad", perDay: bad })).rejects.toThrow(new KeyError("--per-day must be a positive integer"));
    }
    expect((await store.list()).length).toBe(before);
    const created = await store.create({ name: "kept", perMinute: 7, perDay: 70 });
    for (const bad of [0, -1, 1.5]) {
      await expect(store.setLimits(String(created.id), { perMinute: bad })).rejects.toThrow(/--per-minute must be a positive integer/);
      await expect(store.setLimits(String(created.id), { perDay: bad })).rejects.toThrow(/--per-day must be a positive integer/);
    }
    expect(await store.find(String(created.id))).toMatchObject({ perMinute: 7, perDay: 70 });
  });
});

describe("verify", () => {
  it("a valid key gives its record; an unknown one is invalid", async () => {
    const store = new KeyStore(db);
    const created = await store.create({ name: "valid", owner: "me", perMinute: 9 });
    const record = keyOf(await store.verify(created.key));
    expect(record).toMatchObject({
      id: created.id,
      prefix: created.prefix,
      name: "valid",
      owner: "me",
      perMinute: 9,
      perDay: null,
      revokedAt: null,
    });
    expect(JSON.stringify(record)).not.toContain(created.key);
    expect(JSON.stringify(record)).not.toContain(sha256(created.key));
    expect(await store.verify(generateKey())).toEqual(INVALID);
    // One character off is another key.
    const off = created.key.slice(0, -1) + (created.key.endsWith("a") ? "b" : "a");
    expect(await store.verify(off)).toEqual(INVALID);
  });

  it("a key revoked elsewhere is refused once the cache expires (and not before)", async () => {
    let clock = T0;
    const now = () => clock;
    // Two stores over one database: two gateway processes.
    const admin = new KeyStore(db, { now });
    const gateway = new KeyStore(db, { now, cacheMs: 3_000 });
    const created = await admin.create({ name: "revoked-elsewhere" });
    expect(keyOf(await gateway.verify(created.key))?.id).toBe(created.id);

    await admin.revoke(String(created.id));
    clock = T0 + 2_999;
    expect(keyOf(await gateway.verify(created.key))?.id).toBe(created.id); // still cached
    clock = T0 + 3_000;
    expect(await gateway.verify(created.key)).toEqual(INVALID);
    clock = T0 + 10_000;
    expect(await gateway.verify(created.key)).toEqual(INVALID);
  });

  it("a key revoked through the same store is refused at once", async () => {
    const store = new KeyStore(db, { now: () => T0 });
    const created = await store.create({ name: "revoked-here" });
    expect(keyOf(await store.verify(created.key))?.id).toBe(created.id);
    await store.revoke(created.prefix);
    expect(await store.verify(created.key)).toEqual(INVALID);
  });

  it("new limits are seen once the cache expires", async () => {
    let clock = T0;
    const admin = new KeyStore(db);
    const gateway = new KeyStore(db, { now: () => clock, cacheMs: 3_000 });
    const created = await admin.create({ name: "relimited" });
    expect(keyOf(await gateway.verify(created.key))?.perDay).toBeNull();
    await admin.setLimits(String(created.id), { perDay: 42 });
    clock += 3_000;
    expect(keyOf(await gateway.verify(created.key))?.perDay).toBe(42);
  });

  it("the hot path makes no database round trip: 100 verifications cost one SELECT (+ one last_used_at update)", async () => {
    const created = await new KeyStore(db).create({ name: "hot" });
    let clock = T0;
    const { db: counted, statements } = counting(db);
    const store = new KeyStore(counted, { now: () => clock, cacheMs: 3_000, touchEveryMs: 60_000 });
    for (let i = 0; i < 100; i++) {
      clock = T0 + i * 20; // 0 .. 1,980 ms: within the cache time
      expect(keyOf(await store.verify(created.key))?.id).toBe(created.id);
    }
    const selects = statements.filter((s) => /^\s*SELECT/i.test(s));
    const updates = statements.filter((s) => /^\s*UPDATE/i.test(s));
    expect(selects).toHaveLength(1);
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatch(/last_used_at/);
    expect(statements).toHaveLength(2);

    // After the cache time, one more SELECT; the touch is throttled to once a minute.
    clock = T0 + 3_000;
    await store.verify(created.key);
    expect(statements).toHaveLength(3);
    clock = T0 + 60_000;
    await store.verify(created.key);
    expect(statements.filter((s) => /^\s*SELECT/i.test(s))).toHaveLength(3);
    expect(statements.filter((s) => /^\s*UPDATE/i.test(s))).toHaveLength(2);

    // last_used_at was written (in the background: the verification does not wait for it).
    await expect.poll(async () => (await new KeyStore(db).find(String(created.id))).lastUsedAt, { timeout: 10_000 }).toBeInstanceOf(Date);
  });

  it("unknown keys are cached too (a flood of bad keys does not reach the database)", async () => {
    const { db: counted, statements } = counting(db);
    const store = new KeyStore(counted, { now: () => T0 });
    const bad = generateKey();
    for (let i = 0; i < 50; i++) expect(await store.verify(bad)).toEqual(INVALID);
    expect(statements).toHaveLength(1);
  });
});

describe("expiry", () => {
  const DAY = 86_400_000;

  it("an expired key is refused as expired at its instant, even while its verification is cached", async () => {
    let clock = T0;
    const { db: counted, statements } = counting(db);
    const store = new KeyStore(counted, { now: () => clock, cacheMs: 3_000 });
    const expiresAt = new Date(T0 + 10_000);
    const created = await store.create({ name: "expiring", expiresAt });
    expect((await store.find(String(created.id))).expiresAt).toEqual(expiresAt);
    clock = T0 + 8_000;
    expect(keyOf(await store.verify(created.key))?.expiresAt).toEqual(expiresAt);
    const before = statements.length;
    clock = T0 + 9_999;
    expect(keyOf(await store.verify(created.key))?.id).toBe(created.id);
    clock = T0 + 10_000;
    // Within the cache time: refused by the clock, with no lookup.
    expect(await store.verify(created.key)).toEqual({ refused: "expired", at: expiresAt });
    expect(statements.slice(before).filter((s) => /^\s*SELECT/i.test(s))).toHaveLength(0);
    clock = T0 + DAY;
    expect(await store.verify(created.key)).toEqual({ refused: "expired", at: expiresAt });
  });

  it("an expiry must be in the future; a refused one changes nothing", async () => {
    const store = new KeyStore(db, { now: () => T0 });
    const count = (await store.list()).length;
    for (const bad of [new Date(T0), new Date(T0 - 1), new Date(Number.NaN)]) {
      await expect(store.create({ name: "past", expiresAt: bad })).rejects.toBeInstanceOf(KeyError);
    }
    expect((await store.list()).length).toBe(count);
    const created = await store.create({ name: "later", expiresAt: new Date(T0 + DAY) });
    await expect(store.setExpiry(String(created.id), new Date(T0 - DAY))).rejects.toThrow(/--expires must be in the future/);
    expect((await store.find(String(created.id))).expiresAt).toEqual(new Date(T0 + DAY));
  });

  it("a later expiry, or none, makes an expired key work again; seen at once by the store that set it", async () => {
    let clock = T0;
    const store = new KeyStore(db, { now: () => clock });
    const created = await store.create({ name: "extended", expiresAt: new Date(T0 + 1_000) });
    clock = T0 + 2_000;
    expect(await store.verify(created.key)).toMatchObject({ refused: "expired" });
    expect((await store.setExpiry(created.prefix, new Date(T0 + DAY))).expiresAt).toEqual(new Date(T0 + DAY));
    expect(keyOf(await store.verify(created.key))?.id).toBe(created.id);
    expect((await store.setExpiry(String(created.id), null)).expiresAt).toBeNull();
    clock = T0 + 400 * DAY;
    expect(keyOf(await store.verify(created.key))?.id).toBe(created.id);
  });

  it("listExpiring: the active keys expiring within the window, soonest first; not the expired, revoked or later ones", async () => {
    // Its own instant, years from the other tests' keys.
    const T1 = Date.UTC(2031, 0, 1);
    const store = new KeyStore(db, { now: () => T1 - 3 * DAY });
    const soon = await store.create({ name: "in 6 days", expiresAt: new Date(T1 + 3 * DAY) });
    const sooner = await store.create({ name: "in 1 day", expiresAt: new Date(T1 - 2 * DAY) });
    await store.create({ name: "in 8 days", expiresAt: new Date(T1 + 5 * DAY) });
    const revoked = await store.create({ name: "revoked", expiresAt: new Date(T1) });
    await store.revoke(String(revoked.id));
    const gone = await store.create({ name: "gone", expiresAt: new Date(T1 - 3 * DAY + 1) });
    const later = new KeyStore(db, { now: () => T1 - 3 * DAY + 2 });
    expect((await later.listExpiring(7 * DAY)).map((k) => k.id)).toEqual([sooner.id, soon.id]);
    expect((await later.listExpiring(7 * DAY)).map((k) => k.id)).not.toContain(gone.id);
  });

  it("an account changes only its own keys' expiry", async () => {
    const store = new KeyStore(db, { now: () => T0 });
    const { id } = await store.createOwned("alice", "hers", 5, new Date(T0 + DAY));
    expect(await store.setExpiryOwned("mallory", id, null)).toBeNull();
    expect((await store.find(String(id))).expiresAt).toEqual(new Date(T0 + DAY));
    expect((await store.setExpiryOwned("alice", id, null))?.expiresAt).toBeNull();
  });
});

describe("roll", () => {
  const HOUR = 3_600_000;

  it("a new secret for the same key; the old one works through the overlap, then is refused as rolled", async () => {
    let clock = T0;
    const store = new KeyStore(db, { now: () => clock });
    const created = await store.create({ name: "rolled", owner: "bob", perMinute: 7, perDay: 70 });
    const before = await store.find(String(created.id));
    const rolled = await store.roll(created.prefix, HOUR);
    expect(rolled.key).toMatch(/^uedu_[0-9A-Za-z]{40}$/);
    expect(rolled.key).not.toBe(created.key);
    expect(rolled.previousPrefix).toBe(created.prefix);
    expect(rolled.record).toMatchObject({
      id: created.id,
      name: "rolled",
      owner: "bob",
      perMinute: 7,
      perDay: 70,
      createdAt: before.createdAt,
      prefix: rolled.key.slice(0, 13),
      rolledAt: new Date(T0),
      previousUntil: new Date(T0 + HOUR),
    });
    // Only hashes are stored: the new secret's, and the old one's while it works.
    const [row] = await db.query<Record<string, unknown>>(`SELECT * FROM api_key WHERE id = $1`, [created.id]);
    expect(row!.hash).toBe(sha256(rolled.key));
    expect(row!.previous_hash).toBe(sha256(created.key));
    expect(JSON.stringify(row)).not.toContain(rolled.key.slice(13));

    expect(await store.verify(rolled.key)).toMatchObject({ key: { id: created.id }, previous: false });
    clock = T0 + HOUR - 1;
    expect(await store.verify(created.key)).toMatchObject({ key: { id: created.id }, previous: true });
    clock = T0 + HOUR;
    expect(await store.verify(created.key)).toEqual({ refused: "rolled", at: new Date(T0 + HOUR) });
    expect(keyOf(await store.verify(rolled.key))?.id).toBe(created.id);
    // The new prefix finds the key; the old one no longer does.
    expect((await store.find(rolled.record.prefix)).id).toBe(created.id);
    await expect(store.find(created.prefix)).rejects.toBeInstanceOf(KeyError);
  });

  it("with no overlap the old secret is refused at once; a second roll ends the first one's overlap", async () => {
    const store = new KeyStore(db, { now: () => T0 });
    const created = await store.create({ name: "rolled twice" });
    expect(keyOf(await store.verify(created.key))?.id).toBe(created.id); // cached
    const first = await store.roll(String(created.id), 0);
    expect(await store.verify(created.key)).toEqual({ refused: "rolled", at: new Date(T0) });
    const second = await store.roll(String(created.id), 24 * HOUR);
    expect(keyOf(await store.verify(first.key))?.id).toBe(created.id);
    const third = await store.roll(String(created.id), 24 * HOUR);
    // Only the last replaced secret is kept.
    expect(await store.verify(first.key)).toEqual(INVALID);
    expect(await store.verify(second.key)).toMatchObject({ previous: true });
    expect(await store.verify(third.key)).toMatchObject({ previous: false });
  });

  it("a revoked or expired key is not rolled, nor an overlap past 7 days; nothing changes", async () => {
    let clock = T0;
    const store = new KeyStore(db, { now: () => clock });
    const revoked = await store.create({ name: "revoked" });
    await store.revoke(String(revoked.id));
    await expect(store.roll(String(revoked.id), 0)).rejects.toThrow(`key ${revoked.id} is revoked: it cannot be rolled`);
    const expiring = await store.create({ name: "expiring", expiresAt: new Date(T0 + 1_000) });
    clock = T0 + 1_000;
    await expect(store.roll(String(expiring.id), 0)).rejects.toThrow(/expired at .*: set a later expiry before rolling it/);
    const kept = await store.create({ name: "kept" });
    for (const bad of [-1, 7 * 24 * HOUR + 1, 1.5, Number.NaN]) {
      await expect(store.roll(String(kept.id), bad)).rejects.toThrow("the overlap must be from none to 7 days");
    }
    for (const id of [revoked.id, expiring.id, kept.id]) {
      const [row] = await db.query<{ rolled_at: Date | null; previous_hash: string | null }>(
        `SELECT rolled_at, previous_hash FROM api_key WHERE id = $1`,
        [id],
      );
      expect(row).toEqual({ rolled_at: null, previous_hash: null });
    }
    expect(keyOf(await store.verify(kept.key))?.id).toBe(kept.id);
  });

  it("an account rolls only its own keys", async () => {
    const store = new KeyStore(db, { now: () => T0 });
    const { id, key } = await store.createOwned("carol", "hers", 5);
    expect(await store.rollOwned("mallory", id, 0)).toBeNull();
    expect(keyOf(await store.verify(key))?.id).toBe(id);
    const rolled = await store.rollOwned("carol", id, 0);
    expect(rolled?.record.id).toBe(id);
    expect(await store.verify(key)).toMatchObject({ refused: "rolled" });
  });
});
