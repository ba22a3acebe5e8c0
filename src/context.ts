/**
 * What every GraphQL resolver (and so every REST and MCP answer) receives.
 * Built once per request by `createContext`.
 */
import { type ReadClient, requestClient } from "./db/client.js";
import { createLoaders, type Loaders, type Validity } from "./loaders.js";

export interface Context {
  /** The guarded, read-only Prisma client, as this request's share of the database. */
  prisma: ReadClient;
  /** Per-request batch loaders (one query per kind of lookup, not per row). */
  loaders: Loaders;
  /** The request's clock; environment answers are relative to it. */
  now: Date;
  /**
   * The first instant (epoch ms) at which this request's answer may differ
   * while the data stays as it is: infinity, unless an answer that moves with
   * the clock (environment) was part of it. The answer cache keeps it until then.
   */
  validity: Validity;
  /**
   * How long from this moment the answer stays true: to `validity.until`
   * from `now`, less the time spent since the request began. A cache keeps it
   * that long from when it stores it, so an answer that took long to compute
   * is not kept past its instant.
   */
  validForMs(): number;
}

/**
 * The per-request context over a shared read client: its statements, its
 * loaders' included, take the request's share of the database (`requestClient`).
 */
export function createContext(shared: ReadClient, now = new Date()): Context {
  const validity: Validity = { until: Number.POSITIVE_INFINITY };
  const begun = performance.now();
  const prisma = requestClient(shared);
  let loaders: Loaders | undefined;
  return {
    prisma,
    // Made when a resolver first asks: most documents use none of them (a list answered by one statement).
    get loaders() {
      loaders ??= createLoaders(prisma, now, validity);
      return loaders;
    },
    now,
    validity,
    validForMs: () => validity.until - now.getTime() - (performance.now() - begun),
  };
}
