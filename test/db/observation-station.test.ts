/**
 * An observation's station, held once per INSERT by triggers instead of
 * row by row by a foreign key (prisma/migrations/20261207000000_observation_station_check):
 * what the key held still holds. A written observation names a station that
 * exists, or the statement fails with the key's code (23503) and writes
 * nothing; a station removed or given another id by another transaction is
 * waited for, then found gone; removing a station removes its observations,
 * and a new id carries them along.
 */
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it, inject } from "vitest";
import { createThrowawayDatabase } from "../support/throwaway-postgres.js";

let url: string;
let drop: () => Promise<void>;
const clients: pg.Client[] = [];

beforeAll(async () => {
  ({ url, drop } = await createThrowawayDatabase(inject("postgresUrl"), "gw_test", inject("templates").database));
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  await drop();
});

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined);
  await client.connect();
  clients.push(client);
  return client;
}

let db: pg.Client;
beforeEach(async () => {
  db ??= await connect();
  await db.query("TRUNCATE observation, station CASCADE");
  await db.query(`INSERT INTO station (id, name, kind, source, country, latitude, longitude) VALUES
    ('A', 'A', 'weather', 'cwa', 'TW', 25, 121.5), ('B', 'B', 'air', 'moenv', 'TW', 24, 121)`);
});
const observations = async () =>
  (await db.query<{ s: string; n: number }>("SELECT station_id AS s, count(*)::int AS n FROM observation GROUP BY 1 ORDER BY 1")).rows;
const hours = (station: string, n: number, from = 0) =>
  `SELECT '${station}', timestamptz '2026-12-01T00:00Z' + make_interval(hours => h) FROM generate_series(${from}, ${from + n - 1}) h`;
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("the statement succeeded");
    },
    (error: pg.DatabaseError) => ({ code: error.code, constraint: error.constraint, detail: error.detail, message: error.message }),
  );
const MISSING = (station: string) => ({
  code: "23503",
  constraint: "observation_station_id_fkey",
  detail: `Key (station_id)=(${station}) is not present in table "station".`,
  message: 'insert or update on table "observation" violates foreign key constraint "observation_station_id_fkey"',
});

describe("an observation's station", () => {
  it("is checked for every row of a statement: one unknown station among thousands fails it whole, with the key's error", async () => {
    await db.query(`INSERT INTO observation (station_id, observed_at) ${hours("A", 3000)}`);
    expect(
      await failure(db.query(`INSERT INTO observation (station_id, observed_at) ${hours("B", 3000)} UNION ALL ${hours("Z", 1, 5000)}`)),
    ).toEqual(MISSING("Z"));
    expect(await failure(db.query(`UPDATE observation SET station_id = 'Y' WHERE observed_at = '2026-12-01T07:00Z'`))).toEqual(
      MISSING("Y"),
    );
    // An upsert that updates a row onto an unknown station, through ON CONFLICT.
    expect(
      await failure(
        db.query(
          `INSERT INTO observation (station_id, observed_at) ${hours("A", 2)}
           ON CONFLICT (station_id, observed_at) DO UPDATE SET station_id = 'X'`,
        ),
      ),
    ).toEqual(MISSING("X"));
    expect(await observations()).toEqual([{ s: "A", n: 3000 }]);
    // Known stations pass, inserted and updated.
    await db.query(`INSERT INTO observation (station_id, observed_at) ${hours("B", 10)}`);
    await db.query(`UPDATE observation SET station_id = 'B' WHERE station_id = 'A' AND observed_at >= '2026-12-01T10:00Z'`);
    expect(await observations()).toEqual([
      { s: "A", n: 10 },
      { s: "B", n: 3000 },
    ]);
  });

  it("an update that leaves the station as it is neither checks it nor waits for it, as the key did not", async () => {
    await db.query(`INSERT INTO observation (station_id, observed_at) ${hours("A", 100)}`);
    const holder = await connect();
    try {
      await holder.query("BEGIN");
      // A lock that FOR KEY SHARE waits for, and that touches no observation.
      await holder.query("SELECT 1 FROM station WHERE id = 'A' FOR UPDATE");
      await db.query("SET lock_timeout = '2s'");
      const updated = await db.query("UPDATE observation SET aqi = 42 WHERE station_id = 'A'");
      expect(updated.rowCount).toBe(100);
      const upserted = await db.query(
        `INSERT INTO observation (station_id, observed_at) ${hours("A", 100)}
         ON CONFLICT (station_id, observed_at) DO UPDATE SET aqi = 43`,
      );
      expect(upserted.rowCount).toBe(100);
    } finally {
      await db.query("RESET lock_timeout");
      await holder.query("ROLLBACK");
    }
    expect((await db.query("SELECT DISTINCT aqi FROM observation")).rows).toEqual([{ aqi: 43 }]);
  });

  it("removing a station removes its observations and no others; TRUNCATE removes them all", async () => {
    await db.query(`INSERT INTO observation (station_id, observed_at) ${hours("A", 5)} UNION ALL ${hours("B", 7)}`);
    await db.query("DELETE FROM station WHERE id = 'A'");
    expect(await observations()).toEqual([{ s: "B", n: 7 }]);
    await db.query("TRUNCATE station CASCADE");
    expect(await observations()).toEqual([]);
  });

  it("a station's new id carries its observations along", async () => {
    await db.query(`INSERT INTO observation (station_id, observed_at) ${hours("A", 5)} UNION ALL ${hours("B", 2)}`);
    await db.query("UPDATE station SET id = 'C' WHERE id = 'A'");
    await db.query("UPDATE station SET name = 'b' WHERE id = 'B'");
    expect(await observations()).toEqual([
      { s: "B", n: 2 },
      { s: "C", n: 5 },
    ]);
  });

  it("a station removed by another transaction while observations of it are written: the writer waits, then fails, and nothing is left behind", async () => {
    const remover = await connect();
    try {
      await remover.query("BEGIN");
      await remover.query("DELETE FROM station WHERE id = 'A'");
      const writing = failure(db.query(`INSERT INTO observation (station_id, observed_at) ${hours("A", 100)}`));
      await waitUntilBlocked(db);
      await remover.query("COMMIT");
      expect(await writing).toEqual(MISSING("A"));
    } finally {
      await remover.query("ROLLBACK").catch(() => undefined);
    }
    expect(await observations()).toEqual([]);
  });

  it("a station removed while another transaction writes observations of it: the removal waits for the writer, then removes them too", async () => {
    const writer = await connect();
    try {
      await writer.query("BEGIN");
      await writer.query(`INSERT INTO observation (station_id, observed_at) ${hours("A", 100)}`);
      const removing = db.query("DELETE FROM station WHERE id = 'A'");
      await waitUntilBlocked(db);
      await writer.query("COMMIT");
      expect((await removing).rowCount).toBe(1);
    } finally {
      await writer.query("ROLLBACK").catch(() => undefined);
    }
    expect(await observations()).toEqual([]);
  });
});

/** Waits until `client`'s statement waits for a lock (it holds no other). */
async function waitUntilBlocked(client: pg.Client): Promise<void> {
  const pid = (client as unknown as { processID: number }).processID;
  const watcher = await connect();
  for (let i = 0; i < 200; i++) {
    const { rows } = await watcher.query<{ waiting: boolean }>(
      "SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1",
      [pid],
    );
    if (rows[0]?.waiting) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the statement of backend ${pid} never waited for a lock`);
}
