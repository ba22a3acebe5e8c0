/**
 * `useUsage`: notes the schema coordinates each GraphQL execution selects
 * (src/usage/coordinates.ts), once per parsed document and operation, for
 * the access record to count (useAccessLog, src/usage/recorder.ts). REST and
 * MCP requests are noted by their own plugins.
 *
 * It goes before useGraphQLCache, which keeps what a result's request used
 * with the result.
 */
import type { Plugin } from "graphql-yoga";
import { graphqlUses, noteUses } from "../usage/coordinates.js";

export function useUsage(): Plugin {
  // By the execution's context: the request yoga gives the context is not always the one its hooks see.
  const byContext = new WeakMap<object, readonly string[]>();
  return {
    onExecute({ args }) {
      byContext.set(args.contextValue as object, graphqlUses(args.schema, args.document, args.operationName));
    },
    onExecutionResult({ request, context }) {
      const uses = byContext.get(context);
      if (uses) noteUses(request, uses);
    },
  };
}
