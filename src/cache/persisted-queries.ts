/**
 * The documents of automatic persisted queries, by SHA-256 hash: kept in
 * this process, and, with Redis, shared by every gateway process on every
 * host that uses the same Redis. A document registered on one host then runs
 * by its hash on all of them.
 *
 * Redis is a second level, never a dependency: a document is looked up in
 * this process first, and a Redis that is away, slow or frozen answers
 * "not found" within its command timeout (src/limits/redis.ts). The client
 * then sends the document's text again, as the protocol says, and is served.
 * What Redis returns is checked against its hash before it runs, so a wrong
 * entry there can only be a "not found".
 */
import type { Logger } from "pino";
import { LRUCache } from "lru-cache";
import { sha256Hex } from "../sha256.js";

/** What the store uses of an ioredis client. */
export interface DocumentRedis {
  set(key: string, value: string, expiry: "PX", ms: number): Promise<unknown>;
  getex(key: string, expiry: "PX", ms: number): Promise<string | null>;
}

export interface PersistedQueryStoreOptions {
  /** Most characters of documents kept in this process; the least recently used go first. */
  maxStoredChars: number;
  /** The Redis every gateway process shares; unset: each process keeps its own documents. */
  redis?: DocumentRedis | undefined;
  /** How long a document stays in Redis after it was last registered or run from there. Default 24 hours. */
  sharedForMs?: number;
  /** Told once when Redis fails, and once when it answers again. */
  log?: Pick<Logger, "warn" | "info">;
}

/** The Redis key of a document. */
export const documentKey = (hash: string): string => `uedu:apq:${hash}`;

/**
 * Longest document shared through Redis, in characters; a longer one is kept
 * in this process only. With the expiry, it bounds what one registration can
 * hold in Redis (and registrations count against the key's limits like any
 * request).
 */
export const MAX_SHARED_CHARS = 32_768;

const DAY_MS = 86_400_000;

/** The store of yoga's `useAPQ`. */
export class PersistedQueryStore {
  private readonly local: LRUCache<string, string>;
  private readonly redis: DocumentRedis | undefined;
  private readonly sharedForMs: number;
  private readonly log: Pick<Logger, "warn" | "info"> | undefined;
  private failing = false;

  constructor(options: PersistedQueryStoreOptions) {
    this.local = new LRUCache<string, string>({
      maxSize: options.maxStoredChars,
      sizeCalculation: (text, hash) => text.length + hash.length,
    });
    this.redis = options.redis;
    this.sharedForMs = options.sharedForMs ?? DAY_MS;
    this.log = options.log;
  }

  /** The document of `hash`: this process's, else Redis's when it is the document of that hash. */
  get(hash: string): string | Promise<string | undefined> | undefined {
    const local = this.local.get(hash);
    if (local !== undefined || !this.redis) return local;
    return this.redis.getex(documentKey(hash), "PX", this.sharedForMs).then(
      (text) => {
        this.answered();
        if (text === null || sha256Hex(text) !== hash) return undefined;
        this.local.set(hash, text);
        return text;
      },
      (error: unknown) => {
        this.failed(error);
        return undefined;
      },
    );
  }

  /** Keeps a document the client sent with its hash (useAPQ has checked the hash). */
  set(hash: string, text: string): void {
    this.local.set(hash, text);
    if (!this.redis || text.length > MAX_SHARED_CHARS) return;
    this.redis.set(documentKey(hash), text, "PX", this.sharedForMs).then(
      () => this.answered(),
      (error: unknown) => this.failed(error),
    );
  }

  private failed(error: unknown): void {
    if (!this.failing) this.log?.warn({ err: String(error) }, "Redis unreachable: persisted queries are kept by this process alone");
    this.failing = true;
  }

  private answered(): void {
    if (this.failing) this.log?.info("Redis reachable again: persisted queries are shared");
    this.failing = false;
  }
}
