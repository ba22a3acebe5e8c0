export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** ISO 8601 UTC without milliseconds: 2026-11-20T00:00:00Z. */
export function isoInstant(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The start of the hour containing `ms`. */
export function floorHour(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}
