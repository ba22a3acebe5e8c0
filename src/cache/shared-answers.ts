/**
 * The second level of kept answers: Redis, shared by every gateway process on
 * every host that uses the same REDIS_URL (RESPONSE_CACHE_SHARED_MS). N hosts
 * then compute each answer once per data version rather than N times.
 *
 * An answer is stored under the data version it was computed from
 * (`data_version.version`, which every change of the data moves,
 * src/db/changes.ts), so nothing needs to be invalidated: after a change,
 * every host asks for the new version's answers, and the old ones expire.
 * An answer's entry keeps its bytes, status, own headers, `ETag` and the
 * instant it stops being true (an environment answer's, src/cache/answers.ts).
 *
 * Redis is never a dependency: a Redis that is away, slow or frozen is a miss
 * within its command timeout (src/limits/redis.ts), after which it is left
 * alone for a second, and the answer is computed as without it.
 */
import type { Logger } from "pino";
import { sharedAnswerLookups } from "../observe/metrics.js";
import { sha256Hex } from "../sha256.js";

/** What the store uses of an ioredis client. */
export interface AnswerRedis {
  set(key: string, value: Buffer, expiry: "PX", ms: number): Promise<unknown>;
  getBuffer(key: string): Promise<Buffer | null>;
}

/** An answer as stored: as the lean path writes it, and, for a v1 answer, the JSON text its callers read. */
export interface SharedEntry {
  status: number;
  bytes: Buffer;
  headers?: Readonly<Record<string, string>> | undefined;
  etag?: string | undefined;
  idAt?: number | undefined;
  /** What the request that made it used (KeptBytes.uses). */
  uses?: readonly string[] | undefined;
  /** Whether `bytes` are a v1 answer's JSON (the MCP tools and REST read its `body`). */
  parsed: boolean;
  /** Until when (ms since the epoch) the answer is true. */
  until: number;
}

/** The Redis key of an answer: its data version and the SHA-256 of its cache key. */
export const answerKey = (version: number, key: string): string => `uedu:answer:${version}:${sha256Hex(key)}`;

/** Largest answer shared, in bytes; a larger one is kept by its process alone. */
export const MAX_SHARED_BYTES = 1024 * 1024;

/** How long Redis is left alone after it failed, in ms. */
const PAUSE_MS = 1_000;

/** `[u32 length of the head][head as JSON][bytes]`. */
function encode(entry: SharedEntry): Buffer {
  const { bytes, ...head } = entry;
  const text = Buffer.from(JSON.stringify(head));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(text.length);
  return Buffer.concat([length, text, bytes]);
}

function decode(value: Buffer): SharedEntry | undefined {
  try {
    const length = value.readUInt32BE(0);
    const head = JSON.parse(value.subarray(4, 4 + length).toString("utf8")) as Omit<SharedEntry, "bytes">;
    if (typeof head.status !== "number" || typeof head.until !== "number") return undefined;
    return { ...head, bytes: value.subarray(4 + length) };
  } catch {
    return undefined;
  }
}

export interface SharedAnswersOptions {
  /** The Redis every gateway process shares. */
  redis: AnswerRedis;
  /** Longest an answer stays in Redis, in ms (RESPONSE_CACHE_SHARED_MS). */
  ttlMs: number;
  /** Told once when Redis fails, and once when it answers again. */
  log?: Pick<Logger, "warn" | "info"> | undefined;
}

export class SharedAnswers {
  private failing = false;
  private pausedUntil = 0;

  constructor(private readonly options: SharedAnswersOptions) {}

  /** The answer stored under `key` for data `version`, if it is still true. */
  async get(version: number, key: string): Promise<SharedEntry | undefined> {
    if (Date.now() < this.pausedUntil) return undefined;
    let value: Buffer | null;
    try {
      value = await this.options.redis.getBuffer(answerKey(version, key));
    } catch (error) {
      this.failed(error);
      return undefined;
    }
    this.answered();
    const entry = value ? decode(value) : undefined;
    const found = entry && entry.until > Date.now() ? entry : undefined;
    sharedAnswerLookups.inc({ result: found ? "hit" : "miss" });
    return found;
  }

  /** Stores an answer computed from data `version`, true for `validForMs` (kept no longer than the setting). */
  put(version: number, key: string, entry: Omit<SharedEntry, "until">, validForMs: number): void {
    const ms = Math.floor(Math.min(validForMs, this.options.ttlMs));
    if (ms < 1 || entry.bytes.length > MAX_SHARED_BYTES || Date.now() < this.pausedUntil) return;
    this.options.redis.set(answerKey(version, key), encode({ ...entry, until: Date.now() + ms }), "PX", ms).then(
      () => this.answered(),
      (error: unknown) => this.failed(error),
    );
  }

  private failed(error: unknown): void {
    sharedAnswerLookups.inc({ result: "error" });
    this.pausedUntil = Date.now() + PAUSE_MS;
    if (!this.failing) this.options.log?.warn({ err: String(error) }, "Redis unreachable: answers are kept by this process alone");
    this.failing = true;
  }

  private answered(): void {
    if (this.failing) this.options.log?.info("Redis reachable again: answers are shared");
    this.failing = false;
  }
}
