/**
 * The Redis connection for shared limits. It fails fast instead of queueing
 * commands while Redis is away, so the limiter's in-memory fallback answers
 * at once; ioredis keeps reconnecting in the background.
 */
import { Redis } from "ioredis";
import type { Logger } from "pino";

export function connectRedis(url: string, log?: Pick<Logger, "warn" | "info">): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let down = false;
  redis.on("error", (error: Error) => {
    if (!down) log?.warn({ err: error.message }, "Redis unreachable: limits fall back to this process");
    down = true;
  });
  redis.on("ready", () => {
    if (down) log?.info("Redis reachable again: limits are shared");
    down = false;
  });
  return redis;
}
