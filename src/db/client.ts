/**
 * The two Prisma clients of the gateway.
 *
 * - `createReadClient`: everything that answers requests uses this one. It
 *   omits the guarded columns by default (Prisma `omit`) and runs every query
 *   through `guardArgs`, so visibility rules hold wherever a model is queried.
 * - `createWriteClient`: the importer's, which must store what it is given.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import pLimit, { type LimitFunction } from "p-limit";
import { PrismaClient } from "../generated/prisma/client.js";
import type { Database } from "./driver.js";
import { GUARDED_COLUMNS, guardArgs } from "./guards.js";

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

const requestShare = new AsyncLocalStorage<LimitFunction>();

/**
 * Runs `work` as one request: the read client's statements sent within it
 * go at most `inFlight` at a time, the rest waiting in the request's own
 * queue. Without this, a request that asks for many things at once (900
 * lookups, 15 histories) fills the pool's queue, and every other request
 * waits behind all of it.
 */
export function asOneRequest<T>(work: () => T, inFlight = STATEMENTS_PER_REQUEST): T {
  return requestShare.run(pLimit(inFlight), work);
}

/** The guarded, read-only client. */
export function createReadClient(db: Database, options: ReadClientOptions = {}) {
  const base = new PrismaClient({
    adapter: db.adapter,
    omit: GUARDED_COLUMNS,
    log: options.onQuery ? [{ emit: "event", level: "query" }] : [],
  });
  if (options.onQuery) {
    const onQuery = options.onQuery;
    (base as unknown as { $on(event: "query", cb: (e: QueryEvent) => void): void }).$on("query", (e) => onQuery(e));
  }
  // The first extension is the outermost: every statement passes the request's share, even those the guards send themselves.
  return base
    .$extends({
      name: "request-share",
      query: {
        $allOperations({ args, query }) {
          const limit = requestShare.getStore();
          return limit ? limit(() => query(args)) : query(args);
        },
      },
    })
    .$extends({
      name: "visibility-guards",
      query: {
        $allModels: {
          $allOperations({ model, operation, args, query }) {
            const guarded = guardArgs(model, operation, args) as typeof args;
            // Prisma merges the findUnique calls of one tick into one query, across
            // requests: one request's bad value would fail the others' lookups. A
            // findFirst is never merged (each request batches its own with DataLoader).
            const unbatched = UNBATCHED[operation];
            if (unbatched) {
              const delegate = (base as unknown as Record<string, Record<string, (a: unknown) => Promise<unknown>>>)[
                model.charAt(0).toLowerCase() + model.slice(1)
              ]!;
              return delegate[unbatched]!(guarded);
            }
            return query(guarded);
          },
        },
      },
    });
}

export type ReadClient = ReturnType<typeof createReadClient>;

/** The unguarded client for the importer. Never hand it to a request handler. */
export function createWriteClient(db: Database): PrismaClient {
  return new PrismaClient({ adapter: db.adapter });
}
