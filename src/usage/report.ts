/**
 * Reading `usage_day` (./recorder.ts writes it): what was used since a day,
 * by whom, and a key's requests per day. `npm run usage`, My API Keys and the
 * removal check read it through these.
 */
import type { Database } from "../db/driver.js";
import { isEntry } from "./coordinates.js";

/** One coordinate's use since a day. */
export interface CoordinateUse {
  coordinate: string;
  requests: number;
  /** How many distinct keys used it. */
  keys: number;
  /** The last use, ISO 8601. */
  lastUsed: string;
}

/** One key's use of one coordinate since a day. */
export interface KeyUse {
  coordinate: string;
  keyId: number;
  /** The key's name and owner, when the key still exists. */
  name: string | null;
  owner: string | null;
  requests: number;
  lastUsed: string;
}

/** The UTC date `days` days before `now`, as `YYYY-MM-DD`. */
export const daysBefore = (now: Date, days: number): string => new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);

/** Every coordinate used since `since` (a UTC date), most requests first; only key `keyId`'s, or only `coordinate`, when given. */
export async function coordinatesUsed(
  db: Pick<Database, "query">,
  filter: { since: string; keyId?: number | undefined; coordinate?: string | undefined },
): Promise<CoordinateUse[]> {
  const rows = await db.query<{ coordinate: string; requests: string; keys: number; last_at: Date }>(
    `SELECT c.coordinate, u.requests::text, u.keys, u.last_at
       FROM (SELECT coordinate_id, sum(requests) AS requests, count(DISTINCT key_id)::int AS keys, max(last_at) AS last_at
               FROM usage_day
              WHERE day >= $1::date AND ($2::int IS NULL OR key_id = $2)
                AND ($3::text IS NULL OR coordinate_id = (SELECT id FROM usage_coordinate WHERE coordinate = $3))
              GROUP BY coordinate_id) u
       JOIN usage_coordinate c ON c.id = u.coordinate_id
      ORDER BY u.requests DESC, c.coordinate`,
    [filter.since, filter.keyId ?? null, filter.coordinate ?? null],
  );
  return rows.map((r) => ({ coordinate: r.coordinate, requests: Number(r.requests), keys: r.keys, lastUsed: r.last_at.toISOString() }));
}

/** Each key's use of each of `coordinates` since `since`, by coordinate, then most requests first. */
export async function keysThatUsed(db: Pick<Database, "query">, coordinates: readonly string[], since: string): Promise<KeyUse[]> {
  const rows = await db.query<{
    coordinate: string;
    key_id: number;
    name: string | null;
    owner: string | null;
    requests: string;
    last_at: Date;
  }>(
    `SELECT c.coordinate, u.key_id, k.name, k.owner, sum(u.requests)::text AS requests, max(u.last_at) AS last_at
       FROM usage_coordinate c
       JOIN usage_day u ON u.coordinate_id = c.id AND u.day >= $2::date
       LEFT JOIN api_key k ON k.id = u.key_id
      WHERE c.coordinate = ANY($1::text[])
      GROUP BY c.coordinate, u.key_id, k.name, k.owner
      ORDER BY c.coordinate, sum(u.requests) DESC, u.key_id`,
    [coordinates, since],
  );
  return rows.map((r) => ({
    coordinate: r.coordinate,
    keyId: r.key_id,
    name: r.name,
    owner: r.owner,
    requests: Number(r.requests),
    lastUsed: r.last_at.toISOString(),
  }));
}

/** A key's use as its holder sees it on My API Keys. */
export interface KeyUsage {
  /** Its requests on each UTC day of the window, oldest first (0 for a day without any). */
  perDay: { day: string; requests: number }[];
  /** The deprecated coordinates it used in the window, most requests first. */
  deprecated: { coordinate: string; reason: string; requests: number; lastUsed: string }[];
}

/**
 * The use of each of `keyIds` in the `days` UTC days up to `today`'s: its
 * requests per day (the sum of its entries), and what deprecated it used.
 */
export async function keyUsages(
  db: Pick<Database, "query">,
  keyIds: readonly number[],
  window: { days: number; today: Date; deprecated: ReadonlyMap<string, string> },
): Promise<Map<number, KeyUsage>> {
  const { days, today, deprecated } = window;
  const rows = await db.query<{ key_id: number; day: string; coordinate: string; requests: number; last_at: Date }>(
    `SELECT u.key_id, to_char(u.day, 'YYYY-MM-DD') AS day, c.coordinate, u.requests, u.last_at
       FROM usage_day u JOIN usage_coordinate c ON c.id = u.coordinate_id
      WHERE u.key_id = ANY($1::int[]) AND u.day >= $2::date
        AND ((c.coordinate LIKE '/%' AND c.coordinate NOT LIKE '%?%') OR c.coordinate = ANY($3::text[]))`,
    [keyIds, daysBefore(today, days - 1), [...deprecated.keys()]],
  );
  const out = new Map<number, KeyUsage>();
  for (const id of keyIds) {
    const mine = rows.filter((r) => r.key_id === id);
    const byDay = new Map<string, number>();
    const old = new Map<string, { requests: number; lastUsed: string }>();
    for (const row of mine) {
      if (isEntry(row.coordinate)) byDay.set(row.day, (byDay.get(row.day) ?? 0) + row.requests);
      if (!deprecated.has(row.coordinate)) continue;
      const seen = old.get(row.coordinate);
      const lastUsed = row.last_at.toISOString();
      old.set(row.coordinate, {
        requests: (seen?.requests ?? 0) + row.requests,
        lastUsed: seen && seen.lastUsed > lastUsed ? seen.lastUsed : lastUsed,
      });
    }
    out.set(id, {
      perDay: Array.from({ length: days }, (_, i) => {
        const day = daysBefore(today, days - 1 - i);
        return { day, requests: byDay.get(day) ?? 0 };
      }),
      deprecated: [...old]
        .map(([coordinate, use]) => ({ coordinate, reason: deprecated.get(coordinate)!, ...use }))
        .sort((a, b) => b.requests - a.requests || (a.coordinate < b.coordinate ? -1 : 1)),
    });
  }
  return out;
}
