/**
 * The JSON Schemas of the v1 answers, derived from the operation documents
 * (graphql/operations) and the GraphQL schema, so that a field added to a
 * document appears in the OpenAPI document and the MCP tools' output schemas
 * with no other change:
 * - each selected field is a property named by its alias, required (a field
 *   with no value is `null`, never left out), and nothing else may appear;
 * - its GraphQL type gives the JSON type and nullability (enums their values,
 *   custom scalars their `jsonSchema` extension), its description the
 *   description, and its `jsonSchema` extension what the type cannot say
 *   (src/schema/json-schema.ts);
 * - each fragment is a named schema, referred to where a selection is that
 *   fragment alone;
 * - each route's body is its envelope (envelope.ts) around the operation's
 *   `result`.
 */
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type OperationDefinitionNode,
  print,
  type SelectionSetNode,
} from "graphql";
import type { JsonSchemaRefinement } from "../src/schema/json-schema.js";
import { ENVELOPE_FIELDS } from "./envelope.js";
import type { Route } from "./routes.js";

export type Json = Record<string, unknown>;

/** A route's 200 body: the name of its schema, the resource it carries, and the schema. */
export interface BodySchema {
  name: string;
  resource: string;
  schema: Json;
}

export interface DerivedSchemas {
  /** The named schemas: one per fragment the routes use, by fragment name, and each body's, by its name. */
  components: Record<string, Json>;
  /** Each route's 200 body, by operation name. */
  bodies: Map<string, BodySchema>;
}

const REF_PREFIX = "#/components/schemas/";
/** A reference to the named schema `name`. */
export const ref = (name: string): Json => ({ $ref: `${REF_PREFIX}${name}` });

/** The JSON types of GraphQL's own scalars. */
const BUILT_IN: Record<string, Json> = {
  Int: { type: "integer" },
  Float: { type: "number" },
  String: { type: "string" },
  ID: { type: "string" },
  Boolean: { type: "boolean" },
};

/** A strict object: every property required, no other property allowed. */
export function strictObject(description: string | null | undefined, properties: Record<string, Json>): Json {
  return {
    type: "object",
    ...(description ? { description } : {}),
    additionalProperties: false,
    required: Object.keys(properties),
    properties,
  };
}

/** The body of every failure (docs/contract.md §2). */
export const FAILURE_SCHEMA: Json = strictObject("Failure envelope.", {
  success: { type: "boolean", const: false },
  error: { type: "string", minLength: 1, description: "What went wrong; for a parameter, its name and what is allowed." },
});

/** `schema`, or null. */
function orNull(schema: Json): Json {
  if (typeof schema.type === "string" && schema.const === undefined) {
    const nullable: Json = { ...schema, type: [schema.type, "null"] };
    if (Array.isArray(schema.enum)) nullable.enum = [...schema.enum, null];
    return nullable;
  }
  return { anyOf: [schema, { type: "null" }] };
}

/** Derives the schemas of one set of operation documents. */
class Deriver {
  readonly components: Record<string, Json> = {};
  /** The definition each component was made from, to tell two fragments of one name apart. */
  private readonly sources = new Map<string, string>();

  constructor(private readonly schema: GraphQLSchema) {}

  body(route: Route, document: DocumentNode): BodySchema {
    const where = `operation ${route.operation}`;
    const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    const fragments = new Map(
      document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
    );
    const [operation] = operations;
    if (operations.length !== 1 || !operation || operation.operation !== "query") throw new Error(`${where}: a document holds one query`);
    const [selection] = operation.selectionSet.selections;
    if (operation.selectionSet.selections.length !== 1 || selection?.kind !== Kind.FIELD || selection.alias?.value !== "result") {
      throw new Error(`${where}: the query selects one field, aliased \`result\`, which the envelope wraps`);
    }
    const query = this.schema.getQueryType();
    const field = query?.getFields()[selection.name.value];
    if (!query || !field) throw new Error(`${where}: no root field ${selection.name.value}`);
    const type = getNullableType(field.type);
    if (!isObjectType(type) || !selection.selectionSet) throw new Error(`${where}: \`result\` is an object`);
    // The result's own schema (a 404 when it is null, so never null here).
    const result = this.object(type, selection.selectionSet, fragments, where);
    const name = operation.name?.value ?? route.operation;
    if (route.envelope === "object") {
      const resource = this.refName(result) ?? name;
      return this.named(`${resource}Response`, resource, {
        success: { type: "boolean", const: true },
        data: result,
      });
    }
    const properties = this.properties(result);
    const picked: Record<string, Json> = { success: { type: "boolean", const: true } };
    for (const key of ENVELOPE_FIELDS[route.envelope]) {
      const property = properties[key];
      if (!property) throw new Error(`${where}: the ${route.envelope} envelope needs \`result\` to select \`${key}\``);
      picked[key] = property;
    }
    const items = picked.items as Json;
    if (items.type !== "array") throw new Error(`${where}: \`items\` is a non-null list`);
    const resource = this.refName(items.items as Json) ?? name;
    return this.named(`${resource}${route.envelope === "list" ? "List" : "Page"}`, resource, picked);
  }

  private named(name: string, resource: string, properties: Record<string, Json>): BodySchema {
    const what = name.endsWith("Response") ? "Single object" : name.endsWith("Page") ? "Paged list" : "List";
    const schema = strictObject(`${what} envelope of ${resource}.`, properties);
    this.add(name, JSON.stringify(schema), schema);
    return { name, resource, schema };
  }

  /** The component a schema refers to, if it is a reference. */
  private refName(schema: Json): string | undefined {
    return typeof schema.$ref === "string" ? schema.$ref.slice(REF_PREFIX.length) : undefined;
  }

  /** The properties of an object schema, following a reference. */
  private properties(schema: Json): Record<string, Json> {
    const name = this.refName(schema);
    const object = name ? this.components[name] : schema;
    return (object?.properties ?? {}) as Record<string, Json>;
  }

  private add(name: string, source: string, schema: Json): void {
    const known = this.sources.get(name);
    if (known !== undefined && known !== source) throw new Error(`two different schemas are both named ${name}`);
    this.sources.set(name, source);
    this.components[name] = schema;
  }

  /** The schema of `selectionSet` on `type`: a reference when it is one fragment alone, else an object. */
  private object(
    type: GraphQLObjectType,
    selectionSet: SelectionSetNode,
    fragments: Map<string, FragmentDefinitionNode>,
    where: string,
  ): Json {
    const [only] = selectionSet.selections;
    if (selectionSet.selections.length === 1 && only?.kind === Kind.FRAGMENT_SPREAD && !only.directives?.length) {
      return ref(this.fragment(only.name.value, fragments, where));
    }
    const properties: Record<string, Json> = {};
    this.collect(type, selectionSet, fragments, properties, where);
    return strictObject(type.description, properties);
  }

  private fragment(name: string, fragments: Map<string, FragmentDefinitionNode>, where: string): string {
    const definition = fragments.get(name);
    if (!definition) throw new Error(`${where}: no fragment ${name}`);
    const source = print(definition);
    if (this.sources.get(name) === source) return name;
    const type = this.schema.getType(definition.typeCondition.name.value);
    if (!(type instanceof GraphQLObjectType)) throw new Error(`fragment ${name}: only object types are described`);
    const properties: Record<string, Json> = {};
    this.collect(type, definition.selectionSet, fragments, properties, `fragment ${name}`);
    this.add(name, source, strictObject(type.description, properties));
    return name;
  }

  /** Adds the properties of `selectionSet` on `type` to `into`, fragments spread in place. */
  private collect(
    type: GraphQLObjectType,
    selectionSet: SelectionSetNode,
    fragments: Map<string, FragmentDefinitionNode>,
    into: Record<string, Json>,
    where: string,
  ): void {
    for (const selection of selectionSet.selections) {
      if (selection.directives?.length) {
        throw new Error(
          `${where}: a directive on a selection makes the answer's shape depend on variables; a fixed operation has one shape`,
        );
      }
      switch (selection.kind) {
        case Kind.FIELD: {
          const key = selection.alias?.value ?? selection.name.value;
          if (key in into) throw new Error(`${where}: \`${key}\` is selected twice; select it once`);
          into[key] = this.field(type, selection, fragments, where);
          break;
        }
        case Kind.FRAGMENT_SPREAD: {
          const fragment = fragments.get(selection.name.value);
          if (!fragment) throw new Error(`${where}: no fragment ${selection.name.value}`);
          if (fragment.typeCondition.name.value !== type.name)
            throw new Error(`${where}: fragment ${selection.name.value} is not on ${type.name}`);
          this.collect(type, fragment.selectionSet, fragments, into, `fragment ${selection.name.value}`);
          break;
        }
        case Kind.INLINE_FRAGMENT: {
          const on = selection.typeCondition?.name.value;
          if (on !== undefined && on !== type.name) throw new Error(`${where}: an inline fragment on ${on} inside ${type.name}`);
          this.collect(type, selection.selectionSet, fragments, into, where);
          break;
        }
      }
    }
  }

  private field(type: GraphQLObjectType, node: FieldNode, fragments: Map<string, FragmentDefinitionNode>, where: string): Json {
    if (node.name.value === "__typename") return { type: "string", const: type.name };
    const field: GraphQLField<unknown, unknown> | undefined = type.getFields()[node.name.value];
    if (!field) throw new Error(`${where}: ${type.name} has no field ${node.name.value}`);
    const schema = this.typeSchema(
      field.type,
      node.selectionSet,
      fragments,
      field.extensions.jsonSchema,
      `${where}, ${type.name}.${field.name}`,
    );
    const named = getNamedType(field.type);
    // An enum's values say what they mean where the field is described.
    const meanings = isEnumType(named) ? named.getValues().filter((v) => v.description) : [];
    const meaning = meanings.map((v) => `\`${v.name}\`: ${v.description?.replace(/\.$/, "")}`).join("; ");
    const description = [field.description, meaning && `${meaning}.`].filter(Boolean).join(" ");
    return description ? { ...schema, description } : schema;
  }

  private typeSchema(
    type: GraphQLOutputType,
    selectionSet: SelectionSetNode | undefined,
    fragments: Map<string, FragmentDefinitionNode>,
    refinement: JsonSchemaRefinement | undefined,
    where: string,
  ): Json {
    const inner = isNonNullType(type) ? type.ofType : type;
    let schema: Json;
    if (isListType(inner)) {
      schema = { type: "array", items: this.typeSchema(inner.ofType, selectionSet, fragments, refinement, where) };
    } else if (isScalarType(inner)) {
      const own = inner.extensions.jsonSchema;
      const base = BUILT_IN[inner.name] ?? (own?.type ? own : undefined);
      if (!base) throw new Error(`${where}: scalar ${inner.name} has no jsonSchema extension with its JSON type`);
      schema = { ...base, ...own, ...refinement };
    } else if (isEnumType(inner)) {
      schema = { type: "string", enum: inner.getValues().map((v) => v.name), ...refinement };
    } else if (isObjectType(inner) && selectionSet) {
      schema = this.object(inner, selectionSet, fragments, where);
    } else {
      throw new Error(`${where}: ${inner.toString()} is abstract; select an object type`);
    }
    if (Array.isArray(schema.enum)) schema.enum = [...schema.enum];
    return isNonNullType(type) ? schema : orNull(schema);
  }
}

/** The schemas of every route's answer, from its operation document. */
export function deriveSchemas(
  schema: GraphQLSchema,
  operations: ReadonlyMap<string, DocumentNode>,
  routes: readonly Route[],
): DerivedSchemas {
  const deriver = new Deriver(schema);
  const bodies = new Map<string, BodySchema>();
  for (const route of routes) {
    const document = operations.get(route.operation);
    if (!document) throw new Error(`route ${route.path} names a missing operation ${route.operation}`);
    bodies.set(route.operation, deriver.body(route, document));
  }
  return { components: deriver.components, bodies };
}

/** `schema` with every reference into `components` replaced by what it names: a schema that stands alone. */
export function standalone(schema: Json, components: Record<string, Json>): Json {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    const { $ref, ...rest } = node as Json;
    const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, walk(v)]));
    if (typeof $ref !== "string") return own;
    const target = components[$ref.slice(REF_PREFIX.length)];
    if (!$ref.startsWith(REF_PREFIX) || !target) throw new Error(`unresolved reference ${$ref}`);
    return { ...(walk(target) as Json), ...own };
  };
  return walk(schema) as Json;
}
