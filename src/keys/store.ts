/**
 * API keys in the database (table api_key): creation, listing, revocation,
 * per-key limits, and verification through a short-lived cache keyed by the
 * hash, so the hot path makes no database round trip.
 *
 * A revocation or a change of limits is announced on the database's
 * KEYS_CHANGED channel, in the statement that makes it: every process that
 * `follow`s it forgets its cached verifications at once (in well under a
 * second). A notice lost while a listening connection was down is covered by
 * the listener's resume (which forgets everything too) and, at worst, by
 * `cacheMs` (default 3 s). Where REDIS_URL is set the change also goes
 * through Redis (`announce`, src/keys/redis-changes.ts).
 */
import { timingSafeEqual } from "node:crypto";
import { KEYS_CHANGED } from "../db/changes.js";
import type { Database, Listener } from "../db/driver.js";
import { displayPrefix, generateKey, hashKey } from "./secret.js";

/** What the gateway knows of a valid key; never the secret or its hash. */
export interface KeyRecord {
  id: number;
  prefix: string;
  name: string;
  owner: string | null;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  /** Per-key limits; null means the configured default. */
  perMinute: number | null;
  perDay: number | null;
}

export interface CreateKeyOptions {
  name: string;
  owner?: string | null | undefined;
  perMinute?: number | null | undefined;
  perDay?: number | null | undefined;
}

export class KeyError extends Error {
  override name = "KeyError";
}

/** An account already holds as many active keys as it may. */
export class KeyQuotaError extends KeyError {
  override name = "KeyQuotaError";
}

interface Row {
  id: number;
  prefix: string;
  hash: string;
  name: string;
  owner: string | null;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  per_minute: number | null;
  per_day: number | null;
}

const COLUMNS = "id, prefix, hash, name, owner, created_at, revoked_at, last_used_at, per_minute, per_day";

/**
 * An UPDATE of keys that returns the changed rows and, in the same statement
 * (so on its commit), announces the change on KEYS_CHANGED.
 */
const announced = (update: string) =>
  `WITH changed AS (${update} RETURNING ${COLUMNS}), told AS (SELECT pg_notify('${KEYS_CHANGED}', '')) SELECT changed.* FROM changed, told`;

const toRecord = (r: Row): KeyRecord => ({
  id: r.id,
  prefix: r.prefix,
  name: r.name,
  owner: r.owner,
  createdAt: new Date(r.created_at),
  revokedAt: r.revoked_at ? new Date(r.revoked_at) : null,
  lastUsedAt: r.last_used_at ? new Date(r.last_used_at) : null,
  perMinute: r.per_minute,
  perDay: r.per_day,
});

export interface KeyStoreOptions {
  /** How long a verification is trusted before the database is asked again. */
  cacheMs?: number;
  /** Most hashes remembered (valid or not); the oldest are forgotten first. */
  cacheSize?: number;
  /** How often a key's `last_used_at` is written at most. */
  touchEveryMs?: number;
  /** The clock (tests move it). */
  now?: () => number;
  /**
   * Told after this store revoked a key or changed its limits, besides the
   * database's notice: the gateway publishes the change on Redis
   * (src/keys/redis-changes.ts). Must not throw.
   */
  announce?: () => Promise<void>;
}

export class KeyStore {
  private readonly cache = new Map<string, { record: KeyRecord | null; hash: string; at: number }>();
  private readonly touched = new Map<number, number>();
  /** Lookups under way, so a burst with an uncached key asks the database once. */
  private readonly pending = new Map<string, Promise<{ record: KeyRecord | null; hash: string }>>();
  private readonly cacheMs: number;
  private readonly cacheSize: number;
  private readonly touchEveryMs: number;
  private readonly now: () => number;
  private readonly announce: () => Promise<void>;
  /** Bumped whenever the cache is emptied, so a lookup that started before cannot put back what was forgotten. */
  private generation = 0;

  constructor(
    private readonly db: Pick<Database, "query" | "transaction">,
    options: KeyStoreOptions = {},
  ) {
    this.cacheMs = options.cacheMs ?? 3_000;
    this.cacheSize = options.cacheSize ?? 10_000;
    this.touchEveryMs = options.touchEveryMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.announce = options.announce ?? (async () => undefined);
  }

  /** Creates a key; the returned `key` is the only time the secret exists outside its holder. */
  create(options: CreateKeyOptions): Promise<{ id: number; key: string; prefix: string }> {
    return insertKey(this.db, options);
  }

  /**
   * Creates a key for an account that may hold at most `maxActive` active
   * keys; throws a KeyQuotaError when it holds that many already. Concurrent
   * creations for one account are serialised, so the bound is exact.
   */
  async createOwned(owner: string, name: string, maxActive: number): Promise<{ id: number; key: string; prefix: string }> {
    return this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('api_key owner ' || $1))`, [owner]);
      const [row] = await tx.query<{ active: number }>(
        `SELECT count(*)::int AS active FROM api_key WHERE owner = $1 AND revoked_at IS NULL`,
        [owner],
      );
      if (row!.active >= maxActive) {
        throw new KeyQuotaError(`an account may hold at most ${maxActive} active keys: revoke one first`);
      }
      return insertKey(tx, { name, owner });
    });
  }

  /** An account's keys, newest first, without secrets. */
  async listOwned(owner: string): Promise<KeyRecord[]> {
    return (await this.db.query<Row>(`SELECT ${COLUMNS} FROM api_key WHERE owner = $1 ORDER BY id DESC`, [owner])).map(toRecord);
  }

  /** Revokes one of an account's keys (idempotent); null when the account has no key with that id. */
  async revokeOwned(owner: string, id: number): Promise<KeyRecord | null> {
    const [row] = await this.db.query<Row>(
      announced(`UPDATE api_key SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND owner = $2`),
      [id, owner],
    );
    if (!row) return null;
    this.forget(row.id);
    await this.announce();
    return toRecord(row);
  }

  /** One of an account's keys, or null. */
  async findOwned(owner: string, id: number): Promise<KeyRecord | null> {
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM api_key WHERE id = $1 AND owner = $2`, [id, owner]);
    return row ? toRecord(row) : null;
  }

  /** Every key, oldest first, without secrets. */
  async list(): Promise<KeyRecord[]> {
    return (await this.db.query<Row>(`SELECT ${COLUMNS} FROM api_key ORDER BY id`)).map(toRecord);
  }

  /** The key with this numeric id or display prefix; throws KeyError when there is none. */
  async find(ref: string): Promise<KeyRecord> {
    const rows = /^\d+$/.test(ref)
      ? await this.db.query<Row>(`SELECT ${COLUMNS} FROM api_key WHERE id = $1`, [Number(ref)])
      : await this.db.query<Row>(`SELECT ${COLUMNS} FROM api_key WHERE prefix = $1`, [ref]);
    if (!rows[0]) throw new KeyError(`no API key with id or prefix ${JSON.stringify(ref)}`);
    return toRecord(rows[0]);
  }

  /** Revokes a key (idempotent); returns it as stored now. */
  async revoke(ref: string): Promise<KeyRecord> {
    const key = await this.find(ref);
    const [row] = await this.db.query<Row>(announced(`UPDATE api_key SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1`), [
      key.id,
    ]);
    this.forget(key.id);
    await this.announce();
    return toRecord(row!);
  }

  /** Sets (or with null, clears) a key's own limits. */
  async setLimits(ref: string, limits: { perMinute?: number | null; perDay?: number | null }): Promise<KeyRecord> {
    checkLimit("per-minute", limits.perMinute);
    checkLimit("per-day", limits.perDay);
    const key = await this.find(ref);
    const [row] = await this.db.query<Row>(announced(`UPDATE api_key SET per_minute = $2, per_day = $3 WHERE id = $1`), [
      key.id,
      limits.perMinute === undefined ? key.perMinute : limits.perMinute,
      limits.perDay === undefined ? key.perDay : limits.perDay,
    ]);
    this.forget(key.id);
    await this.announce();
    return toRecord(row!);
  }

  /**
   * The valid (unrevoked) key for a presented secret, or null. Answers from
   * the cache while it is fresh; every path costs the same hashing.
   */
  async verify(key: string): Promise<KeyRecord | null> {
    const hash = hashKey(key);
    const now = this.now();
    const cached = this.cache.get(hash);
    if (cached && now - cached.at < this.cacheMs) return this.accept(cached.record, cached.hash, hash);
    let lookup = this.pending.get(hash);
    if (!lookup) {
      lookup = this.lookup(hash, now).finally(() => this.pending.delete(hash));
      this.pending.set(hash, lookup);
    }
    const found = await lookup;
    return this.accept(found.record, found.hash, hash);
  }

  /**
   * Forgets every cached verification whenever any process announces a change
   * of keys (and when listening resumes after a lost connection); `close` on
   * the answer stops following.
   */
  follow(db: Pick<Database, "listen">): Promise<Listener> {
    return db.listen(KEYS_CHANGED, () => this.forgetAll());
  }

  /** Forgets every cached verification. */
  forgetAll(): void {
    this.generation++;
    this.cache.clear();
    this.pending.clear();
  }

  private async lookup(hash: string, now: number): Promise<{ record: KeyRecord | null; hash: string }> {
    const generation = this.generation;
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM api_key WHERE hash = $1`, [hash]);
    const row = rows[0];
    const found = { record: row && row.revoked_at === null ? toRecord(row) : null, hash: row?.hash ?? hash };
    // The cache was emptied while this lookup ran: what it read may be what the change undid.
    if (generation !== this.generation) return found;
    this.cache.delete(hash);
    this.cache.set(hash, { ...found, at: now });
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    return found;
  }

  private accept(record: KeyRecord | null, stored: string, presented: string): KeyRecord | null {
    // The lookup was by hash already; the constant-time comparison is a belt to those braces.
    if (!record || !timingSafeEqual(Buffer.from(stored), Buffer.from(presented))) return null;
    const now = this.now();
    if (now - (this.touched.get(record.id) ?? 0) >= this.touchEveryMs) {
      this.touched.set(record.id, now);
      void this.db.query(`UPDATE api_key SET last_used_at = now() WHERE id = $1`, [record.id]).catch(() => undefined);
    }
    return record;
  }

  private forget(id: number): void {
    this.generation++;
    this.pending.clear();
    for (const [hash, entry] of this.cache) if (entry.record?.id === id) this.cache.delete(hash);
  }
}

/** Inserts a new key; the returned `key` is the only time the secret exists outside its holder. */
async function insertKey(db: Pick<Database, "query">, options: CreateKeyOptions): Promise<{ id: number; key: string; prefix: string }> {
  if (!options.name.trim()) throw new KeyError("--name must not be empty");
  checkLimit("per-minute", options.perMinute);
  checkLimit("per-day", options.perDay);
  const key = generateKey();
  const prefix = displayPrefix(key);
  const [row] = await db.query<{ id: number }>(
    `INSERT INTO api_key (prefix, hash, name, owner, per_minute, per_day) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [prefix, hashKey(key), options.name.trim(), options.owner ?? null, options.perMinute ?? null, options.perDay ?? null],
  );
  return { id: row!.id, key, prefix };
}

function checkLimit(name: string, value: number | null | undefined): void {
  if (value === null || value === undefined) return;
  if (!Number.isSafeInteger(value) || value < 1) throw new KeyError(`--${name} must be a positive integer`);
}
