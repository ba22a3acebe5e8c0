/**
 * Every deprecated coordinate of the service (docs/usage.md), with why:
 * the GraphQL schema's deprecated fields, arguments and enum values, and the
 * deprecated v1 routes with their MCP tools.
 */
import { type GraphQLSchema, isEnumType, isInterfaceType, isObjectType } from "graphql";
import { deprecationNote, ROUTES, type Route } from "../../rest/routes.js";
import { schema } from "../schema/index.js";
import { mcpTool } from "./coordinates.js";

/** Each deprecated coordinate of `schema` and `routes`, with its reason, in name order. */
function deprecatedCoordinates(schema: GraphQLSchema, routes: readonly Route[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith("__")) continue;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (field.deprecationReason != null) found.set(`${type.name}.${field.name}`, field.deprecationReason);
        for (const arg of field.args) {
          if (arg.deprecationReason != null) found.set(`${type.name}.${field.name}(${arg.name}:)`, arg.deprecationReason);
        }
      }
    }
    if (isEnumType(type)) {
      for (const value of type.getValues())
        if (value.deprecationReason != null) found.set(`${type.name}.${value.name}`, value.deprecationReason);
    }
  }
  for (const route of routes) {
    const note = deprecationNote(route);
    if (note === undefined) continue;
    found.set(route.path, note);
    found.set(mcpTool(route.tool), note);
  }
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : 1)));
}

let service: Map<string, string> | undefined;

/** This service's deprecated coordinates: its schema's and its v1 routes'. */
export function serviceDeprecations(): Map<string, string> {
  service ??= deprecatedCoordinates(schema, ROUTES);
  return service;
}
