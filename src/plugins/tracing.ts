/**
 * `useOperationSpans`: with tracing on (src/observe/tracing.ts), each GraphQL
 * request on `/graphql` gets a span for its operation, under the request's
 * HTTP span and above its SQL statements: named `query Schools`, with the
 * operation's type and name, and failed when the result has errors. Neither
 * the document nor the variables' values are recorded. The fixed operations of
 * REST and MCP get the same span in rest/api.ts.
 */
import { getOperationAST } from "graphql";
import type { Plugin } from "graphql-yoga";
import { inSpan, type WorkSpan } from "../observe/tracing.js";

export function useOperationSpans(): Plugin {
  /** The span of each operation in progress, by its context. */
  const spans = new WeakMap<object, WorkSpan>();
  return {
    instrumentation: {
      operation: ({ context }, wrapped) =>
        inSpan("graphql operation", { "graphql.operation.type": "query" }, async (span) => {
          spans.set(context, span);
          await wrapped();
        }),
    },
    onExecute({ args }) {
      const span = spans.get(args.contextValue as object);
      if (!span) return;
      const operation = getOperationAST(args.document, args.operationName);
      const type = operation?.operation ?? "query";
      const name = operation?.name?.value;
      span.rename(name ? `${type} ${name}` : type);
      span.setAttributes({ "graphql.operation.type": type, ...(name ? { "graphql.operation.name": name } : {}) });
      return {
        onExecuteDone({ result }) {
          if ("errors" in result && result.errors?.length) span.fail(`${result.errors.length} error(s)`);
        },
      };
    },
  };
}
