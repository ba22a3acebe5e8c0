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
import { KeyError, KeyStore } from "../../src/keys/store.js";
import { freshDatabase } from "../support/databases.js";

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
      ["created_at", "hash", "id", "last_used_at", "name", "owner", "per_day", "per_minute", "prefix", "revoked_at"].sort(),
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
      ["createdAt", "id", "lastUsedAt", "name", "owner", "perDay", "perMinute", "prefix", "revokedAt"].sort(),
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
  it("a valid key gives its record; an unknown one null", async () => {
    const store = new KeyStore(db);
    const created = await store.create({ name: "valid", owner: "me", perMinute: 9 });
    const record = await store.verify(created.key);
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
    expect(await store.verify(generateKey())).toBeNull();
    // One character off is another key.
    const off = created.key.slice(0, -1) + (created.key.endsWith("a") ? "b" : "a");
    expect(await store.verify(off)).toBeNull();
  });

  it("a key revoked elsewhere is refused once the cache expires (and not before)", async () => {
    let clock = T0;
    const now = () => clock;
    // Two stores over one database: two gateway processes.
    const admin = new KeyStore(db, { now });
    const gateway = new KeyStore(db, { now, cacheMs: 3_000 });
    const created = await admin.create({ name: "revoked-elsewhere" });
    expect((await gateway.verify(created.key))?.id).toBe(created.id);

    await admin.revoke(String(created.id));
    clock = T0 + 2_999;
    expect((await gateway.verify(created.key))?.id).toBe(created.id); // still cached
    clock = T0 + 3_000;
    expect(await gateway.verify(created.key)).toBeNull();
    clock = T0 + 10_000;
    expect(await gateway.verify(created.key)).toBeNull();
  });

  it("a key revoked through the same store is refused at once", async () => {
    const store = new KeyStore(db, { now: () => T0 });
    const created = await store.create({ name: "revoked-here" });
    expect(await store.verify(created.key)).not.toBeNull();
    await store.revoke(created.prefix);
    expect(await store.verify(created.key)).toBeNull();
  });

  it("new limits are seen once the cache expires", async () => {
    let clock = T0;
    const admin = new KeyStore(db);
    const gateway = new KeyStore(db, { now: () => clock, cacheMs: 3_000 });
    const created = await admin.create({ name: "relimited" });
    expect((await gateway.verify(created.key))?.perDay).toBeNull();
    await admin.setLimits(String(created.id), { perDay: 42 });
    clock += 3_000;
    expect((await gateway.verify(created.key))?.perDay).toBe(42);
  });

  it("the hot path makes no database round trip: 100 verifications cost one SELECT (+ one last_used_at update)", async () => {
    const created = await new KeyStore(db).create({ name: "hot" });
    let clock = T0;
    const { db: counted, statements } = counting(db);
    const store = new KeyStore(counted, { now: () => clock, cacheMs: 3_000, touchEveryMs: 60_000 });
    for (let i = 0; i < 100; i++) {
      clock = T0 + i * 20; // 0 .. 1,980 ms: within the cache time
      expect((await store.verify(created.key))?.id).toBe(created.id);
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
    for (let i = 0; i < 50; i++) expect(await store.verify(bad)).toBeNull();
    expect(statements).toHaveLength(1);
  });
});
