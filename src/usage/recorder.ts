/**
 * Counts what each key uses (./coordinates.ts) per UTC day in this process,
 * and adds the counts to `usage_day` on the primary in batches, so that
 * every process and host adds to the same rows: one statement per
 * `flushMs`, never one write per request.
 *
 * - **Each batch counts once.** A batch has an id of its own, written to
 *   `usage_batch` by the statement that adds its counts; a batch whose id is
 *   there already adds nothing. A batch whose write failed is sent again as
 *   it was, same id, before anything counted since: when the first attempt
 *   committed and only its reply was lost (a client-side timeout after the
 *   commit, a connection cut after it), the second adds nothing.
 * - While the primary stays away, the unwritten batch waits and new counts
 *   gather beside it: at most `maxPending` counts are held in all, and new
 *   ones beyond are dropped (and said, once).
 * - `close` (SIGTERM's drain) writes the last batch, trying again for up to
 *   `closeMs`. A process killed with SIGKILL loses what it gathered since its
 *   last write: at most `flushMs`.
 * - Rows older than `retentionDays`, and batch ids older than 7 days, are
 *   deleted at start and once a day.
 * - A batch's rows are written in one order (day, key, coordinate), so that
 *   two processes writing the same rows at once wait for each other rather
 *   than deadlock. A row holds its coordinate's id (`usage_coordinate`).
 */
import { randomUUID } from "node:crypto";
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
  /** The longest `close` tries to write the last counts, in ms (default 5,000). */
  closeMs?: number;
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

/** One row of a batch: requests of a key that used a coordinate on a day. */
type Row = [day: string, keyId: number, coordinate: string, count: Count];

/** A batch on its way to the primary: its id, and its rows (at most ROWS_PER_STATEMENT). */
interface Batch {
  id: string;
  rows: Row[];
}

const DAY_MS = 86_400_000;
/** Rows per batch (one INSERT). */
const ROWS_PER_STATEMENT = 10_000;
/** Days a batch's id is kept: far longer than any process holds a batch it could not write. */
const BATCH_DAYS = 7;
/** The first pause between two tries of the last write at close, doubled after each (up to a second). */
const CLOSE_PAUSE_MS = 50;

/** Names the batch's new coordinates (a few hundred exist in all). */
const NAME = `INSERT INTO usage_coordinate (coordinate) SELECT DISTINCT unnest($1::text[]) ON CONFLICT (coordinate) DO NOTHING`;

/**
 * Adds the batch's counts, unless its id ($6) was written before, and writes
 * the id, in one statement (so both or neither commit). The rows go in one
 * order (day, key, coordinate): two processes adding to the same rows wait for
 * each other, never deadlock. A second try of a batch whose first is still
 * running waits on the id's index entry, then adds nothing if the first commits.
 */
const ADD = `WITH fresh AS (INSERT INTO usage_batch (id) VALUES ($6::uuid) ON CONFLICT (id) DO NOTHING RETURNING id)
  INSERT INTO usage_day (day, key_id, coordinate_id, requests, last_at)
  SELECT b.day, b.key_id, c.id, b.requests, b.last_at
    FROM unnest($1::date[], $2::int[], $3::text[], $4::int[], $5::timestamptz[]) AS b(day, key_id, coordinate, requests, last_at)
    JOIN usage_coordinate c ON c.coordinate = b.coordinate
   WHERE EXISTS (SELECT FROM fresh)
   ORDER BY 1, 2, 3
  ON CONFLICT (day, key_id, coordinate_id) DO UPDATE
    SET requests = usage_day.requests + EXCLUDED.requests, last_at = GREATEST(usage_day.last_at, EXCLUDED.last_at)`;

export class UsageRecorder {
  private readonly flushMs: number;
  private readonly closeMs: number;
  private readonly retentionDays: number;
  private readonly maxPending: number;
  private readonly now: () => number;
  /** Counts by `day key` and coordinate. */
  private pending = new Map<string, Map<string, Count>>();
  /** Distinct counts in `pending`. */
  private size = 0;
  /** Batches made from earlier counts and not yet known to be written, oldest first: sent again, as they are, before any other. */
  private unwritten: Batch[] = [];
  /** Rows in `unwritten`. */
  private held = 0;
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
    this.closeMs = options.closeMs ?? 5_000;
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

  /** Stops counting and writes the last counts, trying again until they are written or `closeMs` has passed. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearInterval(this.sweeper);
    const until = Date.now() + this.closeMs;
    const last = (async () => {
      await this.flush();
      // Each try sends the same batches again (same ids): one that committed unseen adds nothing.
      for (let pause = CLOSE_PAUSE_MS; this.held > 0 && Date.now() + pause < until; pause = Math.min(pause * 2, 1_000)) {
        await new Promise((resolve) => setTimeout(resolve, pause));
        await this.flush();
      }
      if (this.held > 0) throw new Error("the primary did not take them");
    })();
    await withDeadline(last, this.closeMs, "writing the last usage counts").catch((error: unknown) =>
      this.options.log?.warn({ err: String(error), counts: this.held }, "the last usage counts could not be written"),
    );
  }

  /** Deletes the days older than the retention, and the batch ids older than 7 days. */
  async sweep(): Promise<void> {
    const cutoff = new Date(this.now() - this.retentionDays * DAY_MS).toISOString().slice(0, 10);
    const batches = new Date(this.now() - BATCH_DAYS * DAY_MS).toISOString();
    try {
      await this.options.db.query(`DELETE FROM usage_day WHERE day < $1::date`, [cutoff]);
      await this.options.db.query(`DELETE FROM usage_batch WHERE written_at < $1::timestamptz`, [batches]);
    } catch (error) {
      this.options.log?.warn({ err: String(error) }, "deleting old usage rows failed");
    }
  }

  /** Sends the batches not yet written, oldest first, then what was counted since as new batches; stops at the first failure, keeping the rest. */
  private async write(): Promise<void> {
    if (this.unwritten.length === 0) this.seal();
    if (this.unwritten.length === 0) return;
    try {
      while (this.unwritten.length > 0) {
        const batch = this.unwritten[0]!;
        await this.send(batch);
        this.unwritten.shift();
        this.held -= batch.rows.length;
        // What was counted while the earlier batches waited goes next.
        if (this.unwritten.length === 0) this.seal();
      }
      usageWrites.inc({ outcome: "written" });
      this.warned = false;
    } catch (error) {
      usageWrites.inc({ outcome: "failed" });
      if (!this.warned) this.options.log?.warn({ err: String(error) }, "writing the usage counts failed; they are kept for the next write");
      this.warned = true;
    }
  }

  /** Makes batches of what was counted since the last ones, each with an id of its own. */
  private seal(): void {
    if (this.size === 0) return;
    const rows: Row[] = [];
    for (const [slot, counts] of this.pending) {
      const space = slot.indexOf(" ");
      const day = slot.slice(0, space);
      const keyId = Number(slot.slice(space + 1));
      for (const [coordinate, count] of counts) rows.push([day, keyId, coordinate, count]);
    }
    this.pending = new Map();
    this.size = 0;
    for (let done = 0; done < rows.length; done += ROWS_PER_STATEMENT)
      this.unwritten.push({ id: randomUUID(), rows: rows.slice(done, done + ROWS_PER_STATEMENT) });
    this.held += rows.length;
  }

  /** Names the batch's coordinates, then adds its counts once (./ADD). */
  private async send({ id, rows }: Batch): Promise<void> {
    await this.options.db.query(NAME, [rows.map((r) => r[2])]);
    await this.options.db.query(ADD, [
      rows.map((r) => r[0]),
      rows.map((r) => r[1]),
      rows.map((r) => r[2]),
      rows.map((r) => r[3].requests),
      rows.map((r) => new Date(r[3].lastAt).toISOString()),
      id,
    ]);
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
    } else if (this.size + this.held < this.maxPending) {
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
