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
import { cacheClears, cacheLookups } from "../observe/metrics.js";

/** A cached answer: its status, body, the body's JSON text, and headers. */
export interface CachedAnswer {
  status: number;
  body: unknown;
  text: string;
  headers?: Record<string, string>;
  /**
   * The text's bytes, where they are kept beside it to be written as they
   * are. Counted twice in the cache's size: once for themselves, once for
   * the compressed forms the cached path may keep with them (brotli, gzip
   * and deflate together: 0.91 of the bytes for the 2 KB universities list,
   * less for larger answers; answers under 1 KB are never compressed).
   */
  bytes?: Uint8Array;
}

export interface AnswerCacheOptions {
  /** The longest any answer is kept, in ms; 0 turns the cache off. */
  ttlMs: number;
  /** Most bytes of answer text kept; the least recently used go first. Default 16 MiB. */
  maxBytes?: number;
}

export class AnswerCache {
  private readonly entries: LRUCache<string, CachedAnswer> | undefined;
  private listener: Listener | undefined;
  private readonly ttlMs: number;

  constructor(options: AnswerCacheOptions) {
    this.ttlMs = options.ttlMs;
    this.entries =
      options.ttlMs > 0
        ? new LRUCache<string, CachedAnswer>({
            ttl: options.ttlMs,
            maxSize: options.maxBytes ?? 16 * 2 ** 20,
            sizeCalculation: (answer) => answer.text.length + 2 * (answer.bytes?.length ?? 0) + 64,
            // An answer bigger than the whole cache is simply not kept.
            maxEntrySize: options.maxBytes ?? 16 * 2 ** 20,
          })
        : undefined;
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
    if (!this.entries) return undefined;
    const answer = this.entries.get(key);
    if (answer || options.countMiss !== false) cacheLookups.inc({ result: answer ? "hit" : "miss" });
    return answer;
  }

  /**
   * Keeps `answer` under `key` until the data changes, for `validForMs` at
   * most (infinite for an answer that does not depend on the clock), and
   * never longer than `ttlMs`. An answer already due is not kept.
   */
  set(key: string, answer: CachedAnswer, validForMs: number): void {
    const ttl = Math.floor(Math.min(validForMs, this.ttlMs));
    if (ttl >= 1) this.entries?.set(key, answer, { ttl });
  }

  /** Forgets every answer. */
  clear(): void {
    this.entries?.clear();
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
