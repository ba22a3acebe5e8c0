/**
 * Limit headers of a keyed response: the IETF RateLimit-Policy / RateLimit
 * fields (draft-ietf-httpapi-ratelimit-headers) and the widespread
 * X-RateLimit-* trio, which describes the window closest to running out.
 * `X-RateLimit-Reset` is in epoch seconds (GitHub's convention); the IETF `t`
 * parameter is seconds from now.
 */
import type { Decision } from "./rate-limits.js";
import { type LimitName, WINDOW_MS, WINDOW_OF } from "./windows.js";

/**
 * The headers of a decision: every limit that applied in the policy (a key
 * with per-visitor limits has four), and in `X-RateLimit-*` the one closest
 * to running out, the key's or the visitor's.
 */
export function limitHeaders(decision: Decision, now: number): Record<string, string> {
  const seconds = (at: number) => Math.max(0, Math.ceil((at - now) / 1000));
  const policy = (Object.keys(decision.limits) as LimitName[])
    .map((name) => `"${name}";q=${decision.limits[name]};w=${WINDOW_MS[WINDOW_OF[name]] / 1000}`)
    .join(", ");
  const current = decision.windows.map((w) => `"${w.name}";r=${w.remaining};t=${seconds(w.resetsAt)}`).join(", ");
  const tightest = decision.windows.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  const headers: Record<string, string> = {
    "ratelimit-policy": policy,
    ratelimit: current,
    "x-ratelimit-limit": String(tightest.limit),
    "x-ratelimit-remaining": String(tightest.remaining),
    "x-ratelimit-reset": String(Math.ceil(tightest.resetsAt / 1000)),
  };
  if (!decision.allowed) headers["retry-after"] = String(decision.retryAfterSeconds);
  return headers;
}
