/**
 * The two Prisma clients of the gateway.
 *
 * - `createReadClient`: everything that answers requests uses this one. It
 *   omits the guarded columns by default (Prisma `omit`) and runs every query
 *   through `guardArgs`, so visibility rules hold wherever a model is queried.
 * - `createWriteClient`: the importer's, which must store what it is given.
 */
import type { ArgType, SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { Prisma, PrismaClient } from "../generated/prisma/client.js";
import type { Database } from "./driver.js";
import { GUARDED_COLUMNS, GuardViolation, guardArgs } from "./guards.js";
import { statementNames } from "./statement-names.js";

/** A SQL statement the client sent, as Prisma reports it. */
export interface QueryEvent {
  query: string;
  params: string;
  duration: number;
}

export interface ReadClientOptions {
  /** Called for every SQL statement; used by tests to count statements. */
  onQuery?: (event: QueryEvent) => void;
}

/** The operations Prisma batches across callers, and what runs instead. */
const UNBATCHED: Partial<Record<string, "findFirst" | "findFirstOrThrow">> = {
  findUnique: "findFirst",
  findUniqueOrThrow: "findFirstOrThrow",
};

/** SQL statements one request may have in flight at once (the pool holds 10 connections). */
export const STATEMENTS_PER_REQUEST = 2;

/**
 * The read client as one request sees it: its statements go at most
 * `inFlight` at a time, the rest waiting in the request's own queue. Without
 * this, a request that asks for many things at once (900 lookups, 15
 * histories) fills the pool's queue, and every other request waits behind all
 * of it. Each request's context has one (src/context.ts).
 *
 * The share is this client's own, not the async context's: an
 * AsyncLocalStorage would make Node run a hook on every promise of the
 * process, and that was a tenth of the gateway's throughput on a list.
 * A client not made by {@link createReadClient} is returned as it is.
 */
export function requestClient(prisma: ReadClient, inFlight = STATEMENTS_PER_REQUEST): ReadClient {
  const base = bases.get(prisma);
  return base ? guardedClient(base, new Share(inFlight)) : prisma;
}

/**
 * One request's share of the pool: at most `inFlight` of its statements at
 * once, the rest waiting in the order they were sent. A statement that ends
 * hands its place to the next one waiting, so none starts ahead of them.
 * (p-limit did this, with a queue, closures and an async wrapper made for
 * every request: 2.5% of the gateway's CPU on a list of schools, where a
 * request sends one statement.)
 */
class Share {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly inFlight: number) {}

  run<T>(send: () => PromiseLike<T>): Promise<T> {
    if (this.active < this.inFlight) {
      this.active++;
      return this.start(send);
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.start(send));
  }

  private start<T>(send: () => PromiseLike<T>): Promise<T> {
    let sent: Promise<T>;
    try {
      sent = Promise.resolve(send());
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(this.done, this.done);
    return sent;
  }

  private readonly done = () => {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  };
}

/**
 * Where the read client's statements go: a database's own adapter, or the
 * replicas' router (src/db/replicas.ts), which sends them to replicas.
 */
export interface ReadSource {
  adapter: SqlDriverAdapterFactory;
}

/**
 * The source's driver adapter, connected once for Prisma's client and for
 * {@link queryText}'s statements (the same pool, the same replicas' router);
 * when Prisma disposes it ($disconnect), the next statement connects again.
 */
function sharedAdapter(factory: SqlDriverAdapterFactory): { factory: SqlDriverAdapterFactory; connected(): Promise<SqlDriverAdapter> } {
  let connected: Promise<SqlDriverAdapter> | undefined;
  const connect = () => {
    connected ??= factory.connect().then(
      (adapter) =>
        new Proxy(adapter, {
          get(target, key) {
            if (key !== "dispose") return Reflect.get(target, key);
            return () => {
              connected = undefined;
              return target.dispose();
            };
          },
        }),
      (error: unknown) => {
        connected = undefined;
        throw error;
      },
    );
    return connected;
  };
  return { factory: { provider: factory.provider, adapterName: factory.adapterName, connect }, connected: connect };
}

/** What sends a read client's {@link queryText} statements: its connected adapter, and who hears of each statement. */
interface Direct {
  connected(): Promise<SqlDriverAdapter>;
  /** The statement's name, as the adapter names it (src/db/statement-names.ts). */
  name(query: SqlQuery): string;
  onQuery: ((event: QueryEvent) => void) | undefined;
}

const directs = new WeakMap<object, Direct>();

/** Prisma's client of the read path, before the guards and the request's share wrap it. */
function unguardedReadClient(db: ReadSource, options: ReadClientOptions) {
  const adapter = sharedAdapter(db.adapter);
  const base = new PrismaClient({
    adapter: adapter.factory,
    omit: GUARDED_COLUMNS,
    // Any other format has Prisma capture a stack trace on every query (its
    // "call site", to print a code frame with an error): 5% of the gateway's
    // CPU on a list. No answer shows Prisma's message; the log has it plain.
    errorFormat: "minimal",
    log: options.onQuery ? [{ emit: "event", level: "query" }] : [],
  });
  if (options.onQuery) {
    const onQuery = options.onQuery;
    (base as unknown as { $on(event: "query", cb: (e: QueryEvent) => void): void }).$on("query", (e) => onQuery(e));
  }
  directs.set(base, { connected: adapter.connected, name: statementNames(), onQuery: options.onQuery });
  return base;
}

/** Parameters whose type the statement's SQL gives (`$1::int`), as Prisma sends a raw query's. */
const UNTYPED: ArgType = { scalarType: "unknown", arity: "scalar" };

/**
 * The `pg` pool behind a connected adapter of `@prisma/adapter-pg`
 * (`underlyingDriver`); undefined for any other adapter, such as the
 * replicas' router, whose statements go through the adapter itself.
 */
function poolOf(adapter: SqlDriverAdapter): pg.Pool | undefined {
  const driver = (adapter as Partial<{ underlyingDriver(): unknown }>).underlyingDriver?.();
  return driver instanceof pg.Pool ? driver : undefined;
}

/**
 * Whether `pg` sends these parameters as the adapter would: values that are
 * not objects (or lists of them) pass through the adapter's mapping as they
 * are; a Date or bytes it writes its own way, so those go through it.
 */
const plainParams = (params: readonly unknown[]) =>
  params.every(
    (p) => p === null || typeof p !== "object" || (Array.isArray(p) && p.every((item) => item === null || typeof item !== "object")),
  );

/**
 * Runs one statement of the read path that returns one text (the planner's
 * JSON, src/sql-plans/plan.ts) within the request's share of the pool: what
 * Prisma's client would do for `$queryRawUnsafe` after its request pipeline
 * (which was a fifth of the gateway's CPU on a list of schools). It goes to
 * the read client's own pool, by the same statement name (a name is its
 * text's hash, src/db/statement-names.ts) and with the pool's time limits:
 * straight to `pg`, as the adapter itself sends it, without the adapter's
 * debug call and per-statement type mapping (3% of the CPU of that list);
 * through the adapter when it has no pool of its own (the replicas' router)
 * or a parameter needs its mapping. Its SQL states its own rules, as every
 * raw statement of the read client does. Null when it returns no row.
 */
export function queryText(prisma: ReadClient, sql: string, params: readonly unknown[]): Promise<string | null> {
  const client = sharingOf(prisma);
  const direct = client && directs.get(client.base);
  if (!client || !direct) throw new GuardViolation("queryText takes a read client");
  return within(client.share, async () => {
    const adapter = await direct.connected();
    const started = performance.now();
    const pool = plainParams(params) ? poolOf(adapter) : undefined;
    const rows = pool
      ? (
          await pool.query<unknown[]>({
            name: direct.name({ sql, args: [], argTypes: [] }),
            text: sql,
            values: [...params],
            rowMode: "array",
          })
        ).rows
      : (await adapter.queryRaw({ sql, args: [...params], argTypes: params.map(() => UNTYPED) })).rows;
    direct.onQuery?.({ query: sql, params: JSON.stringify(params), duration: performance.now() - started });
    return (rows[0]?.[0] as string | undefined) ?? null;
  }) as Promise<string | null>;
}

/** The client's model delegates by property name (`course`) and model name (`Course`). */
const MODELS = new Map<string, string>(
  Object.values(Prisma.ModelName).map((model) => [model.charAt(0).toLowerCase() + model.slice(1), model]),
);

/** The client's statements written in SQL: they take the request's share, and their SQL states its own rules. */
const RAW = new Set(["$queryRaw", "$queryRawUnsafe", "$executeRaw", "$executeRawUnsafe"]);

/**
 * What would hand out an unguarded client: a transaction's client and an
 * extended client are Prisma's own, without these wrappers. Nothing that
 * answers a request needs them.
 */
const REFUSED = new Set(["$transaction", "$extends"]);

type Operation = (args?: unknown) => PromiseLike<unknown>;

/** Sends a statement at once, or within a request's share. */
const within = (share: Share | undefined, send: () => PromiseLike<unknown>): Promise<unknown> =>
  share ? share.run(send) : Promise.resolve(send());

/** A model's delegate whose every operation runs `guardArgs` first, and then within the request's share, if any. */
function guardedDelegate(model: string, delegate: object, share: Share | undefined): object {
  const operations = new Map<string, Operation>();
  return new Proxy(delegate, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof key !== "string" || typeof value !== "function") return value;
      let operation = operations.get(key);
      if (!operation) {
        // Prisma merges the findUnique calls of one tick into one query, across
        // requests: one request's bad value would fail the others' lookups. A
        // findFirst is never merged (each request batches its own with DataLoader).
        const run = Reflect.get(target, UNBATCHED[key] ?? key) as Operation;
        operation = (args) => {
          let guarded: unknown;
          try {
            guarded = guardArgs(model, key, args);
          } catch (error) {
            return Promise.reject(error);
          }
          return within(share, () => run.call(target, guarded));
        };
        operations.set(key, operation);
      }
      return operation;
    },
  });
}

/**
 * The guarded, read-only client.
 *
 * The guards and the request's share wrap Prisma's client from outside
 * (proxies of the client and of its model delegates) rather than as a
 * Prisma client extension: with any extension in place, Prisma walks every
 * row of every result once more, looking up each selected field of each row
 * in the model's list of fields (to apply result extensions and omissions,
 * which this client has none of beyond what its SQL already leaves out).
 * That walk was 6.8% of the gateway's CPU on a nested GraphQL query
 * (README, "Where the time goes").
 */
export function createReadClient(db: ReadSource, options: ReadClientOptions = {}) {
  const base = unguardedReadClient(db, options);
  const client = guardedClient(base, undefined);
  bases.set(client, base);
  return client;
}

type ReadBase = ReturnType<typeof unguardedReadClient>;

/** The Prisma client behind each read client, for {@link requestClient}. */
const bases = new WeakMap<object, ReadBase>();

/** Prisma's client behind the guards, its statements sent within the request's share when there is one; each delegate is made when first asked for. */
function guardedClient(base: ReadBase, share: Share | undefined) {
  const delegates = new Map<string, object>();
  const methods = new Map<string, unknown>();
  const sharing = { base, share };
  return new Proxy(base, {
    get(target, key) {
      if (key === SHARING) return sharing;
      if (typeof key !== "string") return Reflect.get(target, key);
      const model = MODELS.get(key);
      if (model) {
        let delegate = delegates.get(key);
        if (!delegate) {
          delegate = guardedDelegate(model, Reflect.get(target, key) as object, share);
          delegates.set(key, delegate);
        }
        return delegate;
      }
      if (REFUSED.has(key)) throw new GuardViolation(`the read client cannot run ${key}`);
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      let method = methods.get(key);
      if (!method) {
        // Bound to Prisma's client itself: its methods read private fields, which a proxy does not have.
        const bound = (value as (...args: unknown[]) => unknown).bind(target);
        method = RAW.has(key) ? (...args: unknown[]) => within(share, () => bound(...args) as PromiseLike<unknown>) : bound;
        methods.set(key, method);
      }
      return method;
    },
  });
}

/**
 * What a guarded client answers for its Prisma client and request share, for
 * {@link queryText}: a key of this module's own, which Prisma's client does
 * not have (a WeakMap entry per request cost its garbage collection more).
 */
const SHARING = Symbol("read client's sharing");

/** A guarded client's Prisma client and request share; undefined for any other object. */
const sharingOf = (prisma: object): { base: ReadBase; share: Share | undefined } | undefined =>
  (prisma as { [SHARING]?: { base: ReadBase; share: Share | undefined } })[SHARING];

export type ReadClient = ReturnType<typeof createReadClient>;

/** The unguarded client for the importer. Never hand it to a request handler. */
export function createWriteClient(db: Database): PrismaClient {
  return new PrismaClient({ adapter: db.adapter });
}
