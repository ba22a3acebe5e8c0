/**
 * What one request uses, as coordinates (docs/usage.md): names only, never a
 * value a client sent.
 *
 * - Every request: its entry, `/graphql`, `/mcp (ERA)` or a REST route
 *   (`/api/v1/courses/{course_id}`). A key's requests per day are the sum of
 *   its entries.
 * - GraphQL: the schema coordinates its operation selects (`Course.title`),
 *   the arguments it writes (`Query.courses(q:)`), and the enum values
 *   written in the document (`PackSort.stars`). A variable's enum value is
 *   not seen. (The schema has no input object types, whose fields would be
 *   coordinates too.)
 * - REST: the route, and each query parameter's name (`/api/v1/courses?q`).
 * - MCP: the entry with the protocol era, and the tool (`MCP list_courses`).
 *
 * A GraphQL document's coordinates are computed once per parsed document
 * (yoga keeps one parse per document text) and operation.
 */
import {
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  isEnumType,
  Kind,
  type OperationDefinitionNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from "graphql";
import type { ProtocolEra } from "@modelcontextprotocol/server";

/**
 * What a request refused by one of its key's restrictions is counted as, for
 * the key: `(refused: origin)`. Not an entry (it starts with no `/`), so it
 * is not one of the key's requests per day.
 */
export const refusedBy = (restriction: string): string => `(refused: ${restriction})`;

/** The entry of every GraphQL request. */
export const GRAPHQL_ENTRY = "/graphql";

/** The entry of an MCP request of the SDK's protocol `era`: `/mcp (legacy)` (the 2025 revisions, `initialize`) or `/mcp (modern)`. */
export const mcpEntry = (era: ProtocolEra): string => `/mcp (${era})`;

/** An MCP tool's coordinate. */
export const mcpTool = (tool: string): string => `MCP ${tool}`;

/** Whether `coordinate` is a request's entry (one per request). */
export const isEntry = (coordinate: string): boolean => coordinate.startsWith("/") && !coordinate.includes("?");

/** Most REST coordinate lists kept, by route and parameter names (the validated ones are a few dozen; others are refused, and not kept past this). */
const MAX_KEPT_REST = 1_000;
const restKept = new Map<string, readonly string[]>();

/**
 * A REST request's coordinates: its route's template, and a coordinate per
 * query parameter name, in name order. The same route and names give the
 * same list, made once.
 */
export function restUses(route: string, params: URLSearchParams): readonly string[] {
  let signature = route;
  for (const name of params.keys()) signature += `&${name}`;
  let uses = restKept.get(signature);
  if (!uses) {
    const names = [...new Set(params.keys())].sort();
    uses = [route, ...names.map((name) => `${route}?${name}`)];
    if (restKept.size < MAX_KEPT_REST) restKept.set(signature, uses);
  }
  return uses;
}

const noted = new WeakMap<Request, readonly string[]>();

/** Says what `request` used, as its surface's plugin learns it (the last word counts). */
export function noteUses(request: Request, uses: readonly string[]): void {
  noted.set(request, uses);
}

/** What `request` was noted to use, if anything. */
export const usesNoted = (request: Request): readonly string[] | undefined => noted.get(request);

const documents = new WeakMap<DocumentNode, Map<string, readonly string[]>>();

/** The coordinates `operationName` of `document` selects (with the GraphQL entry first), computed once per document and operation. */
export function graphqlUses(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): readonly string[] {
  let operations = documents.get(document);
  if (!operations) {
    operations = new Map();
    documents.set(document, operations);
  }
  const name = operationName ?? "";
  let uses = operations.get(name);
  if (!uses) {
    uses = selected(schema, document, operationName);
    operations.set(name, uses);
  }
  return uses;
}

function selected(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): readonly string[] {
  const operation = getOperationAST(document, operationName);
  if (!operation) return [GRAPHQL_ENTRY];
  const found = new Set<string>([GRAPHQL_ENTRY]);
  const typeInfo = new TypeInfo(schema);
  const visitor = visitWithTypeInfo(typeInfo, {
    Field(node) {
      const parent = typeInfo.getParentType();
      if (parent && typeInfo.getFieldDef() && !node.name.value.startsWith("__")) found.add(`${parent.name}.${node.name.value}`);
    },
    Argument(node) {
      const parent = typeInfo.getParentType();
      const field = typeInfo.getFieldDef();
      if (parent && field && !typeInfo.getDirective() && typeInfo.getArgument())
        found.add(`${parent.name}.${field.name}(${node.name.value}:)`);
    },
    EnumValue(node) {
      const input = typeInfo.getInputType();
      const named = input && getNamedType(input);
      if (named && isEnumType(named) && named.getValue(node.value)) found.add(`${named.name}.${node.value}`);
    },
  });
  for (const definition of reachable(document, operation)) visit(definition as ASTNode, visitor);
  return [...found];
}

/** The operation and every fragment it spreads, directly or through others. */
function reachable(document: DocumentNode, operation: OperationDefinitionNode): (OperationDefinitionNode | FragmentDefinitionNode)[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const out: (OperationDefinitionNode | FragmentDefinitionNode)[] = [];
  const seen = new Set<string>();
  const walk = (node: OperationDefinitionNode | FragmentDefinitionNode) => {
    out.push(node);
    visit(node, {
      FragmentSpread(spread) {
        const name = spread.name.value;
        const fragment = fragments.get(name);
        if (seen.has(name) || !fragment) return;
        seen.add(name);
        walk(fragment);
      },
    });
  };
  walk(operation);
  return out;
}
