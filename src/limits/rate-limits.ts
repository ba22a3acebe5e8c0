/**
 * Per-key request limits: a minute and a day window (windows.ts), counted
 * with rate-limiter-flexible, in memory or in Redis so that every gateway
 * process shares one budget per key.
 *
 * Each request adds one to the minute counter and then the day counter; a
 * counter that goes over its limit is given its point back (and so is the
 * minute counter when the day refuses), so a refused request uses no quota
 * and a burst admits exactly the limit.
 *
 * While Redis is away each process counts alone, in memory, and remembers
 * what it counted ("unshared" points). When Redis answers again, a key's next
 * request adds those points to the shared counter.
 *
 * A Redis that comes back empty (restarted without persistence) lost what was
 * counted in it before, too. Each process also keeps what it added to the
 * shared counters of the current windows, and Redis holds an epoch key: a
 * process that reconnects and finds another epoch (or none) adds its own
 * points again, once. So a restart hands out no fresh budget: the counters
 * are what the processes counted, give or take the requests of each process
 * that reach the new Redis before its points do (at most its limit plus one
 * request per process in the window).
 */
import { randomUUID } from "node:crypto";
import { type RateLimiterAbstract, RateLimiterCluster, RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";
import { withDeadline } from "../db/availability.js";
import { INT32_MAX } from "../input-limits.js";
import { type LimitName, type WindowName, WINDOW_MS, WINDOW_OF, windowAt } from "./windows.js";

export interface Limits {
  perMinute: number;
  perDay: number;
}

export interface WindowState {
  name: LimitName;
  limit: number;
  remaining: number;
  /** Epoch milliseconds when the window resets. */
  resetsAt: number;
}

export type Decision = {
  /** The instant (epoch ms) the decision was taken at; headers are relative to it. */
  at: number;
  /** The limits that applied to this request: the key's minute and day, and its per-visitor ones if it has them. */
  limits: Record<WindowName, number> & Partial<Record<LimitName, number>>;
  /** The windows counted, in that order (a refusal by one stops before the next). */
  windows: WindowState[];
} & ({ allowed: true } | { allowed: false; refusedBy: LimitName; retryAfterSeconds: number });

/** One visitor's share of a key: who (src/keys/restrictions.ts `visitorOf`), and its limits (null: none). */
export interface Visitor {
  id: string;
  perMinute: number | null;
  perDay: number | null;
}

export interface RateLimitsOptions {
  /** Limits of a key that has none of its own. */
  defaults: Limits;
  /** A connected ioredis client to share counters through; none: in memory. */
  redis?: unknown;
  /**
   * This process is a worker of WEB_CONCURRENCY: without Redis (and while it
   * is away) it counts through the primary's RateLimiterClusterMaster, so every
   * worker shares one budget per key.
   */
  cluster?: boolean;
  /** Told once when Redis fails and the per-process fallback takes over. */
  onFallback?: (error: unknown) => void;
  /** The clock. */
  now?: () => number;
}

// The limiters never refuse by themselves; limits are per key and compared here.
const UNBOUNDED = INT32_MAX;

/** Names the counters Redis holds now: a Redis without it (or with another) lost those a process added before. */
const EPOCH_KEY = "uedu-rl-epoch";

/** What the limits use of an ioredis client, beside rate-limiter-flexible. */
interface EpochClient {
  status: string;
  on(event: "ready", listener: () => void): unknown;
  set(key: string, value: string, nx: "NX"): Promise<unknown>;
  get(key: string): Promise<string | null>;
}

export class RateLimits {
  private readonly limiters: Record<WindowName, RateLimiterAbstract>;
  private readonly now: () => number;
  private warned = false;
  /** Points counted in memory while Redis was away, by window and counter, not yet added to Redis. */
  private readonly unshared = new Map<string, number>();
  /** Points this process added to Redis, by window and counter: what it adds again to a Redis that lost them. */
  private readonly added = new Map<string, number>();
  /** What Redis last said each counter held, without this process's own points since (`count`), by window and counter. */
  private readonly seen = new Map<string, number>();
  /** The epoch of the Redis this process counted in; undefined before it first reached one. */
  private epoch: string | undefined;
  /** The last rejoin, for tests to wait on. */
  rejoined: Promise<void> = Promise.resolve();

  constructor(private readonly options: RateLimitsOptions) {
    this.now = options.now ?? Date.now;
    const make = (name: WindowName): RateLimiterAbstract => {
      const base = { keyPrefix: `uedu-rl-${name}`, points: UNBOUNDED, duration: WINDOW_MS[name] / 1000 };
      const memory = options.cluster ? new ClusterCounter(base) : new RateLimiterMemory(base);
      if (!options.redis) return memory;
      return new RateLimiterRedis({
        ...base,
        storeClient: options.redis,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new FallbackLimiter(memory, (error) => this.fallback(error)),
      });
    };
    this.limiters = { minute: make("minute"), day: make("day") };
    if (options.redis) {
      const redis = options.redis as EpochClient;
      // Taken at the reconnection itself: what was added before it is what an empty Redis lost.
      const rejoin = () => {
        this.rejoined = this.rejoin(redis, this.current(this.added));
      };
      redis.on("ready", rejoin);
      if (redis.status === "ready") rejoin();
    }
  }

  /**
   * Learns the epoch of the Redis just reached; when it is not the one this
   * process counted in (a Redis that lost its data: no epoch, or a new one set
   * by another process), adds `points` (what this process had added) again.
   */
  private async rejoin(redis: EpochClient, points: [string, number][]): Promise<void> {
    try {
      await redis.set(EPOCH_KEY, randomUUID(), "NX");
      const epoch = await redis.get(EPOCH_KEY);
      if (epoch === null) return;
      if (this.epoch !== undefined && epoch !== this.epoch) {
        for (const [id, n] of points) {
          const [name, counter] = [id.slice(0, id.indexOf(":")) as WindowName, id.slice(id.indexOf(":") + 1)];
          // Not to the fallback: if Redis is away again, the next reconnection adds them.
          await this.limiters[name].consume(counter, n, { rejoining: true } satisfies CountOptions);
        }
      }
      this.epoch = epoch;
    } catch {
      // Redis went away again: its next "ready" tries again.
    }
  }

  /**
   * Counts one request of key `keyId` (limits: the key's own, else the
   * defaults), and of its `visitor` when the key limits each visitor: a
   * request any limit refuses is counted against none.
   */
  async take(keyId: number, own: { perMinute: number | null; perDay: number | null }, visitor?: Visitor): Promise<Decision> {
    const now = this.now();
    const limits: Decision["limits"] = {
      minute: own.perMinute ?? this.options.defaults.perMinute,
      day: own.perDay ?? this.options.defaults.perDay,
    };
    const counted: { name: LimitName; counter: string }[] = [
      { name: "minute", counter: String(keyId) },
      { name: "day", counter: String(keyId) },
    ];
    if (visitor?.perMinute) {
      limits["visitor-minute"] = visitor.perMinute;
      counted.push({ name: "visitor-minute", counter: `${keyId}@${visitor.id}` });
    }
    if (visitor?.perDay) {
      limits["visitor-day"] = visitor.perDay;
      counted.push({ name: "visitor-day", counter: `${keyId}@${visitor.id}` });
    }
    const taken: { name: WindowName; counter: string }[] = [];
    const windows: WindowState[] = [];
    for (const { name, counter: of } of counted) {
      const window = WINDOW_OF[name];
      const { index, resetsAt } = windowAt(window, now);
      const counter = `${of}:${index}`;
      const result = await this.count(window, counter);
      taken.push({ name: window, counter });
      const used = result.consumedPoints + result.seenShared;
      const limit = limits[name]!;
      if (used > limit) {
        await Promise.all(taken.map((t) => this.giveBack(t.name, t.counter)));
        const states = [
          // The earlier windows were given their point back.
          ...windows.map((w) => ({ ...w, remaining: w.remaining + 1 })),
          { name, limit, remaining: 0, resetsAt },
        ];
        return {
          allowed: false,
          at: now,
          limits,
          windows: states,
          refusedBy: name,
          retryAfterSeconds: Math.max(1, Math.ceil((resetsAt - now) / 1000)),
        };
      }
      windows.push({ name, limit, remaining: limit - used, resetsAt });
    }
    return { allowed: true, at: now, limits, windows };
  }

  /**
   * The requests key `keyId` made in today's window (UTC day), without
   * counting one; null when the shared count cannot be read (Redis away).
   */
  async usedToday(keyId: number): Promise<number | null> {
    const counter = `${keyId}:${windowAt("day", this.now()).index}`;
    try {
      const state = await this.limiters.day.get(counter);
      return (state?.consumedPoints ?? 0) + (this.unshared.get(`day:${counter}`) ?? 0);
    } catch {
      return null;
    }
  }

  /**
   * Adds one to a counter, and to Redis also what this process counted alone
   * meanwhile. Counted alone, the request also counts what Redis last said
   * the counter held (`seenShared`): while Redis is away, each process goes
   * on from the shared count it last saw rather than from nothing, so no
   * process serves more than the limit in a window (a Redis failover or
   * outage hands out no fresh budget to any process).
   */
  private async count(name: WindowName, counter: string) {
    const id = `${name}:${counter}`;
    const backlog = this.unshared.get(id) ?? 0;
    const options: CountOptions = { backlog };
    const result = await this.limiters[name].consume(counter, 1 + backlog, options);
    if (options.viaFallback) {
      this.remember(this.unshared, id, backlog + 1);
      return { consumedPoints: result.consumedPoints, seenShared: this.seen.get(id) ?? 0 };
    }
    this.unshared.delete(id);
    if (this.options.redis) {
      this.remember(this.added, id, (this.added.get(id) ?? 0) + 1 + backlog);
      // The backlog is in the memory counter already; this request's point is not.
      this.remember(this.seen, id, result.consumedPoints - backlog);
    }
    return { consumedPoints: result.consumedPoints, seenShared: 0 };
  }

  /** Takes back a refused request's point, where it was counted. */
  private async giveBack(name: WindowName, counter: string): Promise<void> {
    const options: CountOptions = {};
    await this.limiters[name].reward(counter, 1, options);
    const id = `${name}:${counter}`;
    const backlog = this.unshared.get(id);
    if (options.viaFallback && backlog) this.remember(this.unshared, id, backlog - 1);
    const added = this.added.get(id);
    if (!options.viaFallback && added) this.remember(this.added, id, added - 1);
    const seen = this.seen.get(id);
    if (!options.viaFallback && seen) this.remember(this.seen, id, seen - 1);
  }

  private remember(map: Map<string, number>, id: string, points: number): void {
    map.set(id, points);
    // Counters of past windows can never be added again: keep the map small.
    if (map.size > 10_000) {
      const current = this.suffixes();
      for (const key of map.keys()) if (!current.some((suffix) => key.endsWith(suffix))) map.delete(key);
    }
  }

  /** The endings of the current windows' counters. */
  private suffixes(): string[] {
    return (["minute", "day"] as const).map((name) => `:${windowAt(name, this.now()).index}`);
  }

  /** The entries of `map` for the current windows. */
  private current(map: Map<string, number>): [string, number][] {
    const suffixes = this.suffixes();
    return [...map].filter(([id, n]) => n > 0 && suffixes.some((suffix) => id.endsWith(suffix)));
  }

  private fallback(error: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.options.onFallback?.(error);
    setTimeout(() => (this.warned = false), 60_000).unref();
  }
}

/**
 * What `count` tells the limiters, and learns back: rate-limiter-flexible
 * hands the same options object to the fallback when Redis fails.
 */
interface CountOptions extends Record<string, unknown> {
  /** Points of this call that the process counted in memory already. */
  backlog?: number;
  /** Set when the fallback answered. */
  viaFallback?: boolean;
  /** Points added again to a Redis that lost them: never counted by the fallback. */
  rejoining?: boolean;
}

/** How long a worker waits for the primary's count (the primary only counts in memory: it answers in well under this). */
const PRIMARY_ANSWER_MS = 2_000;

/**
 * A worker's counter kept by the primary's RateLimiterClusterMaster. A count
 * the primary does not answer in time is `Unavailable` (a 503 with
 * Retry-After on every surface, src/db/availability.ts), not an unexpected
 * error; and one that came while this worker was busy is read before it is
 * judged late (`withDeadline`). The library's own timer rejects after it has
 * checked the timers, before the answer waiting in the IPC channel is read:
 * after a long synchronous stretch (the environment snapshots of a start),
 * requests whose counts the primary had answered were refused with a 500.
 */
class ClusterCounter extends RateLimiterCluster {
  constructor(options: { keyPrefix: string; points: number; duration: number }) {
    // The library's timer stays as a backstop: it removes a count that never gets an answer from its table.
    super({ ...options, timeoutMs: 10 * PRIMARY_ANSWER_MS });
  }

  override consume(key: string | number, points?: number, options?: Record<string, unknown>) {
    return withDeadline(super.consume(key, points, options), PRIMARY_ANSWER_MS, "the primary's rate-limit count");
  }

  override reward(key: string | number, points?: number, options?: Record<string, unknown>) {
    return withDeadline(super.reward(key, points, options), PRIMARY_ANSWER_MS, "the primary's rate-limit count");
  }

  override get(key: string | number, options?: Record<string, unknown>) {
    return withDeadline(super.get(key, options), PRIMARY_ANSWER_MS, "the primary's rate-limit count");
  }
}

/** The in-memory limiter Redis falls back to, reporting each fallback. */
class FallbackLimiter extends RateLimiterMemory {
  constructor(
    private readonly inner: RateLimiterAbstract,
    private readonly onUse: (error: unknown) => void,
  ) {
    super({ points: inner.points, duration: inner.duration, keyPrefix: inner.keyPrefix });
  }

  /** Counts in memory only the new points: the backlog is there already. */
  override consume(key: string | number, points = 1, options: CountOptions = {}) {
    if (options.rejoining) return Promise.reject(new Error("Redis unavailable"));
    this.onUse(new Error("Redis unavailable"));
    options.viaFallback = true;
    return this.inner.consume(key, points - (options.backlog ?? 0), options);
  }

  override reward(key: string | number, points = 1, options: CountOptions = {}) {
    options.viaFallback = true;
    return this.inner.reward(key, points, options);
  }
}
