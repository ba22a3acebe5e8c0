/**
 * What every GraphQL resolver (and so every REST and MCP answer) receives.
 * Built once per request by `createContext`.
 */
import type { ReadClient } from "./db/client.js";
import { createLoaders, type Loaders } from "./loaders.js";

export interface Context {
  /** The guarded, read-only Prisma client. */
  prisma: ReadClient;
  /** Per-request batch loaders (one query per kind of lookup, not per row). */
  loaders: Loaders;
  /** The request's clock; environment answers are relative to it. */
  now: Date;
}

/** The per-request context over a shared read client. */
export function createContext(prisma: ReadClient, now = new Date()): Context {
  return { prisma, loaders: createLoaders(prisma, now), now };
}
