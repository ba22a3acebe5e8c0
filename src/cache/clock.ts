/**
 * Which answers depend on the clock. Everything the service serves changes
 * only when an import or an ingest commits, except environment answers
 * (docs/contract.md §5): their real-time window, "today so far" and the dates
 * a history covers move with the request's instant. An object type that
 * answers relative to the clock says so in its extensions (READS_CLOCK); a
 * document reads the clock when it selects a field of such a type.
 */
import { type DocumentNode, type GraphQLSchema, getNamedType, TypeInfo, visit, visitWithTypeInfo } from "graphql";

/** The extensions of an object type whose values depend on the request's instant. */
export const READS_CLOCK = { readsClock: true } as const;

/** Whether executing `document` selects a field whose type depends on the clock. */
export function readsClock(schema: GraphQLSchema, document: DocumentNode): boolean {
  const info = new TypeInfo(schema);
  let found = false;
  visit(
    document,
    visitWithTypeInfo(info, {
      Field() {
        const type = info.getType();
        if (type && getNamedType(type).extensions.readsClock === true) found = true;
      },
    }),
  );
  return found;
}
