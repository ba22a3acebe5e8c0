/**
 * The Redis connection for shared limits. It fails fast instead of queueing
 * commands while Redis is away, so the limiter's in-memory fallback answers
 * at once; ioredis keeps reconnecting in the background.
 */
import { Redis } from "ioredis";
import type { Logger } from "pino";

/**
 * Connects, waiting up to `readyMs` for the first connection so that the
 * first requests are counted in Redis; if it is not reachable by then, the
 * gateway starts anyway on the per-process fallback.
 */
export async function connectRedis(url: string, log?: Pick<Logger, "warn" | "info">, readyMs = 3_000): Promise<Redis> {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    // A frozen Redis must not hold requests: past this, the per-process fallback answers.
    commandTimeout: 500,
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
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, readyMs);
    redis.once("ready", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return redis;
}
