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
 *
 * A request that came over a socket and that the lean path (src/lean/path.ts)
 * named is kept instead as its answer's bytes, under that name, once yoga has
 * written them; the lean path then serves the next one without yoga.
 */
import type { ExecutionResult } from "graphql";
import type { Plugin } from "graphql-yoga";
import { type AnswerCache, bodyOf } from "../cache/answers.js";
import type { Context } from "../context.js";
import { keepGraphQL, type LeanName, leanNameOf } from "../cache/keep.js";
import { noteUses, usesNoted } from "../usage/coordinates.js";

export interface GraphQLCacheOptions {
  /** Where results are kept; a disabled cache makes this plugin do nothing. */
  cache: AnswerCache;
}

export function useGraphQLCache(options: GraphQLCacheOptions): Plugin<Record<string, unknown>, Context> {
  const { cache } = options;
  /** The cache key of each request whose result should be kept. */
  /** Each request's key, and the cache's generation when it began (an answer begun before a change is not kept). */
  const keys = new WeakMap<Request, { key: string; since: number }>();
  /** The lean name of each request named by the lean path. */
  const names = new WeakMap<Request, LeanName>();
  /** Requests whose answer is to be kept as bytes once written, and for how long it stays true. */
  const toKeep = new WeakMap<Request, { name: LeanName; validForMs: number }>();
  return {
    onParams({ request, params, setResult, context }) {
      if (!cache.enabled || typeof params.query !== "string") return;
      const key = `graphql ${JSON.stringify([params.query, params.operationName ?? null, params.variables ?? null])}`;
      const hit = cache.get(key);
      if (hit) {
        if (hit.uses) noteUses(request, hit.uses);
        return setResult(bodyOf(hit) as ExecutionResult);
      }
      keys.set(request, { key, since: cache.generation });
      const name = leanNameOf(context);
      if (name) names.set(request, name);
    },
    onExecutionResult({ request, result, context }) {
      const begun = keys.get(request);
      if (begun === undefined || !result || Symbol.asyncIterator in result) return;
      const { errors, data } = result as ExecutionResult;
      if (errors?.length || data === undefined || data === null) return;
      const name = names.get(request);
      if (name) return void toKeep.set(request, { name, validForMs: context.validForMs() });
      const body: ExecutionResult = { data };
      cache.set(begun.key, { status: 200, text: JSON.stringify(body), uses: usesNoted(request) }, context.validForMs(), begun.since);
    },
    async onResponse({ request, response, setResponse, fetchAPI }) {
      const keep = toKeep.get(request);
      if (!keep || response.status !== 200 || response.bodyUsed) return;
      const bytes = Buffer.from(await response.arrayBuffer());
      keepGraphQL(cache, keep.name, bytes, response.headers.get("content-type") ?? "", keep.validForMs, usesNoted(request));
      setResponse(new fetchAPI.Response(bytes, { status: 200, statusText: response.statusText, headers: response.headers }));
    },
  };
}
