/**
 * `useInputLimits`: the text and list limits of `src/input-limits.ts` for
 * GraphQL. Every string and list in the document's arguments (literals and
 * variable defaults) and in the variables is checked before execution; a
 * problem is a `BAD_USER_INPUT` error with HTTP 400, and nothing runs.
 */
import { type ArgumentNode, type DocumentNode, GraphQLError, Kind, type ValueNode, type VariableDefinitionNode, visit } from "graphql";
import type { Plugin } from "graphql-yoga";
import { listProblem, textProblem } from "../input-limits.js";

/** The first problem of a literal value, if any. */
function literalProblem(value: ValueNode): string | undefined {
  switch (value.kind) {
    case Kind.STRING:
      return textProblem(value.value);
    case Kind.LIST:
      return listProblem(value.values.length) ?? firstOf(value.values, literalProblem);
    case Kind.OBJECT:
      return firstOf(value.fields, (field) => literalProblem(field.value));
    default:
      return undefined;
  }
}

/** The first problem of a variable's (JSON) value, if any. */
function valueProblem(value: unknown): string | undefined {
  if (typeof value === "string") return textProblem(value);
  if (Array.isArray(value)) return listProblem(value.length) ?? firstOf(value, valueProblem);
  if (value !== null && typeof value === "object") return firstOf(Object.values(value), valueProblem);
  return undefined;
}

function firstOf<T>(items: readonly T[], check: (item: T) => string | undefined): string | undefined {
  for (const item of items) {
    const problem = check(item);
    if (problem) return problem;
  }
  return undefined;
}

function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: "BAD_USER_INPUT", http: { status: 400 } } });
}

/** The first problem of a request's variables (`variable $name …`), if any. */
export function variablesProblem(variables: Readonly<Record<string, unknown>> | undefined | null): string | undefined {
  for (const [name, value] of Object.entries(variables ?? {})) {
    const found = valueProblem(value);
    if (found) return `variable $${name} ${found}`;
  }
  return undefined;
}

/** The first problem of a document's own literals (arguments and variable defaults), if any. */
function documentProblem(document: DocumentNode): string | undefined {
  let problem: string | undefined;
  visit(document, {
    Argument(node: ArgumentNode) {
      const found = literalProblem(node.value);
      if (found && !problem) problem = `argument ${node.name.value} ${found}`;
    },
    VariableDefinition(node: VariableDefinitionNode) {
      const found = node.defaultValue && literalProblem(node.defaultValue);
      if (found && !problem) problem = `variable $${node.variable.name.value} ${found}`;
    },
  });
  return problem;
}

/** What {@link documentProblem} found, by document: yoga parses a document once and hands out the same object. */
const documentProblems = new WeakMap<DocumentNode, string | null>();

export function useInputLimits(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      let problem = documentProblems.get(args.document);
      if (problem === undefined) {
        problem = documentProblem(args.document) ?? null;
        documentProblems.set(args.document, problem);
      }
      if (problem === null) problem = variablesProblem(args.variableValues) ?? null;
      if (problem !== null) setResultAndStopExecution({ errors: [badInput(problem)] });
    },
  };
}
