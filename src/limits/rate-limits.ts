/**
 * Per-key request limits: a minute and a day window (windows.ts), counted
 * with rate-limiter-flexible, in memory or in Redis so that every gateway
 * process shares one budget per key.
 *
 * Each request adds one to the minute counter and then the day counter; a
 * counter that goes over its limit is given its point back (and so is the
 * minute counter when the day refuses), so a refused request uses no quota
 * and a burst admits exactly the limit.
 */
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";
import { type WindowName, WINDOW_MS, windowAt } from "./windows.js";

export interface Limits {
  perMinute: number;
  perDay: number;
}

export interface WindowState {
  name: WindowName;
  limit: number;
  remaining: number;
  /** Epoch milliseconds when the window resets. */
  resetsAt: number;
}

export type Decision = {
  /** The instant (epoch ms) the decision was taken at; headers are relative to it. */
  at: number;
  /** The limits that applied to this key. */
  limits: Record<WindowName, number>;
  /** The windows counted, minute first (a refusal by the minute stops before the day). */
  windows: WindowState[];
} & ({ allowed: true } | { allowed: false; refusedBy: WindowName; retryAfterSeconds: number });

export interface RateLimitsOptions {
  /** Limits of a key that has none of its own. */
  defaults: Limits;
  /** A connected ioredis client to share counters through; none: in memory. */
  redis?: unknown;
  /** Told once when Redis fails and the per-process fallback takes over. */
  onFallback?: (error: unknown) => void;
  /** The clock. */
  now?: () => number;
}

// The limiters never refuse by themselves; limits are per key and compared here.
const UNBOUNDED = 2 ** 31 - 1;

export class RateLimits {
  private readonly limiters: Record<WindowName, RateLimiterAbstract>;
  private readonly now: () => number;
  private warned = false;

  constructor(private readonly options: RateLimitsOptions) {
    this.now = options.now ?? Date.now;
    const make = (name: WindowName): RateLimiterAbstract => {
      const base = { keyPrefix: `uedu-rl-${name}`, points: UNBOUNDED, duration: WINDOW_MS[name] / 1000 };
      const memory = new RateLimiterMemory(base);
      if (!options.redis) return memory;
      return new RateLimiterRedis({
        ...base,
        storeClient: options.redis,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new FallbackLimiter(memory, (error) => this.fallback(error)),
      });
    };
    this.limiters = { minute: make("minute"), day: make("day") };
  }

  /** Counts one request of key `keyId` (limits: the key's own, else the defaults). */
  async take(keyId: number, own: { perMinute: number | null; perDay: number | null }): Promise<Decision> {
    const now = this.now();
    const limits: Record<WindowName, number> = {
      minute: own.perMinute ?? this.options.defaults.perMinute,
      day: own.perDay ?? this.options.defaults.perDay,
    };
    const taken: { name: WindowName; counter: string }[] = [];
    const windows: WindowState[] = [];
    for (const name of ["minute", "day"] as const) {
      const { index, resetsAt } = windowAt(name, now);
      const counter = `${keyId}:${index}`;
      const result = await this.limiters[name].consume(counter, 1);
      taken.push({ name, counter });
      const used = result.consumedPoints;
      if (used > limits[name]) {
        await Promise.all(taken.map((t) => this.limiters[t.name].reward(t.counter, 1)));
        const states = [
          // The earlier windows were given their point back.
          ...windows.map((w) => ({ ...w, remaining: w.remaining + 1 })),
          { name, limit: limits[name], remaining: 0, resetsAt },
        ];
        return { allowed: false, at: now, limits, windows: states, refusedBy: name, retryAfterSeconds: Math.max(1, Math.ceil((resetsAt - now) / 1000)) };
      }
      windows.push({ name, limit: limits[name], remaining: limits[name] - used, resetsAt });
    }
    return { allowed: true, at: now, limits, windows };
  }

  private fallback(error: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.options.onFallback?.(error);
    setTimeout(() => (this.warned = false), 60_000).unref();
  }
}

/** The in-memory limiter Redis falls back to, reporting each fallback. */
class FallbackLimiter extends RateLimiterMemory {
  constructor(
    private readonly inner: RateLimiterMemory,
    private readonly onUse: (error: unknown) => void,
  ) {
    super({ points: inner.points, duration: inner.duration, keyPrefix: inner.keyPrefix });
  }

  override consume(key: string | number, points?: number, options?: Record<string, unknown>) {
    this.onUse(new Error("Redis unavailable"));
    return this.inner.consume(key, points, options);
  }

  override reward(key: string | number, points?: number, options?: Record<string, unknown>) {
    return this.inner.reward(key, points, options);
  }
}
