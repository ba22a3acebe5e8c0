/**
 * `useQueryLimits`: bounds on what one GraphQL request may ask for, checked
 * before any resolver runs: the document's tokens as it is parsed, its depth,
 * aliases, directives and fields as it is validated (src/schema/document-limits.ts,
 * where each bound is measured against what Relay, Apollo Client and urql
 * send), and its cost with its variables by `useQueryCost`. The REST and MCP
 * operations are fixed documents executed directly and are not subject to
 * them.
 *
 * The cost is what protects the service: 100,000 points of about 10 µs
 * (src/schema/cost.ts), with pages at the size asked for. The nested query
 * `universities { nodes { courses(first: 20) { nodes { university { code } } } } }`
 * costs 86,550 over the 500 schools of a default page, a 90-day history of
 * 15 schools 67,595; whatever is accepted finishes within a second on the
 * demo data while other clients are served (`npm run bench:cost`). The
 * document bounds keep a document small enough to be parsed, validated and
 * priced in far less than that.
 *
 * Each refusal is a 400 with its own `extensions.code` (QUERY_TOO_MANY_TOKENS,
 * QUERY_TOO_DEEP, QUERY_TOO_MANY_ALIASES, QUERY_TOO_MANY_DIRECTIVES,
 * QUERY_TOO_MANY_FIELDS, QUERY_TOO_COSTLY), the measure found and the bound
 * (docs/contract.md §8).
 * Errors say no "did you mean": the schema is public through introspection
 * anyway, but suggestions let a client probe without it.
 */
import { blockFieldSuggestionsPlugin } from "@escape.tech/graphql-armor-block-field-suggestions";
import { createComplexityRule } from "@pothos/plugin-complexity";
import { type DocumentNode, GraphQLError, type GraphQLSchema, validate } from "graphql";
import type { Plugin } from "graphql-yoga";
import { MAX_COST } from "../input-limits.js";
import { DOCUMENT_BOUNDS, type DocumentBounds, documentShapeRule, isLimitCode, parseWithinTokens } from "../schema/document-limits.js";

export interface QueryLimitOptions extends Partial<DocumentBounds> {
  /** Highest estimated cost of one request, variables applied (src/schema/cost.ts). Default 100,000. */
  maxCost?: number;
}

/** The document bounds of these options, each defaulting to DOCUMENT_BOUNDS. */
function documentBounds(options: QueryLimitOptions = {}): DocumentBounds {
  return {
    maxDepth: options.maxDepth ?? DOCUMENT_BOUNDS.maxDepth,
    maxAliases: options.maxAliases ?? DOCUMENT_BOUNDS.maxAliases,
    maxDirectives: options.maxDirectives ?? DOCUMENT_BOUNDS.maxDirectives,
    maxFields: options.maxFields ?? DOCUMENT_BOUNDS.maxFields,
    maxTokens: options.maxTokens ?? DOCUMENT_BOUNDS.maxTokens,
  };
}

export function useQueryLimits(options: QueryLimitOptions = {}): Plugin[] {
  const bounds = documentBounds(options);
  const shape = documentShapeRule(bounds);
  const documentLimits: Plugin = {
    onParse({ setParseFn }) {
      setParseFn((source) => parseWithinTokens(typeof source === "string" ? source : source.body, bounds.maxTokens));
    },
    onValidate({ addValidationRule }) {
      addValidationRule(shape);
    },
    // yoga marks a parse error as the GraphQL over HTTP specification's, which
    // an `application/json` answer gives as 200; a refusal of a limit is a 400
    // on every media type, as QUERY_TOO_COSTLY is.
    onResultProcess({ result }) {
      for (const one of Array.isArray(result) ? result : [result]) {
        if (!("errors" in one) || !one.errors) continue;
        for (const error of one.errors) {
          const http = error.extensions?.http as { spec?: boolean } | undefined;
          if (http && isLimitCode(error.extensions?.code)) http.spec = false;
        }
      }
    },
  };
  return [documentLimits, blockFieldSuggestionsPlugin() as Plugin, useQueryCost({ maxCost: options.maxCost ?? MAX_COST })];
}

export interface QueryCostOptions {
  /** Highest estimated cost of one request (src/schema/cost.ts). */
  maxCost: number;
}

/** Most priced variable sets remembered per document. */
const PRICED_PER_DOCUMENT = 16;

/**
 * The requests found within a limit, by document, then by limit, operation
 * name and variables: yoga parses a document once and hands out the same
 * object, and a cost depends on nothing else (src/schema/cost.ts reads
 * arguments only). Only requests within the limit are remembered; one above
 * it is priced again, and refused again, each time.
 */
const withinLimit = new WeakMap<DocumentNode, Set<string>>();

/** One execution as its cost is priced. */
export interface PricedCall {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null | undefined;
  variableValues?: Readonly<Record<string, unknown>> | null | undefined;
  contextValue: unknown;
}

/**
 * Why a request may not run for its cost (QUERY_TOO_COSTLY above `maxCost`,
 * or BAD_USER_INPUT for an argument its cost depends on that cannot be
 * read); none when it may. The cost depends on the variables (`first: $n`),
 * so it is priced per call, not in GraphQL validation, whose result yoga
 * caches per document.
 */
export function costProblems(call: PricedCall, maxCost: number): GraphQLError[] {
  const key = `${maxCost}\u0000${call.operationName ?? ""}\u0000${JSON.stringify(call.variableValues ?? {})}`;
  let priced = withinLimit.get(call.document);
  if (priced?.has(key)) return [];
  const rule = createComplexityRule({
    context: call.contextValue as object,
    variableValues: (call.variableValues ?? {}) as Record<string, unknown>,
    operationName: call.operationName ?? undefined,
    validate: (result, report) => {
      if (result.complexity > maxCost) {
        report(
          new GraphQLError(
            `Query cost ${Math.ceil(result.complexity)} is above the limit of ${maxCost}: ask for smaller pages (first, limit, pageSize), fewer days or fewer aliases, or split the query`,
            {
              extensions: {
                code: "QUERY_TOO_COSTLY",
                cost: Math.ceil(result.complexity),
                maxCost,
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
    errors = validate(call.schema, call.document, [rule]).map((e) => (e.extensions.code ? e : unreadable(e.message)));
  } catch (error) {
    errors = [unreadable(error instanceof GraphQLError ? error.message : "the arguments could not be read")];
  }
  if (errors.length > 0) return errors;
  if (!priced) {
    priced = new Set();
    withinLimit.set(call.document, priced);
  }
  // The oldest goes first: a Set keeps the order its members were added in.
  if (priced.size >= PRICED_PER_DOCUMENT) priced.delete(priced.values().next().value as string);
  priced.add(key);
  return [];
}

/** Refuses a request whose estimated cost is above `maxCost` ({@link costProblems}), before it runs. */
function useQueryCost(options: QueryCostOptions): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const errors = costProblems(args, options.maxCost);
      if (errors.length > 0) setResultAndStopExecution({ errors });
    },
  };
}
