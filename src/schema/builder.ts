/**
 * The Pothos schema builder. It holds no types: each model has its own file
 * beside this one, and schema/index.ts imports them all.
 */
import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import RelayPlugin from "@pothos/plugin-relay";
import type { Context } from "../context.js";
import type { PrismaClient } from "../generated/prisma/client.js";
import type { GuardedPrismaTypes } from "./prisma-types.js";
import { getDatamodel } from "../generated/pothos-types.js";

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: GuardedPrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    Date: { Input: string; Output: Date | string };
    DateTime: { Input: Date; Output: Date | string };
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin],
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
    nodesOnConnection: true,
    nodeTypeOptions: { description: "An object with a global ID, refetchable through `node(id:)`." },
    pageInfoTypeOptions: { description: "Where a page of a connection sits in the whole list." },
    nodeQueryOptions: { description: "Fetches any object by its global ID; null when it does not exist or is not public." },
    nodesQueryOptions: { description: "Fetches several objects by their global IDs, in order." },
  },
});

builder.queryType({ description: "Public data of the learning platform. Every list is a Relay connection." });
