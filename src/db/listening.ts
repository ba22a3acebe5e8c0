/**
 * Every LISTEN of one database in a process, on one connection of its own
 * (outside the pool): a gateway listens on the keys' channel and, for its
 * answer cache, its environment snapshots and its replicas, on the data's.
 * With a connection each, that was three backends of PostgreSQL's per
 * process (four with replicas) for what one carries.
 *
 * The connection is opened with the first subscriber, and again, with a
 * growing pause, whenever it fails: then every channel is listened on again,
 * and every subscriber is called once, since a notice may have been missed
 * meanwhile. It is closed with the last subscriber.
 */
import pg from "pg";

/** A LISTEN in place; `close` ends it. */
export interface Listener {
  close(): Promise<void>;
}

/** Longest pause between two attempts to listen again. */
const MAX_RETRY_MS = 30_000;
/** The first pause. */
const FIRST_RETRY_MS = 500;

/** A subscriber: its own object, so that the same function may subscribe twice. */
interface Subscriber {
  onNotify: () => void;
}

/** The listening connection of one database (see the module's comment). */
export class Listening {
  private readonly channels = new Map<string, Set<Subscriber>>();
  /** The connection in place, and the channels listened on it. */
  private client: pg.Client | undefined;
  private readonly listened = new Set<string>();
  /** Each change of the connection, in turn: opening it, and each LISTEN or UNLISTEN on it. */
  private queue: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private pause = FIRST_RETRY_MS;

  /**
   * @param connectionString The database's.
   * @param onError Told of each failure of the connection (it is then opened again).
   */
  constructor(
    private readonly connectionString: string,
    private readonly onError: (error: Error) => void,
  ) {}

  /**
   * Calls `onNotify` on every NOTIFY on `channel`, and once more whenever
   * listening resumes after the connection was lost. Resolves once the LISTEN
   * is in place or has failed (then it keeps trying in the background).
   */
  listen(channel: string, onNotify: () => void): Promise<Listener> {
    const subscriber: Subscriber = { onNotify };
    const subscribers = this.channels.get(channel) ?? new Set();
    subscribers.add(subscriber);
    this.channels.set(channel, subscribers);
    return this.next(() => this.ensure()).then(() => ({ close: () => this.remove(channel, subscriber) }));
  }

  /** Runs `change` after the changes before it, whatever became of them. */
  private next(change: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(change, change);
    return this.queue;
  }

  /** Opens the connection when there is none (and none is being waited for), and listens on every channel not yet listened. */
  private async ensure(): Promise<void> {
    if (this.timer) return; // A retry is due: it listens on everything.
    if (!this.client) return this.connect(false);
    const client = this.client;
    for (const channel of this.channels.keys()) {
      if (this.listened.has(channel)) continue;
      try {
        await client.query(`LISTEN "${channel}"`);
        this.listened.add(channel);
      } catch (error) {
        this.fail(client, error);
        return;
      }
    }
  }

  /** Opens a connection and listens on every channel; `again`: after a failure, so every subscriber is called. */
  private async connect(again: boolean): Promise<void> {
    if (this.channels.size === 0) return;
    const client = new pg.Client({ connectionString: this.connectionString, keepAlive: true, connectionTimeoutMillis: 5_000 });
    client.on("error", (error) => this.fail(client, error));
    client.on("end", () => this.fail(client, new Error(`the connection listening on ${[...this.channels.keys()].join(", ")} ended`)));
    client.on("notification", (n) => {
      for (const subscriber of this.channels.get(n.channel) ?? []) subscriber.onNotify();
    });
    this.client = client;
    this.listened.clear();
    try {
      await client.connect();
      for (const channel of this.channels.keys()) {
        await client.query(`LISTEN "${channel}"`);
        this.listened.add(channel);
      }
    } catch (error) {
      this.fail(client, error);
      return;
    }
    // Given up on meanwhile (it failed, or its last subscriber left).
    if (this.client !== client) return;
    this.pause = FIRST_RETRY_MS;
    if (again) for (const subscribers of [...this.channels.values()]) for (const s of [...subscribers]) s.onNotify();
  }

  /** Gives up on `client` (once): tells of the error and opens another after a pause, while anyone listens. */
  private fail(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.listened.clear();
    client.end().catch(() => undefined);
    if (this.channels.size === 0) return;
    this.onError(error instanceof Error ? error : new Error(String(error)));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.next(() => (this.client ? this.ensure() : this.connect(true)));
    }, this.pause);
    this.pause = Math.min(this.pause * 2, MAX_RETRY_MS);
  }

  /** Ends one subscription: the channel's LISTEN with its last subscriber, the connection with the last of all. */
  private remove(channel: string, subscriber: Subscriber): Promise<void> {
    const subscribers = this.channels.get(channel);
    if (!subscribers?.delete(subscriber)) return Promise.resolve();
    if (subscribers.size > 0) return Promise.resolve();
    this.channels.delete(channel);
    return this.next(async () => {
      const client = this.client;
      if (this.channels.size === 0) {
        clearTimeout(this.timer);
        this.timer = undefined;
        this.client = undefined;
        this.listened.clear();
        this.pause = FIRST_RETRY_MS;
        await client?.end().catch(() => undefined);
        return;
      }
      if (client && this.listened.delete(channel)) await client.query(`UNLISTEN "${channel}"`).catch(() => undefined);
    });
  }
}
