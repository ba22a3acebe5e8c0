/**
 * Rows of `usage_day` for tests (src/usage/recorder.ts writes them in
 * service): put as given, and read back with their coordinates' names.
 */
import type { Database } from "../../src/db/driver.js";

export interface UsageRow {
  /** `YYYY-MM-DD`. */
  day: string;
  keyId: number;
  coordinate: string;
  requests: number;
  /** ISO 8601. */
  lastAt: string;
}

/** Puts `rows` into usage_day, naming their coordinates first. */
export async function putUsage(db: Pick<Database, "query">, rows: UsageRow[]): Promise<void> {
  await db.query(`INSERT INTO usage_coordinate (coordinate) SELECT DISTINCT unnest($1::text[]) ON CONFLICT DO NOTHING`, [
    rows.map((r) => r.coordinate),
  ]);
  await db.query(
    `INSERT INTO usage_day (day, key_id, coordinate_id, requests, last_at)
     SELECT r.day, r.key_id, c.id, r.requests, r.last_at
       FROM unnest($1::date[], $2::int[], $3::text[], $4::int[], $5::timestamptz[]) AS r(day, key_id, coordinate, requests, last_at)
       JOIN usage_coordinate c USING (coordinate)`,
    [
      rows.map((r) => r.day),
      rows.map((r) => r.keyId),
      rows.map((r) => r.coordinate),
      rows.map((r) => r.requests),
      rows.map((r) => r.lastAt),
    ],
  );
}

/** Every row of usage_day with its coordinate's name, in (day, key, coordinate) order. */
export function usageRows(db: Pick<Database, "query">): Promise<UsageRow[]> {
  return db.query<UsageRow>(
    `SELECT to_char(u.day, 'YYYY-MM-DD') AS "day", u.key_id AS "keyId", c.coordinate, u.requests,
            to_char(u.last_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "lastAt"
       FROM usage_day u JOIN usage_coordinate c ON c.id = u.coordinate_id
      ORDER BY u.day, u.key_id, c.coordinate`,
  );
}
