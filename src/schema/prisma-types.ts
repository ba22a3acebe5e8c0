/**
 * The Pothos view of the Prisma models, minus the guarded columns: a resolver
 * that tried to expose `joinCode` or `payload` would not even compile.
 */
import type PrismaTypes from "../generated/pothos-types.js";

/** Guarded columns per model; the runtime list is GUARDED_COLUMNS in db/guards.ts. */
interface GuardedColumns {
  Course: "joinCode";
  HubPack: "payload";
  HubPackVersion: "payload";
}

type WithoutGuarded<T, K extends PropertyKey> = Omit<T, "Shape"> & {
  Shape: Omit<T extends { Shape: infer S } ? S : never, K>;
};

export type GuardedPrismaTypes = {
  [M in keyof PrismaTypes]: M extends keyof GuardedColumns ? WithoutGuarded<PrismaTypes[M], GuardedColumns[M]> : PrismaTypes[M];
};
