/**
 * `useCompiledExecution`: `/graphql` executes each document compiled by
 * graphql-jit (as the fixed REST and MCP operations are, rest/api.ts),
 * compiled once and kept in a bounded cache, and falls back to the
 * executor yoga would have used wherever compiling cannot give the same
 * answer:
 *
 * - a document graphql-jit cannot compile (it says so; several operations
 *   and no operation name, say);
 * - variables that graphql-js refuses: its own coercion is asked first, and a
 *   refused call runs on graphql-js, so that its errors are graphql-js's, word
 *   for word;
 * - a subscription (the schema has none);
 * - a result with errors: graphql-js stops a selection at the first
 *   non-null field that fails and never runs the fields after it, where
 *   graphql-jit runs them all and reports their errors too. Such a call is
 *   executed again by graphql-js, whose answer it gets (a query only reads;
 *   the key was counted once). One whose errors say the database could not
 *   answer is not: its answer is a 503 all the same, and running it again
 *   would make the client wait twice as long for it.
 *
 * The compiled result is then written as graphql-js writes one: `{ data }`,
 * or for a 503, `errors` before `data`, each error a GraphQLError with its
 * source and positions, so that yoga writes its `locations` (it makes each
 * error again from those, and graphql-jit's errors carry their locations only
 * as such).
 *
 * Its resolvers see response paths as graphql-js gives them
 * (src/schema/shared-paths.ts), without which Pothos' Prisma plugin loads a
 * relation nested under another relation row by row.
 *
 * A test (test/graphql/compiled-execution.test.ts) runs the committed
 * operations and generated documents, valid and not, through both and holds
 * their answers, errors included, to the same bytes.
 *
 * @envelop/graphql-jit does the same with no fallback: a document it cannot
 * compile is answered with the compiler's errors, which are not graphql-js's.
 */
import {
  type DocumentNode,
  type ExecutionResult,
  GraphQLError,
  getOperationAST,
  getVariableValues,
  type GraphQLSchema,
  OperationTypeNode,
  type Source,
  type VariableDefinitionNode,
} from "graphql";
import { type CompiledQuery, compileQuery, isCompiledQuery } from "graphql-jit";
import type { Plugin } from "graphql-yoga";
import { LRUCache } from "lru-cache";
import { isUnavailable } from "../db/availability.js";
import { graphqlExecutions } from "../observe/metrics.js";
import { sharePaths } from "../schema/shared-paths.js";

export interface CompiledExecutionOptions {
  /** Most documents kept compiled (each with its operations); the least recently used go first. Default 1,000. */
  maxDocuments?: number;
}

/** One compiled operation, with the variables it declares and the text it was parsed from. */
export interface Operation {
  query: CompiledQuery;
  variables: readonly VariableDefinitionNode[];
  source: Source | undefined;
}

/** Where each line of a text begins, as graphql-js counts lines (`\r\n`, `\n` or `\r` ends one). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (const match of text.matchAll(/\r\n|[\n\r]/g)) starts.push(match.index + match[0].length);
  return starts;
}

/** A compiled result as graphql-js gives it: `errors` first, each a GraphQLError at its positions in `source`. */
function asGraphQLJs(result: ExecutionResult, source: Source | undefined, starts: () => number[]): ExecutionResult {
  if (!result.errors?.length) return { data: result.data };
  const errors = result.errors.map(
    (error) =>
      new GraphQLError(error.message, {
        source,
        positions: source && error.locations?.map((at) => (starts()[at.line - 1] ?? 0) + at.column - 1),
        path: error.path,
        originalError: error.originalError,
        extensions: error.extensions,
      }),
  );
  return { errors, data: result.data };
}

/** A document's compiled operations, by operation name (`""`: the document's only one); null where it does not compile. */
type Compiled = Map<string, Operation | null>;

/**
 * The executions whose answer was graphql-jit's, without errors, by their
 * context: an answer the lean path may give again by running the same
 * compiled operation (src/plugins/planned-documents.ts).
 */
const compiledAnswers = new WeakSet<object>();

/** Whether the execution of `context` was answered by its compiled operation, without errors. */
export const answeredCompiled = (context: unknown): boolean =>
  typeof context === "object" && context !== null && compiledAnswers.has(context);

/** Counts an execution answered by a compiled operation. */
export const countCompiled = (): void => graphqlExecutions.inc({ executor: "compiled" });
/** Counts an execution by a document's SQL plan (src/sql-plans/plan.ts). */
export const countSql = (): void => graphqlExecutions.inc({ executor: "sql" });

/**
 * Runs a compiled operation as the plugin runs it: with response paths as
 * graphql-js gives them (src/schema/shared-paths.ts).
 */
export function runCompiled(operation: Operation, context: object, variables: Record<string, unknown>) {
  sharePaths(context);
  return operation.query.query(undefined, context, variables);
}

export function useCompiledExecution(options: CompiledExecutionOptions = {}): Plugin & {
  /** The compiled form of one operation of `document` (compiled the first time it is asked for); null: it does not compile. */
  compiled(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): Operation | null;
} {
  const documents = new LRUCache<DocumentNode, Compiled>({ max: options.maxDocuments ?? 1_000 });

  /** The compiled form of one operation of `document`, compiled the first time it is asked for; null: it does not compile. */
  function compiled(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): Operation | null {
    let operations = documents.get(document);
    if (!operations) {
      operations = new Map();
      documents.set(document, operations);
    }
    const name = operationName ?? "";
    let found = operations.get(name);
    if (found === undefined) {
      const operation = getOperationAST(document, operationName);
      const made = operation?.operation === OperationTypeNode.QUERY ? compileQuery(schema, document, operationName ?? undefined) : null;
      found =
        made && isCompiledQuery(made)
          ? { query: made, variables: operation?.variableDefinitions ?? [], source: document.loc?.source }
          : null;
      operations.set(name, found);
    }
    return found;
  }

  return {
    compiled,
    onExecute({ args, executeFn, setExecuteFn }) {
      const operation = compiled(args.schema, args.document, args.operationName);
      // graphql-js's coercion first: a call it refuses is answered by graphql-js itself.
      if (!operation || getVariableValues(args.schema, operation.variables, args.variableValues ?? {}).errors) {
        graphqlExecutions.inc({ executor: "graphql-js" });
        return;
      }
      let starts: number[] | undefined;
      const lines = () => (starts ??= lineStarts(operation.source?.body ?? ""));
      setExecuteFn(async (call) => {
        if (typeof call.contextValue === "object" && call.contextValue !== null) sharePaths(call.contextValue);
        const result = await operation.query.query(call.rootValue, call.contextValue, call.variableValues ?? {});
        if (!result.errors?.length || result.errors.some((error) => isUnavailable(error))) {
          countCompiled();
          if (!result.errors?.length && typeof call.contextValue === "object" && call.contextValue !== null)
            compiledAnswers.add(call.contextValue);
          return asGraphQLJs(result, operation.source, lines);
        }
        graphqlExecutions.inc({ executor: "graphql-js" });
        return executeFn(call);
      });
    },
  };
}
