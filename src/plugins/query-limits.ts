/**
 * `useQueryLimits`: bounds on what one GraphQL request may ask for, checked
 * before any resolver runs: the shape of the document by graphql-armor during
 * validation, and its cost with its variables by `useQueryCost`. The REST and
 * MCP operations are fixed documents executed directly and are not subject to
 * them.
 *
 * Each default is graphql-armor's own or tighter, measured against what the
 * schema's users need:
 * - depth 6: the deepest useful query, a connection inside a connection read
 *   through `nodes` (`universities { nodes { courses { nodes { university { code } } } } }`),
 *   is 6; through `edges { node }` it would be 8, so nested lists use `nodes`;
 * - 15 aliases, `__typename` counted too: a page asks for a handful of lists;
 * - 1,000 tokens: GraphiQL's default query is about 60, the README's longest 70;
 * - cost 100,000 points of about 10 µs (src/schema/cost.ts), with pages at
 *   the size asked for: the nested query above with 20 courses a school
 *   costs 86,550 over the 500 schools of a default page, a 90-day history of
 *   15 schools 67,595; whatever is accepted finishes within a second on the
 *   demo data while other clients are served (`npm run bench:cost`);
 * - 10 directives: `@include`/`@skip` on a few fields;
 * - no "did you mean" suggestions in errors: the schema is public through
 *   introspection anyway, but suggestions let a client probe without it.
 */
import { blockFieldSuggestionsPlugin } from "@escape.tech/graphql-armor-block-field-suggestions";
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { maxDirectivesPlugin } from "@escape.tech/graphql-armor-max-directives";
import { maxTokensPlugin } from "@escape.tech/graphql-armor-max-tokens";
import { createComplexityRule } from "@pothos/plugin-complexity";
import { type DocumentNode, GraphQLError, validate } from "graphql";
import type { Plugin } from "graphql-yoga";
import { MAX_COST } from "../schema/cost.js";

export interface QueryLimitOptions {
  /** Deepest field nesting, fragments flattened (introspection exempt). Default 6. */
  maxDepth?: number;
  /** Most aliases in one document, `__typename` included. Default 15. */
  maxAliases?: number;
  /** Most tokens in one document. Default 1,000. */
  maxTokens?: number;
  /** Highest estimated cost of one request, variables applied (src/schema/cost.ts). Default 100,000. */
  maxCost?: number;
  /** Most directives in one document. Default 10. */
  maxDirectives?: number;
}

export function useQueryLimits(options: QueryLimitOptions = {}): Plugin[] {
  return [
    maxDepthPlugin({ n: options.maxDepth ?? 6, ignoreIntrospection: true, flattenFragments: true }),
    maxAliasesPlugin({ n: options.maxAliases ?? 15, allowList: [] }),
    maxTokensPlugin({ n: options.maxTokens ?? 1_000 }),
    maxDirectivesPlugin({ n: options.maxDirectives ?? 10 }),
    blockFieldSuggestionsPlugin(),
    useQueryCost({ maxCost: options.maxCost ?? MAX_COST }),
  ] as Plugin[];
}

export interface QueryCostOptions {
  /** Highest estimated cost of one request (src/schema/cost.ts). */
  maxCost: number;
}

/**
 * Refuses a request whose estimated cost is above `maxCost`, before it runs.
 * The cost depends on the variables (`first: $n`), so it is measured at
 * execution, not in GraphQL validation, whose result yoga caches per document.
 */
/** Most priced variable sets remembered per document. */
const PRICED_PER_DOCUMENT = 16;

function useQueryCost(options: QueryCostOptions): Plugin {
  /**
   * The requests found within this limit, by document, then by operation
   * name and variables: yoga parses a document once and hands out the same
   * object, and a cost depends on nothing else (src/schema/cost.ts reads
   * arguments only). Only requests within the limit are remembered; one
   * above it is priced again, and refused again, each time.
   */
  const withinLimit = new WeakMap<DocumentNode, Set<string>>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const key = `${args.operationName ?? ""}\u0000${JSON.stringify(args.variableValues ?? {})}`;
      let priced = withinLimit.get(args.document);
      if (priced?.has(key)) return;
      const rule = createComplexityRule({
        context: args.contextValue as object,
        variableValues: (args.variableValues ?? {}) as Record<string, unknown>,
        operationName: args.operationName,
        validate: (result, report) => {
          if (result.complexity > options.maxCost) {
            report(
              new GraphQLError(
                `Query cost ${Math.ceil(result.complexity)} is above the limit of ${options.maxCost}: ask for smaller pages (first, limit, pageSize), fewer days or fewer aliases, or split the query`,
                {
                  extensions: {
                    code: "QUERY_TOO_COSTLY",
                    cost: Math.ceil(result.complexity),
                    maxCost: options.maxCost,
                    http: { status: 400 },
                  },
                },
              ),
            );
          }
        },
      });
      // An argument the cost depends on that cannot be read (`nodes(ids: ["x"])`,
      // a variable of the wrong type) leaves the request unpriced: it does not run.
      const unreadable = (message: string) => new GraphQLError(message, { extensions: { code: "BAD_USER_INPUT", http: { status: 400 } } });
      let errors: GraphQLError[];
      try {
        errors = validate(args.schema, args.document, [rule]).map((e) => (e.extensions.code ? e : unreadable(e.message)));
      } catch (error) {
        errors = [unreadable(error instanceof GraphQLError ? error.message : "the arguments could not be read")];
      }
      if (errors.length > 0) {
        setResultAndStopExecution({ errors });
        return;
      }
      if (!priced) {
        priced = new Set();
        withinLimit.set(args.document, priced);
      }
      // The oldest goes first: a Set keeps the order its members were added in.
      if (priced.size >= PRICED_PER_DOCUMENT) priced.delete(priced.values().next().value as string);
      priced.add(key);
    },
  };
}
