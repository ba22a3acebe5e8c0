/**
 * `useQueryLimits`: bounds on what one GraphQL document may ask for, from
 * graphql-armor, checked during validation (before any resolver runs). The
 * REST and MCP operations are fixed documents executed directly and are not
 * subject to them.
 */
import { costLimitPlugin } from "@escape.tech/graphql-armor-cost-limit";
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { maxTokensPlugin } from "@escape.tech/graphql-armor-max-tokens";
import type { Plugin } from "graphql-yoga";

export interface QueryLimitOptions {
  /** Deepest field nesting, fragments flattened (introspection exempt). Default 12. */
  maxDepth?: number;
  /** Most aliases in one document. Default 30. */
  maxAliases?: number;
  /** Most tokens in one document. Default 3,000. */
  maxTokens?: number;
  /** Highest graphql-armor cost (objects 2, scalars 1, x1.5 per level). Default 100,000. */
  maxCost?: number;
}

export function useQueryLimits(options: QueryLimitOptions = {}): Plugin[] {
  return [
    maxDepthPlugin({ n: options.maxDepth ?? 12, ignoreIntrospection: true, flattenFragments: true }),
    maxAliasesPlugin({ n: options.maxAliases ?? 30 }),
    maxTokensPlugin({ n: options.maxTokens ?? 3_000 }),
    costLimitPlugin({ maxCost: options.maxCost ?? 100_000, ignoreIntrospection: true }),
  ] as Plugin[];
}
