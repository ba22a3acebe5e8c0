/**
 * The Pothos schema builder. It holds no types: each model has its own file
 * beside this one, and schema/index.ts imports them all.
 */
import SchemaBuilder from "@pothos/core";
import ComplexityPlugin from "@pothos/plugin-complexity";
import PrismaPlugin from "@pothos/plugin-prisma";
import RelayPlugin, { resolveNodes } from "@pothos/plugin-relay";
import type { Context } from "../context.js";
import type { PrismaClient } from "../generated/prisma/client.js";
import type { GuardedPrismaTypes } from "./prisma-types.js";
import { getDatamodel } from "../generated/pothos-types.js";
import { COST, defaultFieldCost } from "./cost.js";
import { sqlForm } from "./sql-forms.js";

/** A node the guarded client cannot find (Prisma P2025) is simply absent. */
async function notFoundAsNull<T>(lookup: T | Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if ((error as { code?: unknown }).code === "P2025") return null;
    throw error;
  }
}

interface Types {
  Context: Context;
  PrismaTypes: GuardedPrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    Date: { Input: string; Output: Date | string };
    DateTime: { Input: Date; Output: Date | string };
  };
}

// Typed ahead, because the `nodes` resolver below refers to the builder itself.
export const builder: PothosSchemaTypes.SchemaBuilder<PothosSchemaTypes.ExtendDefaultTypes<Types>> = new SchemaBuilder<Types>({
  plugins: [ComplexityPlugin, PrismaPlugin, RelayPlugin],
  // Costs only: the limit is checked once per request, with its variables, by useQueryCost.
  complexity: { fieldComplexity: defaultFieldCost },
  defaultFieldNullability: false,
  prisma: {
    // The guarded client is an extension of PrismaClient with the same query API.
    client: (ctx) => ctx.prisma as unknown as PrismaClient,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    clientMutationId: "omit",
    cursorType: "String",
    nodesOnConnection: { description: "The items of this page (the `node` of each edge)." },
    nodeTypeOptions: { description: "An object with a global ID, refetchable through `node(id:)`." },
    pageInfoTypeOptions: { description: "Where a page of a connection sits in the whole list." },
    nodeQueryOptions: {
      description: "Fetches any object by its global ID; null when it does not exist or is not public.",
      args: { id: { description: "A global ID, as returned in an `id` field." } },
      complexity: COST.lookup,
      extensions: sqlForm({ kind: "node" }),
      resolve: (_root, args, _ctx, _info, resolveNode) => notFoundAsNull(resolveNode(args.id)),
    },
    nodesQueryOptions: {
      description: "Fetches several objects by their global IDs, in order; null for each that does not exist or is not public.",
      args: { ids: { description: "Global IDs, as returned in `id` fields; at most 100." } },
      complexity: (args) => ({ field: COST.lookup * args.ids.length, multiplier: args.ids.length }),
      // Pothos's own `resolveNodes` argument ignores the ids it is given and loads
      // all of `args.ids` (one id each time gave the first object n times, in n²
      // loads). Load each id on its own: one missing or private id is one null.
      // At most 100 ids (src/input-limits.ts), so at most 100 loads.
      resolve: (_root, args, ctx, info) =>
        args.ids.map((id) => notFoundAsNull(resolveNodes(builder, ctx, info, [id]).then((nodes) => nodes[0] ?? null))),
    },
    idFieldOptions: { description: "Global ID of the object." },
    defaultConnectionTypeOptions: { description: "A page of a list, with the list's total size." },
    defaultEdgeTypeOptions: { description: "One item of a page, with its cursor." },
    cursorFieldOptions: { description: "Opaque cursor of this item, for `after` or `before`." },
    nodeFieldOptions: { description: "The item." },
    edgesFieldOptions: { description: "The items of this page, each with its cursor." },
    nodesFieldOptions: { description: "The items of this page." },
    pageInfoFieldOptions: { description: "Where this page sits in the whole list." },
    hasNextPageFieldOptions: { description: "Whether items follow this page." },
    hasPreviousPageFieldOptions: { description: "Whether items precede this page." },
    startCursorFieldOptions: { description: "Cursor of the first item of this page." },
    endCursorFieldOptions: { description: "Cursor of the last item of this page." },
    beforeArgOptions: { description: "Only items before this cursor." },
    afterArgOptions: { description: "Only items after this cursor." },
    firstArgOptions: { description: "At most this many items from the start (or after `after`)." },
    lastArgOptions: { description: "At most this many items from the end (or before `before`)." },
  },
});

builder.queryType({ description: "Public data of the learning platform. Every list is a Relay connection." });
