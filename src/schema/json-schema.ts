/**
 * What a GraphQL type cannot say about a value and JSON Schema can: a range,
 * a pattern, a format, a fixed text, or a closed set of strings. A field or
 * scalar carries it in its `jsonSchema` extension; the schemas of the REST
 * answers and the MCP tools, derived from the operation documents
 * (rest/schemas.ts), add it to what the field's type gives.
 */

/** The JSON Schema keywords a field or scalar may add to its type's schema. */
export interface JsonSchemaRefinement {
  /** The JSON type of a custom scalar's values (the built-in scalars have theirs). */
  type?: "string" | "number" | "integer" | "boolean";
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
  format?: string;
  const?: string;
  enum?: readonly string[];
}

declare module "graphql" {
  // biome-ignore lint/suspicious/noExplicitAny: the declaration merged with must repeat graphql's own default
  interface GraphQLFieldExtensions<_TSource, _TContext, _TArgs = any> {
    jsonSchema?: JsonSchemaRefinement;
  }
  interface GraphQLScalarTypeExtensions {
    jsonSchema?: JsonSchemaRefinement;
  }
}

/** Field or scalar options that carry `refinement`: spread them into the options. */
export function jsonSchema(refinement: JsonSchemaRefinement): { extensions: { jsonSchema: JsonSchemaRefinement } } {
  return { extensions: { jsonSchema: refinement } };
}

/** A count: zero or more. */
export const COUNT = jsonSchema({ minimum: 0 });

/** A database id, a year, a page number: one or more. */
export const POSITIVE = jsonSchema({ minimum: 1 });

/** A semantic version: `1.10.0`, with an optional pre-release and build. */
export const SEMVER = jsonSchema({ pattern: "^\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.-]+)?(?:\\+[0-9A-Za-z.-]+)?$" });
