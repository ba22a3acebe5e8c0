/**
 * An in-memory cache of answers (REST and the MCP tools, which answer through
 * the same RestApi, and GraphQL). Everything the service serves is public and
 * the same for every key, so an answer is keyed by its route and validated
 * parameters (or its document and variables) alone. Keys and limits are still
 * checked for every request before it reaches the cache.
 *
 * The data changes only when an import or an ingest commits, and each
 * announces it on the database's DATA_CHANGED channel, which empties the
 * cache at once in every gateway process that listens (and again whenever
 * listening resumes after a lost connection, since a notice may have been
 * missed). So an answer that does not depend on the clock is kept until
 * then. One that does (an environment answer) knows until when it stays true
 * with the same data (Context.validity: the next local midnight, a reading
 * leaving the real-time window, a reading stamped ahead coming due) and is
 * kept until then. Neither is kept longer than `ttlMs`.
 */
import { LRUCache } from "lru-cache";
import { DATA_CHANGED } from "../db/changes.js";
import type { Database, Listener } from "../db/driver.js";
import { cacheClears, cacheLookups, followCacheSize } from "../observe/metrics.js";
import type { SharedAnswers, SharedEntry } from "./shared-answers.js";

/** The encodings an answer is kept in besides its own bytes (src/http.ts compresses in them). */
export type Encoding = "br" | "gzip" | "deflate";

/**
 * An answer kept as it goes out (src/lean/path.ts writes it on Node's own
 * response): its status, the body's bytes, the headers that are its own, its
 * `ETag` (a GET's), and its compressed forms, each made the first time a
 * client asks for it.
 */
export interface KeptBytes {
  status: number;
  bytes: Buffer;
  /** Headers of the answer itself (its media type, `Vary`, `Deprecation`); the path adds the per-request ones. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** The weak `ETag` of `bytes`; set on answers to a GET only. */
  etag?: string | undefined;
  /** `bytes` compressed, by encoding, as clients have asked for them. */
  encoded?: Partial<Record<Encoding, Buffer>>;
  /**
   * A JSON-RPC answer's: where its `id` is written. `bytes` then holds the
   * answer without it, and each call's own id goes in at this offset.
   */
  idAt?: number;
  /**
   * What the request that made this answer used (src/usage/coordinates.ts):
   * a GraphQL or MCP request answered from it used the same, and is counted so.
   */
  uses?: readonly string[] | undefined;
}

/**
 * A cached answer: its status, the body's JSON text, and headers (a REST or
 * MCP tool answer, a GraphQL result), with its bytes when it is kept to be
 * written as it is. Never the body as objects: parsed, an answer's objects
 * took several times its text, which {@link sizeOf} did not see, so 32 MiB of
 * kept answers held about 100 MiB (issue 54); a caller that needs the body
 * parses the text ({@link bodyOf}).
 */
export interface CachedAnswer extends Partial<KeptBytes> {
  status: number;
  readonly text: string;
  headers?: Record<string, string>;
}

/** The body of a cached answer, parsed from its text. */
export const bodyOf = (answer: CachedAnswer): unknown => JSON.parse(answer.text);

/**
 * An answer kept as its bytes (what the lean path writes), whose text is
 * decoded from them when a caller asks (a tool, a request the lean path does
 * not take): holding the text as well took more memory than the bytes.
 */
export class KeptText implements CachedAnswer, KeptBytes {
  encoded?: Partial<Record<Encoding, Buffer>>;
  constructor(
    readonly status: number,
    readonly bytes: Buffer,
    readonly headers: Record<string, string> | undefined,
    readonly etag: string | undefined,
  ) {}

  get text(): string {
    return this.bytes.toString("utf8");
  }
}

/**
 * What an entry costs, in bytes: its key as JavaScript holds it (two bytes a
 * character, as any text with a Chinese character is), and either its bytes
 * twice (once for themselves, once for the compressed forms the lean path may
 * keep with them: brotli, gzip and deflate together are 0.91 of the bytes for
 * the 2 KB universities list, less for larger answers; answers under 1 KB are
 * never compressed), or, without bytes, its text at two bytes a character.
 */
const sizeOf = (answer: CachedAnswer | KeptBytes, key: string): number =>
  2 * key.length + (answer.bytes ? 2 * answer.bytes.length : "text" in answer ? 2 * answer.text.length : 0) + 64;

/** Whether an answer is kept with its bytes (the same object, so that its compressed forms stay with it). */
export const hasBytes = (answer: CachedAnswer | KeptBytes): answer is KeptBytes => answer.bytes !== undefined;

/** An answer as Redis held it, as this process keeps it: with its text, from its bytes, for a v1 answer. */
function fromEntry(entry: SharedEntry): CachedAnswer | KeptBytes {
  const { status, bytes, headers, etag, idAt, uses } = entry;
  if (entry.parsed) return new KeptText(status, bytes, headers ? { ...headers } : undefined, etag);
  return { status, bytes, headers, etag, ...(idAt === undefined ? {} : { idAt }), ...(uses === undefined ? {} : { uses }) };
}

/** The default of {@link AnswerCacheOptions.maxBytes}. */
const DEFAULT_MAX_BYTES = 32 * 2 ** 20;

export interface AnswerCacheOptions {
  /** The longest any answer is kept, in ms; 0 turns the cache off. */
  ttlMs: number;
  /** Most bytes kept (keys, texts and bytes); the least recently used answers go first. Default {@link DEFAULT_MAX_BYTES}. */
  maxBytes?: number;
}

export class AnswerCache {
  private readonly entries: LRUCache<string, CachedAnswer | KeptBytes> | undefined;
  private listener: Listener | undefined;
  private readonly ttlMs: number;
  private clears = 0;
  /** The second level, in Redis (./shared-answers.ts), and how to learn the data version its answers are stored under. */
  private shared: { store: SharedAnswers; readVersion: () => Promise<number> } | undefined;
  /** The data version of the current generation; undefined until learnt (then nothing is shared). */
  private version: number | undefined;
  private learning: Promise<void> | undefined;

  constructor(options: AnswerCacheOptions) {
    this.ttlMs = options.ttlMs;
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.entries =
      options.ttlMs > 0
        ? new LRUCache<string, CachedAnswer | KeptBytes>({
            ttl: options.ttlMs,
            maxSize: maxBytes,
            sizeCalculation: sizeOf,
            // An answer bigger than the whole cache is simply not kept.
            maxEntrySize: maxBytes,
          })
        : undefined;
    if (this.entries) followCacheSize(this.entries);
  }

  /**
   * The cache's generation: it moves each time the cache is emptied. An
   * answer begun in one generation and finished in another may hold data
   * older than the change that emptied it, and is not kept ({@link keep}).
   */
  get generation(): number {
    return this.clears;
  }

  /** Whether answers are shared through Redis ({@link share}). */
  get sharing(): boolean {
    return this.shared !== undefined;
  }

  /** Whether answers are kept at all. */
  get enabled(): boolean {
    return this.entries !== undefined;
  }

  /**
   * The answer kept under `key`; counted as a hit or a miss when the cache is
   * on. A lookup that another will follow on a miss does not count its miss.
   */
  get(key: string, options: { countMiss?: boolean } = {}): CachedAnswer | undefined {
    const answer = this.lookUp(key, options);
    return answer && "text" in answer ? answer : undefined;
  }

  /** The answer kept as bytes under `key` (src/lean/path.ts); a miss is not counted: the gateway's own lookup follows. */
  bytes(key: string): KeptBytes | undefined {
    const answer = this.lookUp(key, { countMiss: false });
    return answer && hasBytes(answer) ? answer : undefined;
  }

  private lookUp(key: string, options: { countMiss?: boolean }): CachedAnswer | KeptBytes | undefined {
    if (!this.entries) return undefined;
    const answer = this.entries.get(key);
    if (answer || options.countMiss !== false) cacheLookups.inc({ result: answer ? "hit" : "miss" });
    return answer;
  }

  /**
   * Keeps `answer` under `key` until the data changes, for `validForMs` at
   * most (infinite for an answer that does not depend on the clock), and
   * never longer than `ttlMs`. An answer already due is not kept, nor one
   * begun before the cache was last emptied (`since`, its {@link generation}
   * then): it may hold data older than the change.
   */
  set(key: string, answer: CachedAnswer, validForMs: number, since: number): void {
    if (since === this.clears) this.put(key, answer, validForMs);
  }

  /**
   * Keeps `answer` as bytes under `key`, as {@link set} does, unless the
   * cache was emptied since `since` (its {@link generation} when the answer
   * was begun): the answer may then hold data older than the change.
   */
  keep(key: string, answer: KeptBytes, validForMs: number, since: number): void {
    if (since === this.clears) this.put(key, answer, validForMs);
  }

  /** Stores an answer for `validForMs` at most, never longer than `ttlMs`; one already due is not stored. */
  private put(key: string, answer: CachedAnswer | KeptBytes, validForMs: number): void {
    const ttl = Math.floor(Math.min(validForMs, this.ttlMs));
    if (ttl < 1 || !this.entries) return;
    this.entries.set(key, answer, { ttl });
    if (this.shared && this.version !== undefined && hasBytes(answer)) {
      const { status, bytes, headers, etag, idAt, uses } = answer;
      this.shared.store.put(this.version, key, { status, bytes, headers, etag, idAt, uses, parsed: "text" in answer }, validForMs);
    }
  }

  /** Forgets every answer; the data version is learnt again. */
  clear(): void {
    this.clears++;
    this.entries?.clear();
    if (this.shared) this.learnVersion();
  }

  /**
   * Shares answers with every process that uses the same Redis: each answer
   * kept here is stored there under the data version it was computed from,
   * and {@link fromShared} finds those other processes stored.
   *
   * `readVersion` gives the current data version, read together with
   * whatever makes the reads that follow see it (the replicas' fence,
   * src/db/replicas.ts). Until it has answered after a change, nothing is
   * shared; once it has, the generation moves, so that an answer begun
   * before is not stored under a version it may not hold.
   */
  share(store: SharedAnswers, readVersion: () => Promise<number>): void {
    if (!this.entries) return;
    this.shared = { store, readVersion };
    this.learnVersion();
  }

  private learnVersion(): void {
    const shared = this.shared!;
    const generation = this.clears;
    this.version = undefined;
    const learning = shared.readVersion().then(
      (version) => {
        if (generation !== this.clears) return;
        this.clears++;
        this.version = version;
      },
      () => undefined,
    );
    this.learning = learning;
    void learning.finally(() => {
      if (this.learning === learning) this.learning = undefined;
    });
  }

  /**
   * The answer another process stored in Redis under `key` for the current
   * data version, kept here too from now on; undefined when there is none,
   * the version is not known yet, or the data changed during the lookup.
   */
  async fromShared(key: string): Promise<CachedAnswer | KeptBytes | undefined> {
    if (!this.shared || !this.entries) return undefined;
    if (this.version === undefined) {
      // A version that could not be read (the primary away) is asked for again.
      if (!this.learning) this.learnVersion();
      return undefined;
    }
    const since = this.clears;
    const entry = await this.shared.store.get(this.version, key);
    if (!entry || since !== this.clears) return undefined;
    const answer = fromEntry(entry);
    const ttl = Math.floor(Math.min(entry.until - Date.now(), this.ttlMs));
    if (ttl >= 1) this.entries.set(key, answer, { ttl });
    return answer;
  }

  /** Empties the cache whenever the database announces a change; `close` stops listening. */
  async follow(db: Pick<Database, "listen">): Promise<void> {
    if (!this.entries) return;
    this.listener = await db.listen(DATA_CHANGED, () => {
      this.clear();
      cacheClears.inc();
    });
  }

  async close(): Promise<void> {
    await this.listener?.close();
  }
}
