/**
 * Key changes through Redis, where REDIS_URL is set, beside the database's
 * KEYS_CHANGED notice (src/keys/store.ts). A process that revokes a key or
 * changes its limits publishes on REDIS_KEYS_CHANGED; every gateway
 * subscribed forgets its cached verifications at once. This also reaches a
 * gateway whose database connection cannot LISTEN (PostgreSQL behind a
 * pooler in transaction mode), and either path alone is enough.
 *
 * Neither side ever waits on Redis for long or fails because of it: a
 * publication that does not get through is logged and left to the database's
 * notice (and, at worst, to the verification cache's few seconds).
 */
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { redisFor } from "../limits/redis-url.js";

/** The Redis channel; the message is empty (every process forgets every key). */
export const REDIS_KEYS_CHANGED = "uedu:keys_changed";

/** How long a one-off publication may take, connection included. */
const PUBLISH_TIMEOUT_MS = 2_000;

type Log = Pick<Logger, "warn" | "info">;

/**
 * Subscribes to REDIS_KEYS_CHANGED and calls `onChange` on every message, and
 * also when the subscription resumes after Redis was unreachable (a message
 * may have been missed meanwhile). ioredis reconnects and subscribes again by
 * itself; `close` ends it.
 */
export function followKeyChangesOnRedis(url: string, onChange: () => void, log?: Log): { close(): void } {
  const subscriber = redisFor(Redis, url, {
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    // A subscription waits for the connection; it is not a request anyone waits on.
    maxRetriesPerRequest: null,
  });
  let down = false;
  let subscribed = false;
  subscriber.on("error", (error: Error) => {
    if (!down) log?.warn({ err: error.message }, "Redis unreachable: key changes are heard through the database only");
    down = true;
  });
  subscriber.on("ready", () => {
    // `ready` comes again after every reconnection (ioredis subscribes again at once).
    if (subscribed) onChange();
    if (down) log?.info("Redis reachable again: key changes are heard through it too");
    down = false;
  });
  subscriber.on("message", (channel: string) => {
    if (channel === REDIS_KEYS_CHANGED) onChange();
  });
  subscriber.subscribe(REDIS_KEYS_CHANGED).then(
    () => {
      subscribed = true;
    },
    () => undefined, // only when closed before it connected
  );
  return { close: () => subscriber.disconnect() };
}

/** Publishes a key change on a connected client; a failure is logged, never thrown. */
export function publishKeyChange(redis: Pick<Redis, "publish">, log?: Log): Promise<void> {
  return redis.publish(REDIS_KEYS_CHANGED, "").then(
    () => undefined,
    (error: Error) => log?.warn({ err: error.message }, "a key change could not be published on Redis"),
  );
}

/**
 * Publishes a key change over a connection of its own, for a command that has
 * no client: connects, publishes and disconnects within PUBLISH_TIMEOUT_MS.
 * Resolves to whether Redis took it.
 */
export async function publishKeyChangeOnce(url: string): Promise<boolean> {
  const redis = redisFor(Redis, url, {
    lazyConnect: true,
    connectTimeout: PUBLISH_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on("error", () => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), PUBLISH_TIMEOUT_MS);
  });
  try {
    const published = redis
      .connect()
      .then(() => redis.publish(REDIS_KEYS_CHANGED, ""))
      .then(
        () => true,
        () => false,
      );
    return await Promise.race([published, timeout]);
  } finally {
    clearTimeout(timer);
    redis.disconnect();
  }
}
