/**
 * Response paths as graphql-js gives them, under graphql-jit too: one path
 * object per field execution, shared by every field below it.
 *
 * graphql-jit writes each resolver's `info.path` as a new object literal
 * (`{ key, prev: { … } }`) on every call. Pothos' Prisma plugin (through
 * @pothos/selection-mapper) finds the query plan its parent field recorded by
 * the identity of `info.path.prev`, so under graphql-jit a relation nested
 * under another relation (a school's courses, then each course's school)
 * found nothing and was loaded row by row. So in an execution marked as
 * compiled ({@link sharePaths}), each path is replaced, before the resolver
 * sees it, by the one object this execution has for the same keys, and the
 * identities hold again. Under graphql-js nothing is replaced: it costs one
 * lookup per resolver call.
 */
import { type GraphQLFieldResolver, type GraphQLResolveInfo, type GraphQLSchema, isObjectType } from "graphql";

type Path = GraphQLResolveInfo["path"];

/** A request's paths: the root ones by key, and each path's children by key. */
interface Paths {
  roots: Map<string | number, Path>;
  children: WeakMap<Path, Map<string | number, Path>>;
}

/** The paths of each compiled execution, by its context object. */
const executions = new WeakMap<object, Paths>();

/** Marks an execution with this context as compiled: its resolvers see shared paths. */
export function sharePaths(context: object): void {
  if (!executions.has(context)) executions.set(context, { roots: new Map(), children: new WeakMap() });
}

/** The one object this request has for `path`'s keys, made the first time it is asked for. */
function shared(paths: Paths, path: Path | undefined): Path | undefined {
  if (!path) return undefined;
  const prev = shared(paths, path.prev);
  let siblings = prev ? paths.children.get(prev) : paths.roots;
  if (!siblings) {
    siblings = new Map();
    paths.children.set(prev!, siblings);
  }
  let own = siblings.get(path.key);
  if (!own) {
    own = { key: path.key, prev, typename: path.typename };
    siblings.set(path.key, own);
  }
  return own;
}

/** `resolve`, called with `info.path` replaced by the request's shared object for it. */
function withSharedPath(resolve: GraphQLFieldResolver<unknown, unknown>): GraphQLFieldResolver<unknown, unknown> {
  return (parent, args, context, info) => {
    const paths = typeof context === "object" && context !== null ? executions.get(context) : undefined;
    // graphql-jit makes `info` for this one call, so it may be changed.
    if (paths) (info as { path: Path }).path = shared(paths, info.path)!;
    return resolve(parent, args, context, info);
  };
}

/** Makes every resolver of `schema` (in place) call through {@link withSharedPath}. */
export function sharedPathResolvers(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) if (field.resolve) field.resolve = withSharedPath(field.resolve);
  }
}
