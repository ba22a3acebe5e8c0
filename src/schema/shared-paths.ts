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
 *
 * Only the resolvers that may read or record a plan are given shared paths:
 * every field that returns an object (or a list of them), and every field
 * the Prisma plugin marks as its own (a column it selects, a total count).
 * A plain leaf, such as a course's title resolved from its row, neither
 * reads a plan nor has fields below it to read one, and it is most of the
 * resolver calls of a list: it is left as it is.
 */
import {
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getNamedType,
  isLeafType,
  isObjectType,
} from "graphql";

type Path = GraphQLResolveInfo["path"];

/** Where a shared path keeps its children by key: on itself, out of sight of anything that reads a path. */
const CHILDREN = Symbol("children");
/** Where the root keeps the parent of the last path asked for: the fields of one row come one after the other. */
const LAST = Symbol("last");
type SharedPath = Path & { [CHILDREN]?: Map<string | number, SharedPath>; [LAST]?: SharedPath };

/** Whether two paths have the same keys all the way up. */
function sameKeys(a: Path | undefined, b: Path | undefined): boolean {
  for (; a && b; a = a.prev, b = b.prev) if (a.key !== b.key) return false;
  return a === b;
}

/** The paths of each compiled execution, by its context object: a root holding the top-level paths as its children. */
const executions = new WeakMap<object, SharedPath>();

/** Marks an execution with this context as compiled: its resolvers see shared paths. */
export function sharePaths(context: object): void {
  if (!executions.has(context)) executions.set(context, { key: "", prev: undefined, typename: undefined });
}

/** The one object this execution has for `path`'s keys, made the first time it is asked for. */
function shared(root: SharedPath, path: Path | undefined): SharedPath {
  if (!path) return root;
  const last = root[LAST];
  const prev = path.prev === undefined ? root : last && sameKeys(path.prev, last) ? last : shared(root, path.prev);
  if (prev !== root) root[LAST] = prev;
  let siblings = prev[CHILDREN];
  if (!siblings) {
    siblings = new Map();
    prev[CHILDREN] = siblings;
  }
  let own = siblings.get(path.key);
  if (!own) {
    own = { key: path.key, prev: prev === root ? undefined : prev, typename: path.typename };
    siblings.set(path.key, own);
  }
  return own;
}

/** `resolve`, called with `info.path` replaced by the request's shared object for it. */
function withSharedPath(resolve: GraphQLFieldResolver<unknown, unknown>): GraphQLFieldResolver<unknown, unknown> {
  return (parent, args, context, info) => {
    const root = typeof context === "object" && context !== null ? executions.get(context) : undefined;
    // graphql-jit makes `info` for this one call, so it may be changed.
    if (root) (info as { path: Path }).path = shared(root, info.path);
    return resolve(parent, args, context, info);
  };
}

/** Whether `field`'s resolver may read or record a Prisma query plan by its path. */
function mayUsePlans(field: GraphQLField<unknown, unknown>): boolean {
  if (!isLeafType(getNamedType(field.type))) return true;
  return Object.keys(field.extensions ?? {}).some((key) => key.startsWith("pothosPrisma"));
}

/** Makes every resolver of `schema` that may use a plan (in place) call through {@link withSharedPath}. */
export function sharedPathResolvers(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields()))
      if (field.resolve && mayUsePlans(field)) field.resolve = withSharedPath(field.resolve);
  }
}
