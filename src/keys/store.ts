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
 *
 * A key's life (docs/api-keys.md): an optional expiry, and rolls. A roll gives
 * the key a new secret and keeps the one it replaced working until the end of
 * the chosen overlap (only the last replaced one: a second roll ends the
 * first one's overlap). Both instants are compared with the clock on every
 * verification, cached or not, so an expired key or an old secret stops on
 * every process at that instant, not at the end of a cache time.
 */
import { timingSafeEqual } from "node:crypto";
import { KEYS_CHANGED } from "../db/changes.js";
import type { Database, Listener } from "../db/driver.js";
import {
  type CompiledRestrictions,
  compileRestrictions,
  normalizeList,
  normalizeOrigin,
  normalizeRange,
  normalizeSurface,
  type Restrictions,
  RestrictionError,
  UNRESTRICTED,
} from "./restrictions.js";
import { displayPrefix, generateKey, hashKey } from "./secret.js";

/** The longest overlap of a roll: a week, as Stripe allows. */
export const MAX_OVERLAP_MS = 7 * 24 * 3_600_000;

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
  /** When the key stops working; null: never. */
  expiresAt: Date | null;
  /** When its secret was last replaced; null: never rolled. */
  rolledAt: Date | null;
  /** When the secret the last roll replaced stops (or stopped) working; null: never rolled. */
  previousUntil: Date | null;
  /** Where, how and how much it may be used (src/keys/restrictions.ts). */
  restrictions: Restrictions;
}

/**
 * What a presented secret is: a key's current secret, the one its last roll
 * replaced (during the overlap), or refused: unknown or revoked (`invalid`),
 * past the key's expiry (`expired`), or replaced by a roll whose overlap is
 * over (`rolled`), with the instant it stopped.
 */
export type Verification =
  | {
      key: KeyRecord;
      previous: boolean;
      /** Its restrictions, compiled once per lookup. */
      restrictions: CompiledRestrictions;
      /** A documents-only key's own trusted documents (hash → text); null: none of its own. */
      documents: ReadonlyMap<string, string> | null;
    }
  | { refused: "invalid" }
  | { refused: "expired" | "rolled"; at: Date };

export interface CreateKeyOptions {
  name: string;
  owner?: string | null | undefined;
  perMinute?: number | null | undefined;
  perDay?: number | null | undefined;
  /** When it stops working; unset or null: never. Must be in the future. */
  expiresAt?: Date | null | undefined;
  /** Its restrictions; unset: none. */
  restrictions?: RestrictionChange | undefined;
}

/** A key just rolled: its new secret (shown this once), as stored now, and the prefix of the secret it replaced. */
export interface Rolled {
  key: string;
  record: KeyRecord;
  previousPrefix: string;
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
  expires_at: Date | null;
  rolled_at: Date | null;
  previous_hash: string | null;
  previous_until: Date | null;
  allowed_origins: string[] | null;
  allowed_addresses: string[] | null;
  allowed_surfaces: string[] | null;
  documents_only: boolean;
  visitor_per_minute: number | null;
  visitor_per_day: number | null;
}

const COLUMNS =
  "id, prefix, hash, name, owner, created_at, revoked_at, last_used_at, per_minute, per_day, expires_at, rolled_at, previous_hash, previous_until, " +
  "allowed_origins, allowed_addresses, allowed_surfaces, documents_only, visitor_per_minute, visitor_per_day";

/**
 * An UPDATE of keys that returns the changed rows and, in the same statement
 * (so on its commit), announces the change on KEYS_CHANGED.
 */
const announced = (update: string) =>
  `WITH changed AS (${update} RETURNING ${COLUMNS}), told AS (SELECT pg_notify('${KEYS_CHANGED}', '')) SELECT changed.* FROM changed, told`;

const dateOrNull = (d: Date | null) => (d ? new Date(d) : null);

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
  expiresAt: dateOrNull(r.expires_at),
  rolledAt: dateOrNull(r.rolled_at),
  previousUntil: dateOrNull(r.previous_until),
  restrictions: {
    origins: r.allowed_origins,
    addresses: r.allowed_addresses,
    surfaces: r.allowed_surfaces as Restrictions["surfaces"],
    documentsOnly: r.documents_only,
    visitorPerMinute: r.visitor_per_minute,
    visitorPerDay: r.visitor_per_day,
  },
});

/**
 * A cached lookup of one presented hash: the key it names (null: none, or
 * revoked), which of its secrets matched, and the instants compared with the
 * clock at each use.
 */
interface Found {
  record: KeyRecord | null;
  /** The stored hash that matched the presented one. */
  stored: string;
  previous: boolean;
  /** Epoch ms: when the key expires, and when a previous secret stops (Infinity: never). */
  expiresAt: number;
  previousUntil: number;
  restrictions: CompiledRestrictions | null;
  documents: ReadonlyMap<string, string> | null;
}

const NOT_FOUND = (hash: string): Found => ({
  record: null,
  stored: hash,
  previous: false,
  expiresAt: Infinity,
  previousUntil: Infinity,
  restrictions: null,
  documents: null,
});

/** A change of restrictions: each side given is set (null opens it), the others kept. */
export type RestrictionChange = Partial<Restrictions>;

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
  private readonly cache = new Map<string, Found & { at: number }>();
  private readonly touched = new Map<number, number>();
  /** Lookups under way, so a burst with an uncached key asks the database once. */
  private readonly pending = new Map<string, Promise<Found>>();
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
    return insertKey(this.db, options, this.now());
  }

  /**
   * Creates a key for an account that may hold at most `maxActive` active
   * keys; throws a KeyQuotaError when it holds that many already. Concurrent
   * creations for one account are serialised, so the bound is exact.
   */
  async createOwned(
    owner: string,
    name: string,
    maxActive: number,
    expiresAt: Date | null = null,
  ): Promise<{ id: number; key: string; prefix: string }> {
    return this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('api_key owner ' || $1))`, [owner]);
      const [row] = await tx.query<{ active: number }>(
        `SELECT count(*)::int AS active FROM api_key WHERE owner = $1 AND revoked_at IS NULL`,
        [owner],
      );
      if (row!.active >= maxActive) {
        throw new KeyQuotaError(`an account may hold at most ${maxActive} active keys: revoke one first`);
      }
      return insertKey(tx, { name, owner, expiresAt }, this.now());
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

  /** The active keys that expire within `withinMs` from now, soonest first. */
  async listExpiring(withinMs: number): Promise<KeyRecord[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM api_key WHERE revoked_at IS NULL AND expires_at > $1 AND expires_at <= $2 ORDER BY expires_at, id`,
      [new Date(this.now()), new Date(this.now() + withinMs)],
    );
    return rows.map(toRecord);
  }

  /** Changes a key's restrictions: each side given is set (null or false opens it), the others kept. */
  async setRestrictions(ref: string, change: RestrictionChange): Promise<KeyRecord> {
    return (await this.changeRestrictions(await this.find(ref), change))!;
  }

  /** Changes the restrictions of one of an account's active keys; null when the account has no such key. */
  async setRestrictionsOwned(owner: string, id: number, change: RestrictionChange): Promise<KeyRecord | null> {
    const key = await this.findOwned(owner, id);
    return key && this.changeRestrictions(key, change, owner);
  }

  /**
   * Attaches a set of trusted documents (hash → text, each hash its text's
   * SHA-256, checked by the caller against the schema) to a key, replacing
   * the set it had; null or empty removes it. A documents-only key then
   * runs these on GraphQL, instead of TRUSTED_DOCUMENTS.
   */
  async setDocuments(ref: string, documents: ReadonlyMap<string, string> | null): Promise<{ key: KeyRecord; documents: number }> {
    const key = await this.find(ref);
    if (key.revokedAt) throw new KeyError(`key ${key.id} is revoked: its documents cannot change`);
    await this.db.transaction(async (tx) => {
      await tx.query(`DELETE FROM api_key_document WHERE key_id = $1`, [key.id]);
      const entries = [...(documents ?? [])];
      if (entries.length) {
        await tx.query(
          `INSERT INTO api_key_document (key_id, hash, document) SELECT $1, h, d FROM unnest($2::text[], $3::text[]) AS t(h, d)`,
          [key.id, entries.map(([hash]) => hash), entries.map(([, text]) => text)],
        );
      }
      await tx.query(`SELECT pg_notify('${KEYS_CHANGED}', '')`);
    });
    this.forget(key.id);
    await this.announce();
    return { key, documents: documents?.size ?? 0 };
  }

  /** Sets (or with null, clears) a key's expiry; a new one must be in the future. */
  async setExpiry(ref: string, expiresAt: Date | null): Promise<KeyRecord> {
    const key = await this.find(ref);
    return (await this.changeExpiry(key, expiresAt))!;
  }

  /** Sets (or clears) the expiry of one of an account's active keys; null when the account has no such key. */
  async setExpiryOwned(owner: string, id: number, expiresAt: Date | null): Promise<KeyRecord | null> {
    const key = await this.findOwned(owner, id);
    return key && this.changeExpiry(key, expiresAt, owner);
  }

  /**
   * Gives a key a new secret, keeping its id, name, owner, limits and
   * history. The secret it replaces works `overlapMs` more (0: it stops now;
   * at most MAX_OVERLAP_MS); the secret it had replaced before, if it still
   * worked, stops now. A revoked or expired key is not rolled (KeyError).
   */
  async roll(ref: string, overlapMs: number): Promise<Rolled> {
    return (await this.rollKey(await this.find(ref), overlapMs))!;
  }

  /** Rolls one of an account's keys, as `roll`; null when the account has no key with that id. */
  async rollOwned(owner: string, id: number, overlapMs: number): Promise<Rolled | null> {
    const key = await this.findOwned(owner, id);
    return key && this.rollKey(key, overlapMs, owner);
  }

  /**
   * What a presented secret is (see {@link Verification}). Answers from the
   * cache while it is fresh, but compares the key's expiry and a previous
   * secret's end with the clock every time; every path costs the same hashing.
   */
  async verify(key: string): Promise<Verification> {
    const hash = hashKey(key);
    const now = this.now();
    const cached = this.cache.get(hash);
    if (cached && now - cached.at < this.cacheMs) return this.accept(cached, hash);
    let lookup = this.pending.get(hash);
    if (!lookup) {
      lookup = this.lookup(hash, now).finally(() => this.pending.delete(hash));
      this.pending.set(hash, lookup);
    }
    return this.accept(await lookup, hash);
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

  private async lookup(hash: string, now: number): Promise<Found> {
    const generation = this.generation;
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM api_key WHERE hash = $1 OR previous_hash = $1`, [hash]);
    const row = rows[0];
    const previous = row !== undefined && row.hash !== hash;
    let found = NOT_FOUND(hash);
    if (row && row.revoked_at === null) {
      const record = toRecord(row);
      const documents = row.documents_only ? await this.documentsOf(row.id) : null;
      found = {
        record,
        stored: previous ? row.previous_hash! : row.hash,
        previous,
        expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : Infinity,
        previousUntil: previous ? new Date(row.previous_until!).getTime() : Infinity,
        restrictions: compileRestrictions(record.restrictions),
        documents,
      };
    }
    // The cache was emptied while this lookup ran: what it read may be what the change undid.
    if (generation !== this.generation) return found;
    this.cache.delete(hash);
    this.cache.set(hash, { ...found, at: now });
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    return found;
  }

  private accept(found: Found, presented: string): Verification {
    const { record } = found;
    // The lookup was by hash already; the constant-time comparison is a belt to those braces.
    if (!record || !timingSafeEqual(Buffer.from(found.stored), Buffer.from(presented))) return { refused: "invalid" };
    const now = this.now();
    if (now >= found.expiresAt) return { refused: "expired", at: record.expiresAt! };
    if (now >= found.previousUntil) return { refused: "rolled", at: record.previousUntil! };
    if (now - (this.touched.get(record.id) ?? 0) >= this.touchEveryMs) {
      this.touched.set(record.id, now);
      void this.db.query(`UPDATE api_key SET last_used_at = now() WHERE id = $1`, [record.id]).catch(() => undefined);
    }
    return { key: record, previous: found.previous, restrictions: found.restrictions!, documents: found.documents };
  }

  /** A key's own trusted documents (hash → text); null when it has none. */
  private async documentsOf(id: number): Promise<Map<string, string> | null> {
    const rows = await this.db.query<{ hash: string; document: string }>(`SELECT hash, document FROM api_key_document WHERE key_id = $1`, [
      id,
    ]);
    return rows.length ? new Map(rows.map((r) => [r.hash, r.document])) : null;
  }

  private async changeRestrictions(key: KeyRecord, change: RestrictionChange, owner?: string): Promise<KeyRecord | null> {
    if (key.revokedAt) throw new KeyError(`key ${key.id} is revoked: its restrictions cannot change`);
    const next = { ...key.restrictions, ...validRestrictions(change) };
    const [row] = await this.db.query<Row>(
      announced(
        `UPDATE api_key SET allowed_origins = $2, allowed_addresses = $3, allowed_surfaces = $4, documents_only = $5,
           visitor_per_minute = $6, visitor_per_day = $7
         WHERE id = $1 AND revoked_at IS NULL${owner === undefined ? "" : " AND owner = $8"}`,
      ),
      [
        key.id,
        next.origins,
        next.addresses,
        next.surfaces,
        next.documentsOnly,
        next.visitorPerMinute,
        next.visitorPerDay,
        ...(owner === undefined ? [] : [owner]),
      ],
    );
    if (!row) return null;
    this.forget(key.id);
    await this.announce();
    return toRecord(row);
  }

  private async changeExpiry(key: KeyRecord, expiresAt: Date | null, owner?: string): Promise<KeyRecord | null> {
    checkExpiry(expiresAt, this.now());
    if (key.revokedAt) throw new KeyError(`key ${key.id} is revoked: its expiry cannot change`);
    const [row] = await this.db.query<Row>(
      announced(`UPDATE api_key SET expires_at = $2 WHERE id = $1 AND revoked_at IS NULL${owner === undefined ? "" : " AND owner = $3"}`),
      owner === undefined ? [key.id, expiresAt] : [key.id, expiresAt, owner],
    );
    if (!row) return null;
    this.forget(key.id);
    await this.announce();
    return toRecord(row);
  }

  private async rollKey(key: KeyRecord, overlapMs: number, owner?: string): Promise<Rolled | null> {
    if (!Number.isSafeInteger(overlapMs) || overlapMs < 0 || overlapMs > MAX_OVERLAP_MS) {
      throw new KeyError("the overlap must be from none to 7 days");
    }
    if (key.revokedAt) throw new KeyError(`key ${key.id} is revoked: it cannot be rolled`);
    if (key.expiresAt && key.expiresAt.getTime() <= this.now()) {
      throw new KeyError(`key ${key.id} expired at ${key.expiresAt.toISOString()}: set a later expiry before rolling it`);
    }
    const secret = generateKey();
    const now = this.now();
    // SET reads the row as it was: previous_hash takes the secret being replaced. It is kept even
    // with no overlap, so that the old secret is refused as replaced, not as unknown.
    const [row] = await this.db.query<Row>(
      announced(
        `UPDATE api_key SET hash = $2, prefix = $3, rolled_at = $4, previous_hash = hash, previous_until = $5
         WHERE id = $1 AND revoked_at IS NULL${owner === undefined ? "" : " AND owner = $6"}`,
      ),
      [key.id, hashKey(secret), displayPrefix(secret), new Date(now), new Date(now + overlapMs), ...(owner === undefined ? [] : [owner])],
    );
    if (!row) return null;
    this.forget(key.id);
    await this.announce();
    return { key: secret, record: toRecord(row), previousPrefix: key.prefix };
  }

  private forget(id: number): void {
    this.generation++;
    this.pending.clear();
    for (const [hash, entry] of this.cache) if (entry.record?.id === id) this.cache.delete(hash);
  }
}

/** Inserts a new key; the returned `key` is the only time the secret exists outside its holder. */
async function insertKey(
  db: Pick<Database, "query">,
  options: CreateKeyOptions,
  now: number,
): Promise<{ id: number; key: string; prefix: string }> {
  if (!options.name.trim()) throw new KeyError("--name must not be empty");
  checkLimit("per-minute", options.perMinute);
  checkLimit("per-day", options.perDay);
  checkExpiry(options.expiresAt ?? null, now);
  const r = { ...UNRESTRICTED, ...validRestrictions(options.restrictions ?? {}) };
  const key = generateKey();
  const prefix = displayPrefix(key);
  const [row] = await db.query<{ id: number }>(
    `INSERT INTO api_key (prefix, hash, name, owner, per_minute, per_day, expires_at,
       allowed_origins, allowed_addresses, allowed_surfaces, documents_only, visitor_per_minute, visitor_per_day)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
    [
      prefix,
      hashKey(key),
      options.name.trim(),
      options.owner ?? null,
      options.perMinute ?? null,
      options.perDay ?? null,
      options.expiresAt ?? null,
      r.origins,
      r.addresses,
      r.surfaces,
      r.documentsOnly,
      r.visitorPerMinute,
      r.visitorPerDay,
    ],
  );
  return { id: row!.id, key, prefix };
}

function checkLimit(name: string, value: number | null | undefined): void {
  if (value === null || value === undefined) return;
  if (!Number.isSafeInteger(value) || value < 1) throw new KeyError(`--${name} must be a positive integer`);
}

function checkExpiry(expiresAt: Date | null, now: number): void {
  if (expiresAt === null) return;
  if (Number.isNaN(expiresAt.getTime())) throw new KeyError("--expires is not a date");
  if (expiresAt.getTime() <= now) throw new KeyError(`--expires must be in the future, got ${expiresAt.toISOString()}`);
}

/** A change of restrictions with every side given written as it is stored; throws a KeyError naming what is wrong. */
function validRestrictions(change: RestrictionChange): RestrictionChange {
  try {
    const valid: RestrictionChange = {};
    if (change.origins !== undefined) valid.origins = normalizeList(change.origins, normalizeOrigin, "origins");
    if (change.addresses !== undefined) valid.addresses = normalizeList(change.addresses, normalizeRange, "address ranges");
    if (change.surfaces !== undefined) valid.surfaces = normalizeList(change.surfaces, normalizeSurface, "surfaces");
    if (change.documentsOnly !== undefined) valid.documentsOnly = change.documentsOnly;
    if (change.visitorPerMinute !== undefined) {
      checkLimit("visitor-per-minute", change.visitorPerMinute);
      valid.visitorPerMinute = change.visitorPerMinute;
    }
    if (change.visitorPerDay !== undefined) {
      checkLimit("visitor-per-day", change.visitorPerDay);
      valid.visitorPerDay = change.visitorPerDay;
    }
    return valid;
  } catch (error) {
    if (error instanceof RestrictionError) throw new KeyError(error.message);
    throw error;
  }
}
