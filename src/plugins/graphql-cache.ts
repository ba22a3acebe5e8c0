/**
 * `useGraphQLCache`: GraphQL answers from the same cache as the v1 answers
 * (src/cache/answers.ts), kept until the data changes, or until the clock
 * moves them (Context.validity) when they hold environment answers.
 * Everything the graph serves is public and the same for every key, and it
 * has no mutations, so a result is keyed by its
 * document, operation name and variables alone. Keys and limits are checked
 * before (useApiKeys), for every request; a hit skips parsing, validation,
 * the cost limits and execution, which the same document passed when it was
 * kept. Results with errors are never kept.
 */
import type { ExecutionResult } from "graphql";
import type { Plugin } from "graphql-yoga";
import type { AnswerCache } from "../cache/answers.js";
import type { Context } from "../context.js";

export interface GraphQLCacheOptions {
  /** Where results are kept; a disabled cache makes this plugin do nothing. */
  cache: AnswerCache;
}

export function useGraphQLCache(options: GraphQLCacheOptions): Plugin<Record<string, unknown>, Context> {
  const { cache } = options;
  /** The cache key of each request whose result should be kept. */
  const keys = new WeakMap<Request, string>();
  return {
    onParams({ request, params, setResult }) {
      if (!cache.enabled || typeof params.query !== "string") return;
      const key = `graphql ${JSON.stringify([params.query, params.operationName ?? null, params.variables ?? null])}`;
      const hit = cache.get(key);
      if (hit) return setResult(hit.body as ExecutionResult);
      keys.set(request, key);
    },
    onExecutionResult({ request, result, context }) {
      const key = keys.get(request);
      if (key === undefined || !result || Symbol.asyncIterator in result) return;
      const { errors, data } = result as ExecutionResult;
      if (errors?.length || data === undefined || data === null) return;
      const body: ExecutionResult = { data };
      cache.set(key, { status: 200, body, text: JSON.stringify(body) }, context.validForMs());
    },
  };
}
