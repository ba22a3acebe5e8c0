/**
 * REDIS_URL: a Redis server (`redis://`, `rediss://`), or a master that
 * Redis Sentinel manages (`redis+sentinel://`), whose clients ask the
 * Sentinels where the master is and follow it across a failover:
 *
 *     redis+sentinel://[[user]:password@]host[:port][,host[:port]…]/master-name[?db=N]
 *
 * Each host is a Sentinel (port 26379 by default); the user and password,
 * if any, are the master's (and are sent to the Sentinels too); the path is
 * the name the Sentinels know the master by, and must be given.
 */
import type { RedisOptions } from "ioredis";

/** The scheme of a Sentinel-managed master. */
const SENTINEL = "redis+sentinel:";

/** A REDIS_URL that is not one: the message says what is wrong, never the password. */
export class RedisUrlError extends Error {}

/** Whether `url` names Sentinels rather than a server. */
export const isSentinelUrl = (url: string): boolean => url.toLowerCase().startsWith(`${SENTINEL}//`);

/** The Sentinels, master name, credentials and database of a `redis+sentinel://` URL; throws a {@link RedisUrlError}. */
export function sentinelOptions(url: string): RedisOptions {
  const match = /^redis\+sentinel:\/\/(?:([^@/]*)@)?([^/?#]*)(?:\/([^/?#]*))?(?:\?([^#]*))?$/i.exec(url);
  if (!match) throw new RedisUrlError("REDIS_URL is not a redis+sentinel:// URL like redis+sentinel://host1:26379,host2:26379/mymaster");
  const [, credentials, hostList = "", master = "", query = ""] = match;
  const name = decodeURIComponent(master);
  if (!name) {
    throw new RedisUrlError(
      "REDIS_URL names Sentinels without a master name: write the name the Sentinels know it by, as in redis+sentinel://host1:26379,host2:26379/mymaster",
    );
  }
  const sentinels = hostList.split(",").map((entry) => {
    const hostPort = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry.trim());
    const port = Number(hostPort?.[2] ?? 26379);
    if (!hostPort || port < 1 || port > 65_535) {
      throw new RedisUrlError(
        "REDIS_URL's Sentinels must be host[:port] pairs separated by commas, as in redis+sentinel://host1:26379,host2:26379/mymaster",
      );
    }
    return { host: hostPort[1]!.replace(/^\[|\]$/g, ""), port };
  });
  const params = new URLSearchParams(query);
  const db = params.get("db");
  if (db !== null && !/^\d{1,2}$/.test(db)) throw new RedisUrlError("REDIS_URL's db must be a database number, as in ?db=0");
  const [user, password] = (credentials ?? "").split(":").map((part) => decodeURIComponent(part));
  return {
    sentinels,
    name,
    ...(db === null ? {} : { db: Number(db) }),
    ...(user ? { username: user, sentinelUsername: user } : {}),
    ...(password ? { password, sentinelPassword: password } : {}),
  };
}

/** A client of `Client` (ioredis's `Redis` or a subclass) for REDIS_URL, server or Sentinels alike, with `options`. */
export function redisFor<T>(Client: new (...args: never[]) => T, url: string, options: RedisOptions): T {
  const make = Client as unknown as { new (url: string, options: RedisOptions): T; new (options: RedisOptions): T };
  return isSentinelUrl(url) ? new make({ ...sentinelOptions(url), ...options }) : new make(url, options);
}
