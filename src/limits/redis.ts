/**
 * The Redis connection for shared limits. It fails fast instead of queueing
 * commands while Redis is away, so the limiter's in-memory fallback answers
 * at once; ioredis keeps reconnecting in the background.
 */
import { type Command, Redis } from "ioredis";
import type { Logger } from "pino";
import { redisFor } from "./redis-url.js";

/**
 * How long a command may wait for Redis's reply before the per-process
 * fallback answers: a frozen Redis must not hold requests.
 */
const COMMAND_TIMEOUT_MS = 500;

/**
 * An ioredis client whose command timeout measures Redis, not this process.
 * ioredis's own `commandTimeout` is a plain timer: after the event loop was
 * held up past it (a burst of requests, a pause of the process), the timer
 * runs before the socket is read, and a reply that has been waiting all along
 * counts as a timeout. Then the limiter falls back to counting alone and a
 * key gets more than its shared limit. Here a command that is due fails only
 * if its reply is still missing once the loop has read what the socket holds
 * (`setImmediate` runs after the I/O phase of the same turn).
 */
class PatientRedis extends Redis {
  override sendCommand(command: Command, stream?: Parameters<Redis["sendCommand"]>[1]): unknown {
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!command.isSettled) command.reject(new Error("Command timed out"));
        }),
      COMMAND_TIMEOUT_MS,
    );
    const clear = () => clearTimeout(timer);
    command.promise.then(clear, clear);
    return super.sendCommand(command, stream);
  }
}

/**
 * Connects, waiting up to `readyMs` for the first connection so that the
 * first requests are counted in Redis; if it is not reachable by then, the
 * gateway starts anyway on the per-process fallback.
 */
export async function connectRedis(url: string, log?: Pick<Logger, "warn" | "info">, readyMs = 3_000): Promise<Redis> {
  const redis = redisFor(PatientRedis, url, {
    // No `commandTimeout`: PatientRedis keeps its own (COMMAND_TIMEOUT_MS).
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    // Behind Sentinels: after a failover, ask them again at once, and keep asking.
    sentinelRetryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let down = false;
  const lost = (reason: string) => {
    if (!down) log?.warn({ err: reason }, "Redis unreachable: limits fall back to this process");
    down = true;
  };
  redis.on("error", (error: Error) => lost(error.message));
  // A Redis that shuts down closes the connection without an error; ioredis then reconnects.
  redis.on("reconnecting", () => lost("connection closed"));
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
