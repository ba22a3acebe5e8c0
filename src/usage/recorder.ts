/**
 * Counts what each key uses (./coordinates.ts) per UTC day in this process,
 * and adds the counts to `usage_day` on the primary in batches, so that
 * every process and host adds to the same rows: one statement per
 * `flushMs`, never one write per request.
 *
 * - A batch that cannot be written (the primary away) is kept and added to
 *   the next one; while the primary stays away, at most `maxPending` counts
 *   are held and new ones beyond are dropped (and said, once).
 * - `close` (SIGTERM's drain) writes the last batch. A process killed with
 *   SIGKILL loses what it gathered since its last write: at most `flushMs`.
 * - Rows older than `retentionDays` are deleted at start and once a day.
 * - A batch's rows are written in one order (day, key, coordinate), so that
 *   two processes writing the same rows at once wait for each other rather
 *   than deadlock. A row holds its coordinate's id (`usage_coordinate`).
 */
import type { Logger } from "pino";
import { withDeadline } from "../db/availability.js";
import type { Database } from "../db/driver.js";
import { usageDropped, usageWrites } from "../observe/metrics.js";

export interface UsageRecorderOptions {
  /** The primary database, where every process adds its counts. */
  db: Pick<Database, "query">;
  /** Milliseconds between two writes of the counts gathered (USAGE_FLUSH_MS, default 10,000). */
  flushMs?: number;
  /** Days a daily row is kept (default 400). */
  retentionDays?: number;
  /** Most counts (distinct day, key and coordinate) held between two writes (default 200,000). */
  maxPending?: number;
  /** Where a failed write and dropped counts are said. */
  log?: Pick<Logger, "warn">;
  /** The clock, in ms since the epoch. */
  now?: () => number;
}

/** One count: requests of one key that used one coordinate on one day, and the last of them. */
interface Count {
  requests: number;
  lastAt: number;
}

const DAY_MS = 86_400_000;
/** Rows per INSERT. */
const ROWS_PER_STATEMENT = 10_000;
/** The longest the last write at close may take. */
const CLOSE_WRITE_MS = 5_000;

/** Names the batch's new coordinates (a few hundred exist in all). */
const NAME = `INSERT INTO usage_coordinate (coordinate) SELECT DISTINCT unnest($1::text[]) ON CONFLICT (coordinate) DO NOTHING`;

/** Adds the batch's counts, in one order (day, key, coordinate): two processes adding to the same rows wait for each other, never deadlock. */
const ADD = `INSERT INTO usage_day (day, key_id, coordinate_id, requests, last_at)
  SELECT b.day, b.key_id, c.id, b.requests, b.last_at
    FROM unnest($1::date[], $2::int[], $3::text[], $4::int[], $5::timestamptz[]) AS b(day, key_id, coordinate, requests, last_at)
    JOIN usage_coordinate c ON c.coordinate = b.coordinate
   ORDER BY 1, 2, 3
  ON CONFLICT (day, key_id, coordinate_id) DO UPDATE
    SET requests = usage_day.requests + EXCLUDED.requests, last_at = GREATEST(usage_day.last_at, EXCLUDED.last_at)`;

export class UsageRecorder {
  private readonly flushMs: number;
  private readonly retentionDays: number;
  private readonly maxPending: number;
  private readonly now: () => number;
  /** Counts by `day key` and coordinate. */
  private pending = new Map<string, Map<string, Count>>();
  private size = 0;
  private dropped = 0;
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;
  private warned = false;
  /** The UTC day being counted, and when it ends. */
  private day = "";
  private dayEnds = 0;

  constructor(private readonly options: UsageRecorderOptions) {
    this.flushMs = options.flushMs ?? 10_000;
    this.retentionDays = options.retentionDays ?? 400;
    this.maxPending = options.maxPending ?? 200_000;
    this.now = options.now ?? Date.now;
  }

  /** Counts one request of key `keyId` that used `uses`. */
  record(keyId: number, uses: readonly string[]): void {
    if (this.closed || uses.length === 0) return;
    const at = this.now();
    if (at >= this.dayEnds || at < this.dayEnds - DAY_MS) {
      this.day = new Date(at).toISOString().slice(0, 10);
      this.dayEnds = Date.parse(`${this.day}T00:00:00Z`) + DAY_MS;
    }
    const counts = this.countsOf(`${this.day} ${keyId}`);
    for (const coordinate of uses) this.add(counts, coordinate, 1, at);
  }

  /** Writes every few seconds from now on, and deletes what is past retention now and once a day. */
  start(): void {
    this.timer = setInterval(() => void this.flush(), this.flushMs).unref();
    void this.sweep();
    this.sweeper = setInterval(() => void this.sweep(), DAY_MS).unref();
  }

  /** Adds what was counted so far to the table; resolves once written (or kept for the next write, when that failed). */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  /** Stops counting and writes the last batch (within a time limit). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearInterval(this.sweeper);
    await withDeadline(this.flush(), CLOSE_WRITE_MS, "writing the last usage counts").catch((error: unknown) =>
      this.options.log?.warn({ err: String(error), counts: this.size }, "the last usage counts could not be written"),
    );
  }

  /** Deletes the days older than the retention. */
  async sweep(): Promise<void> {
    const cutoff = new Date(this.now() - this.retentionDays * DAY_MS).toISOString().slice(0, 10);
    await this.options.db
      .query(`DELETE FROM usage_day WHERE day < $1::date`, [cutoff])
      .catch((error: unknown) => this.options.log?.warn({ err: String(error) }, "deleting old usage rows failed"));
  }

  private async write(): Promise<void> {
    if (this.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.size = 0;
    const rows: [string, number, string, Count][] = [];
    for (const [slot, counts] of batch) {
      const space = slot.indexOf(" ");
      const day = slot.slice(0, space);
      const keyId = Number(slot.slice(space + 1));
      for (const [coordinate, count] of counts) rows.push([day, keyId, coordinate, count]);
    }
    let done = 0;
    try {
      for (; done < rows.length; done += ROWS_PER_STATEMENT) {
        const part = rows.slice(done, done + ROWS_PER_STATEMENT);
        await this.options.db.query(NAME, [part.map((r) => r[2])]);
        await this.options.db.query(ADD, [
          part.map((r) => r[0]),
          part.map((r) => r[1]),
          part.map((r) => r[2]),
          part.map((r) => r[3].requests),
          part.map((r) => new Date(r[3].lastAt).toISOString()),
        ]);
      }
      usageWrites.inc({ outcome: "written" });
      this.warned = false;
    } catch (error) {
      usageWrites.inc({ outcome: "failed" });
      if (!this.warned) this.options.log?.warn({ err: String(error) }, "writing the usage counts failed; they are kept for the next write");
      this.warned = true;
      // Kept for the next write, added to what was counted since.
      for (const [day, keyId, coordinate, count] of rows.slice(done))
        this.add(this.countsOf(`${day} ${keyId}`), coordinate, count.requests, count.lastAt);
    }
  }

  /** The counts of one `day key` gathered since the last write. */
  private countsOf(slot: string): Map<string, Count> {
    let counts = this.pending.get(slot);
    if (!counts) {
      counts = new Map();
      this.pending.set(slot, counts);
    }
    return counts;
  }

  /** Adds `requests` uses of `coordinate`, the last at `lastAt`; a new count past `maxPending` is dropped. */
  private add(counts: Map<string, Count>, coordinate: string, requests: number, lastAt: number): void {
    const count = counts.get(coordinate);
    if (count) {
      count.requests += requests;
      count.lastAt = Math.max(count.lastAt, lastAt);
    } else if (this.size < this.maxPending) {
      counts.set(coordinate, { requests, lastAt });
      this.size++;
    } else this.drop(requests);
  }

  private drop(requests: number): void {
    usageDropped.inc(requests);
    if (this.dropped === 0)
      this.options.log?.warn({ maxPending: this.maxPending }, "usage counts dropped: the primary has not taken them for a while");
    this.dropped += requests;
  }
}
