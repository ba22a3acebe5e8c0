/**
 * What a GraphQL request costs, estimated from the document and its variables
 * before anything runs (@pothos/plugin-complexity; enforced by `useQueryCost`).
 *
 * A point is about 10 µs of the gateway's and the database's work, measured
 * on the demo data (`npm run bench:cost`, which also checks the weights
 * against the real times). Pages are priced at the size asked for (`first`,
 * `limit`, `pageSize`, `days`), or the default size when none is given, so
 * the estimate bounds what the data could make of the request.
 *
 * Most fields take the default: an object read from a table costs `row`,
 * anything computed from the parent (scalars, `realtime`, `pageInfo`) costs
 * nothing. The fields below that do more say so where they are defined.
 */
import type { FieldComplexityValue } from "@pothos/plugin-complexity";
import { getNamedType, type GraphQLField, isObjectType } from "graphql";

export const COST = {
  /** An object read from a table, with its scalar fields (a course row: ~25 µs). */
  row: 3,
  /** A query for a list: a page of a connection (with its `totalCount`, a COUNT, if asked), or a GROUP BY. */
  list: 50,
  /** A case-insensitive substring search (`q`): a scan of the list's text, not an index lookup (~10 ms for 15 on the demo data). */
  search: 500,
  /** One id of `nodes(ids:)` or `node(id:)`: a query of its own (~1 ms alone, ~2.5 ms beside other clients). */
  lookup: 400,
  /** One school's snapshot, computed together with the other schools of its list (~1 ms). */
  snapshotInList: 100,
  /** A snapshot asked for at the root: a batch of its own (~7 ms). */
  snapshotAlone: 700,
  /** One day of one school's history (~0.35 ms, batched or not). */
  historyDay: 50,
  /** A history asked for at the root: a batch of its own (~5 ms before the days). */
  historyAlone: 500,
  /** Items assumed for a list that has no size argument (a pack's versions). */
  unpagedItems: 10,
} as const;

/** The default for fields that say nothing: a table row costs `COST.row`, the rest is free. */
export function defaultFieldCost<Ctx>(_args: object, _ctx: Ctx, field: GraphQLField<unknown, Ctx>): FieldComplexityValue {
  const type = getNamedType(field.type);
  const fromTable = isObjectType(type) && Boolean(type.extensions.pothosPrismaModel);
  return { field: fromTable ? COST.row : 0, multiplier: 1 };
}

/** Page sizes of Relay connections: Pothos's defaults, and the longer one of the short lists. */
export const PAGE = { default: 20, max: 100, long: 500 } as const;

/**
 * A Relay connection: the list query, and what is under it multiplied by the
 * page size asked for (as Pothos caps it). Everything under it means the
 * items, but also `totalCount` and `pageInfo`, so these are free and the
 * COUNT is part of the connection's own cost.
 */
export const pageCost =
  (defaultSize: number = PAGE.default, maxSize: number = PAGE.max) =>
  (args: { first?: number | null; last?: number | null; q?: string | null }): FieldComplexityValue => ({
    field: COST.list + (args.q ? COST.search : 0),
    multiplier: Math.min(maxSize, Math.max(0, args.first ?? args.last ?? defaultSize)),
  });
