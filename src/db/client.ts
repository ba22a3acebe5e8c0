/**
 * The two Prisma clients of the gateway.
 *
 * - `createReadClient`: everything that answers requests uses this one. It
 *   omits the guarded columns by default (Prisma `omit`) and runs every query
 *   through `guardArgs`, so visibility rules hold wherever a model is queried.
 * - `createWriteClient`: the importer's, which must store what it is given.
 */
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
  return base.$extends({
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
