/**
 * The shape of a GraphQL document, measured before anything runs, and the
 * bounds it must keep: depth, aliases, directives and fields (per operation,
 * fragments written out) and tokens (of the whole text). `useQueryLimits` checks every
 * `/graphql` request with them, and `readTrustedDocuments` every trusted
 * document at start, so a document is refused by the same rule in both
 * places. The cost of a request, which depends on its variables, is the
 * other bound (src/schema/cost.ts); it is what protects the service, and
 * these keep the document itself small enough to be priced cheaply.
 *
 * **Depth** counts object levels as a client sees them: the wrappers of a
 * Relay connection (`edges`, the `node` of an edge, `nodes`, `pageInfo`)
 * add no level, so `universities { edges { node { courses { edges { node {
 * university { code } } } } } } }`, Relay's only way to write a list inside
 * a list, is as deep as `universities { courses { university { code } } }`:
 * 4. Introspection (`__schema`, `__type`) is not counted.
 */
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLSchema,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  Lexer,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  Source,
  TokenKind,
  type ValidationRule,
} from "graphql";

export interface DocumentBounds {
  /** Deepest object nesting of one operation, connection wrappers free (see above). */
  maxDepth: number;
  /** Most aliases in one operation, fragments counted each time they are spread. */
  maxAliases: number;
  /** Most directives in one operation, fragments counted each time they are spread. */
  maxDirectives: number;
  /**
   * Most field selections in one operation with its fragments written out
   * (a fragment spread twice counts twice): what a walk of the document that
   * does not remember fragments visits, as graphql-jit's compilation does. A
   * few hundred tokens of fragments that each spread the one before twice
   * would otherwise make a billion.
   */
  maxFields: number;
  /** Most tokens in one document (comments are not tokens). */
  maxTokens: number;
}

/**
 * The bounds, above what relay-compiler, Apollo Client and urql send for
 * this schema's pages (measured in test/clients/, listed in the README):
 * - 1,000 tokens: a compiled Relay page is at most 107, with its fragments,
 *   `id`, `__typename`, `cursor` and `pageInfo` added; GraphiQL's schema
 *   query 180;
 * - depth 7: those pages reach 4 (a list inside a list, and each item's
 *   school); the deepest useful shape, a school's courses, each course's
 *   school, its weather now, its AQI, is 6; a document that goes round
 *   `University.courses` and `Course.university` five times is 12;
 * - 15 aliases and 10 directives: none of those pages uses one;
 * - 2,000 fields written out: those pages select at most 41, GraphiQL's
 *   schema query 226. Without this bound, 300 tokens of fragments that each
 *   spread the one before twice (2^30 fields, no row, cost 101) held a core
 *   for minutes while graphql-jit compiled them, past the request time limit.
 */
export const DOCUMENT_BOUNDS: DocumentBounds = { maxDepth: 7, maxAliases: 15, maxDirectives: 10, maxFields: 2_000, maxTokens: 1_000 };

/** What one operation of a document measures. */
export interface OperationShape {
  depth: number;
  aliases: number;
  directives: number;
  fields: number;
}

const EMPTY: Readonly<OperationShape> = { depth: 0, aliases: 0, directives: 0, fields: 0 };

/** The code, measure and bound of each limit, as its refusal's `extensions` carry them. */
const LIMITS = {
  depth: { code: "QUERY_TOO_DEEP", bound: "maxDepth", what: "nested" },
  aliases: { code: "QUERY_TOO_MANY_ALIASES", bound: "maxAliases", what: "aliases" },
  directives: { code: "QUERY_TOO_MANY_DIRECTIVES", bound: "maxDirectives", what: "directives" },
  fields: { code: "QUERY_TOO_MANY_FIELDS", bound: "maxFields", what: "fields with its fragments written out" },
  tokens: { code: "QUERY_TOO_MANY_TOKENS", bound: "maxTokens", what: "tokens" },
} as const;

type Measure = keyof typeof LIMITS;

const LIMIT_CODES: ReadonlySet<unknown> = new Set(Object.values(LIMITS).map((limit) => limit.code));

/** Whether an error's code is one of these limits'. */
export function isLimitCode(code: unknown): boolean {
  return LIMIT_CODES.has(code);
}

/** A refusal of one limit: HTTP 400, with the limit's code, the measure found and the bound. */
function limitError(measure: Measure, found: number, bounds: DocumentBounds, operation?: string): GraphQLError {
  const { code, bound } = LIMITS[measure];
  const limit = bounds[bound];
  const of = operation ? `Operation ${operation}` : "The document";
  const message =
    measure === "depth"
      ? `${of} is nested ${found} levels deep; at most ${limit} are allowed (connection edges, node, nodes and pageInfo add none)`
      : `${of} has ${found} ${LIMITS[measure].what}; at most ${limit} are allowed`;
  return new GraphQLError(message, { extensions: { code, [measure]: found, [bound]: limit, http: { status: 400 } } });
}

/** Connection and edge types of a schema, found by their fields (Relay's connection specification). */
interface Wrappers {
  connections: ReadonlySet<string>;
  edges: ReadonlySet<string>;
}

const wrappersOf = new WeakMap<GraphQLSchema, Wrappers>();

function wrappers(schema: GraphQLSchema): Wrappers {
  let found = wrappersOf.get(schema);
  if (found) return found;
  const connections = new Set<string>();
  const edges = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    const fields = type.getFields();
    if (fields.edges && fields.pageInfo && getNamedType(fields.pageInfo.type).name === "PageInfo") connections.add(type.name);
    if (fields.node && fields.cursor) edges.add(type.name);
  }
  found = { connections, edges };
  wrappersOf.set(schema, found);
  return found;
}

const CONNECTION_WRAPPERS = new Set(["edges", "nodes", "pageInfo"]);

/**
 * Measures each operation of a document. Fragments are measured once each
 * (a fragment spread many times costs no more to measure), and a cycle of
 * fragments, which validation refuses, is measured as empty.
 */
export function measureOperations(schema: GraphQLSchema, document: DocumentNode): Map<OperationDefinitionNode, OperationShape> {
  const { connections, edges } = wrappers(schema);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const measured = new Map<string, OperationShape>();
  const measuring = new Set<string>();

  /** The type a field of `parent` returns, by name; unknown fields (which validation refuses) have none. */
  const fieldType = (parent: string | undefined, field: string): string | undefined => {
    const type = parent ? schema.getType(parent) : undefined;
    if (!(isObjectType(type) || isInterfaceType(type))) return undefined;
    const definition = type.getFields()[field];
    return definition ? getNamedType(definition.type).name : undefined;
  };

  function selections(set: SelectionSetNode, parent: string | undefined): OperationShape {
    const shape: OperationShape = { ...EMPTY };
    for (const selection of set.selections) {
      shape.directives += selection.directives?.length ?? 0;
      let inner: OperationShape;
      let level = 0;
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        shape.fields++;
        if (selection.alias) shape.aliases++;
        inner = selection.selectionSet ? selections(selection.selectionSet, fieldType(parent, name)) : EMPTY;
        const wrapper =
          (parent !== undefined && connections.has(parent) && CONNECTION_WRAPPERS.has(name)) ||
          (name === "node" && parent !== undefined && edges.has(parent));
        if (name === "__schema" || name === "__type") inner = { ...inner, depth: 0 };
        else level = wrapper ? 0 : 1;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        inner = selections(selection.selectionSet, selection.typeCondition?.name.value ?? parent);
      } else {
        inner = fragment(selection.name.value);
      }
      shape.depth = Math.max(shape.depth, level + inner.depth);
      shape.aliases += inner.aliases;
      shape.directives += inner.directives;
      shape.fields += inner.fields;
    }
    return shape;
  }

  function fragment(name: string): OperationShape {
    const known = measured.get(name);
    if (known) return known;
    const definition = fragments.get(name);
    if (!definition || measuring.has(name)) return EMPTY;
    measuring.add(name);
    const shape = selections(definition.selectionSet, definition.typeCondition.name.value);
    shape.directives += definition.directives?.length ?? 0;
    measuring.delete(name);
    measured.set(name, shape);
    return shape;
  }

  const operations = new Map<OperationDefinitionNode, OperationShape>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = schema.getRootType(definition.operation)?.name;
    const shape = selections(definition.selectionSet, root);
    shape.directives += definition.directives?.length ?? 0;
    operations.set(definition, shape);
  }
  return operations;
}

/** The refusals of a document's operations, one per operation and limit exceeded. */
export function shapeErrors(schema: GraphQLSchema, document: DocumentNode, bounds: DocumentBounds): GraphQLError[] {
  const errors: GraphQLError[] = [];
  for (const [operation, shape] of measureOperations(schema, document)) {
    const name = operation.name?.value;
    if (shape.depth > bounds.maxDepth) errors.push(limitError("depth", shape.depth, bounds, name));
    if (shape.aliases > bounds.maxAliases) errors.push(limitError("aliases", shape.aliases, bounds, name));
    if (shape.directives > bounds.maxDirectives) errors.push(limitError("directives", shape.directives, bounds, name));
    if (shape.fields > bounds.maxFields) errors.push(limitError("fields", shape.fields, bounds, name));
  }
  return errors;
}

/** A validation rule reporting {@link shapeErrors}: yoga validates a document once and keeps the result. */
export function documentShapeRule(bounds: DocumentBounds): ValidationRule {
  return (context) => {
    for (const error of shapeErrors(context.getSchema(), context.getDocument(), bounds)) context.reportError(error);
    return {};
  };
}

/** The tokens of a text, as graphql-js's parser counts them (comments excluded); a lexing error ends the count. */
export function countTokens(text: string): number {
  const lexer = new Lexer(new Source(text));
  let count = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) count++;
  } catch {
    // The parser reports the syntax error; the count so far is what it read.
  }
  return count;
}

/**
 * Parses a document, refusing one of more than `maxTokens` tokens with
 * {@link limitError}: graphql-js stops parsing at the bound, and the count
 * reported is then made by the lexer alone.
 */
export function parseWithinTokens(text: string, maxTokens: number): DocumentNode {
  try {
    return parse(text, { maxTokens });
  } catch (error) {
    const tokens = countTokens(text);
    if (tokens > maxTokens) throw limitError("tokens", tokens, { ...DOCUMENT_BOUNDS, maxTokens });
    throw error;
  }
}
