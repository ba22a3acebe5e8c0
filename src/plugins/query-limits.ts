/**
 * `useQueryLimits`: bounds on what one GraphQL document may ask for, from
 * graphql-armor, checked during validation (before any resolver runs). The
 * REST and MCP operations are fixed documents executed directly and are not
 * subject to them.
 *
 * Each default is graphql-armor's own or tighter, measured against what the
 * schema's users need:
 * - depth 6: the deepest useful query, a connection inside a connection read
 *   through `nodes` (`universities { nodes { courses { nodes { university { code } } } } }`),
 *   is 6; through `edges { node }` it would be 8, so nested lists use `nodes`;
 * - 15 aliases, `__typename` counted too: a page asks for a handful of lists;
 * - 1,000 tokens: GraphiQL's default query is about 60, the README's longest 70;
 * - cost 5,000 (objects 2, scalars 1, ×1.5 a level): the nested query above
 *   with a dozen fields costs a few hundred;
 * - 10 directives: `@include`/`@skip` on a few fields;
 * - no "did you mean" suggestions in errors: the schema is public through
 *   introspection anyway, but suggestions let a client probe without it.
 */
import { blockFieldSuggestionsPlugin } from "@escape.tech/graphql-armor-block-field-suggestions";
import { costLimitPlugin } from "@escape.tech/graphql-armor-cost-limit";
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { maxDirectivesPlugin } from "@escape.tech/graphql-armor-max-directives";
import { maxTokensPlugin } from "@escape.tech/graphql-armor-max-tokens";
import type { Plugin } from "graphql-yoga";

export interface QueryLimitOptions {
  /** Deepest field nesting, fragments flattened (introspection exempt). Default 6. */
  maxDepth?: number;
  /** Most aliases in one document, `__typename` included. Default 15. */
  maxAliases?: number;
  /** Most tokens in one document. Default 1,000. */
  maxTokens?: number;
  /** Highest graphql-armor cost (objects 2, scalars 1, x1.5 per level). Default 5,000. */
  maxCost?: number;
  /** Most directives in one document. Default 10. */
  maxDirectives?: number;
}

export function useQueryLimits(options: QueryLimitOptions = {}): Plugin[] {
  return [
    maxDepthPlugin({ n: options.maxDepth ?? 6, ignoreIntrospection: true, flattenFragments: true }),
    maxAliasesPlugin({ n: options.maxAliases ?? 15, allowList: [] }),
    maxTokensPlugin({ n: options.maxTokens ?? 1_000 }),
    costLimitPlugin({ maxCost: options.maxCost ?? 5_000, ignoreIntrospection: true }),
    maxDirectivesPlugin({ n: options.maxDirectives ?? 10 }),
    blockFieldSuggestionsPlugin(),
  ] as Plugin[];
}
