/**
 * The fixed, clock-aligned windows of docs/contract.md §8: the minute starts at :00
 * seconds, the day at 00:00 UTC.
 */

export type WindowName = "minute" | "day";

/**
 * A limit a request is counted against: the key's own windows, and the
 * per-visitor ones (one client address's share of the key, src/keys/restrictions.ts).
 */
export type LimitName = WindowName | "visitor-minute" | "visitor-day";

/** The window each limit counts in. */
export const WINDOW_OF: Record<LimitName, WindowName> = { minute: "minute", day: "day", "visitor-minute": "minute", "visitor-day": "day" };

export const WINDOW_MS: Record<WindowName, number> = { minute: 60_000, day: 86_400_000 };

/** The window containing `now`: its index (for counter keys) and when it ends. */
export function windowAt(name: WindowName, now: number): { index: number; resetsAt: number } {
  const size = WINDOW_MS[name];
  const index = Math.floor(now / size);
  return { index, resetsAt: (index + 1) * size };
}
