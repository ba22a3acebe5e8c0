/**
 * Environment snapshots computed when the data changes, not per request.
 *
 * A snapshot depends on the data and on the clock, and knows for how long
 * the clock leaves it alone (`validUntil`: the school's next local midnight,
 * a reading leaving the real-time window, a reading stamped ahead coming
 * due). So every school's snapshot is computed once, by the same function a
 * request would use, and stored in `school_snapshot` with the span it is true
 * for; a request whose instant falls in that span reads it
 * (`storedSnapshots`), any other computes as before.
 *
 * A gateway refreshes the table when it starts (unless what is stored is
 * true now: a restart, or another process, keeps it), when it hears that the data
 * changed (the DATA_CHANGED notice), and when the earliest stored snapshot
 * stops being true. Every change of the data empties the table in its own
 * transaction and adds one to `data_version` (src/db/changes.ts); a refresh
 * stores only if the version it computed from is still the current one,
 * checked under a lock on that row, so no snapshot outlives its data. The
 * lock is exclusive (FOR UPDATE): two gateways refreshing at once take turns
 * instead of deadlocking on each other's rows.
 */
import { DATA_CHANGED } from "../db/changes.js";
import type { ReadClient } from "../db/client.js";
import type { Database, Listener } from "../db/driver.js";
import { localDate } from "../domain/environment/index.js";
import { liveHistories, liveSnapshots, type Snapshot } from "./service.js";

export interface SnapshotStoreOptions {
  /** Where each refresh is reported (at `info`), and a failed one (at `warn`; the next trigger tries again). */
  log?: { info(object: object, message: string): void; warn(object: object, message: string): void };
  /** The clock. */
  now?: () => Date;
}

/** Longest wait for a refresh timer (setTimeout's own bound is about 24.8 days). */
const LONGEST_WAIT_MS = 24 * 3_600_000;
/** Refreshes in a row whose data changed under them before one is stored. */
const ATTEMPTS = 3;
/** The most dates a history asks for (operation 8's `days`). */
const HISTORY_DAYS = 90;

export class SnapshotStore {
  private readonly now: () => Date;
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private listener: Listener | undefined;
  private closed = false;

  constructor(
    private readonly db: Pick<Database, "query" | "transaction">,
    private readonly prisma: ReadClient,
    private readonly options: SnapshotStoreOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Computes every school's snapshot for now and stores them all, unless the
   * data changed meanwhile (then again, up to three times). Resolves to how
   * many were stored, or undefined when none could be.
   */
  async refresh(): Promise<number | undefined> {
    const started = performance.now();
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const now = this.now();
      const [current] = await this.db.query<{ version: number; days_for: string | null }>(`SELECT version, days_for FROM data_version`);
      const schools = await this.prisma.university.findMany({ select: { id: true, country: true, timezone: true } });
      const found = await liveSnapshots(this.prisma, schools, now);
      const rows = [...found.values()].map((s) => ({
        university_id: s.universityId,
        computed_at: now.toISOString(),
        valid_until: new Date(s.validUntil).toISOString(),
        body: bodyOf(s),
      }));
      // The past days change only with the data and when a school's local date turns.
      const today = new Map(schools.map((s) => [s.id, localDate(now, s.timezone)]));
      const daysFor = `${current?.version} ${[...new Set(today.values())].sort().join(" ")}`;
      const days =
        daysFor === current?.days_for
          ? undefined
          : [...(await liveHistories(this.prisma, schools, HISTORY_DAYS, now)).values()].flatMap((h) =>
              h.daily
                .filter((d) => d.date < today.get(h.universityId)!)
                .map((d) => ({ university_id: h.universityId, date: d.date, body: d })),
            );
      const stored = await this.db.transaction(async (tx) => {
        const [still] = await tx.query<{ version: number; days_for: string | null }>(
          `SELECT version, days_for FROM data_version FOR UPDATE`,
        );
        // The data moved, or (keeping the stored days) another process stored days of other dates.
        if (still?.version !== current?.version || (!days && still?.days_for !== current?.days_for)) return false;
        await tx.query(`DELETE FROM school_snapshot`);
        await tx.query(
          `INSERT INTO school_snapshot (university_id, computed_at, valid_until, body)
           SELECT university_id, computed_at, valid_until, body
             FROM jsonb_to_recordset($1::jsonb) AS x(university_id int, computed_at timestamptz, valid_until timestamptz, body jsonb)`,
          [JSON.stringify(rows)],
        );
        if (days) {
          await tx.query(`UPDATE data_version SET days_for = $1`, [daysFor]);
          await tx.query(`DELETE FROM school_day`);
          await tx.query(
            `INSERT INTO school_day (university_id, date, body)
             SELECT university_id, date, body FROM jsonb_to_recordset($1::jsonb) AS x(university_id int, date date, body jsonb)`,
            [JSON.stringify(days)],
          );
        }
        return true;
      });
      if (stored) {
        this.options.log?.info(
          { snapshots: rows.length, days: days?.length, ms: Math.round(performance.now() - started) },
          "stored the environment snapshots",
        );
        this.schedule(Math.min(...[...found.values()].map((s) => s.validUntil)) - now.getTime());
        return rows.length;
      }
    }
    return undefined;
  }

  /**
   * Refreshes whenever the data changes (and after listening resumes),
   * coalescing triggers that come while one runs, and starts a first refresh
   * without waiting for it (requests meanwhile compute their snapshots);
   * `close` stops.
   */
  async follow(db: Pick<Database, "listen">): Promise<void> {
    this.listener = await db.listen(DATA_CHANGED, () => void this.trigger());
    // A restart, a second process or a worker finds them stored by another: kept until they stop being true.
    const lasts = await this.storedLasts(this.now()).catch(() => undefined);
    if (lasts === undefined) void this.trigger();
    else {
      this.options.log?.info({ forMs: lasts }, "kept the stored environment snapshots");
      this.schedule(lasts);
    }
  }

  /**
   * How long what is stored stays true, when it is true now: a snapshot of
   * every school whose span holds now, and the past days of this data and
   * of the schools' dates today. Otherwise undefined.
   */
  async storedLasts(now: Date): Promise<number | undefined> {
    const [stored] = await this.db.query<{
      version: number;
      days_for: string | null;
      schools: number;
      current: number;
      until: number | null;
    }>(
      `SELECT v.version, v.days_for,
              (SELECT count(*)::int FROM university) AS schools,
              (SELECT count(*)::int FROM school_snapshot WHERE computed_at <= $1 AND valid_until > $1) AS current,
              (SELECT (extract(epoch FROM min(valid_until)) * 1000)::float8 FROM school_snapshot) AS until
         FROM data_version v`,
      [now.toISOString()],
    );
    if (!stored || stored.schools === 0 || stored.current !== stored.schools || stored.until === null) return undefined;
    const zones = await this.db.query<{ timezone: string }>(`SELECT DISTINCT timezone FROM university`);
    const dates = [...new Set(zones.map((z) => localDate(now, z.timezone)))].sort().join(" ");
    if (stored.days_for !== `${stored.version} ${dates}`) return undefined;
    return stored.until - now.getTime();
  }

  /** Starts a refresh, or asks the running one to be followed by another; resolves when they are done. */
  trigger(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.refresh().catch((error: unknown) =>
          this.options.log?.warn({ err: String(error) }, "refreshing the stored snapshots failed"),
        );
      } while (this.again && !this.closed);
      this.running = undefined;
    })();
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.listener?.close();
    await this.running;
  }

  /** A refresh when the earliest stored snapshot stops being true. */
  private schedule(inMs: number): void {
    clearTimeout(this.timer);
    if (this.closed || !Number.isFinite(inMs)) return;
    this.timer = setTimeout(() => void this.trigger(), Math.max(0, Math.min(inMs, LONGEST_WAIT_MS))).unref();
  }
}

/** What a stored snapshot keeps: the answer but its school and span. */
export type SnapshotBody = Pick<Snapshot, "realtime" | "daily" | "dataSources">;

const bodyOf = (s: Snapshot): SnapshotBody => ({ realtime: s.realtime, daily: s.daily, dataSources: s.dataSources });
