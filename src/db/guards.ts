/**
 * The privacy guards of docs/contract.md §4, held by the database client itself.
 *
 * Every query the gateway's read client sends passes through `guardArgs`:
 * - each guarded model gets its visibility rule ANDed into the `where` of the
 *   query, of every nested relation selection, of every `_count` and of every
 *   relation filter, whoever wrote the query (a resolver, the Pothos prisma
 *   plugin's merged selections, a dataloader, the REST layer);
 * - guarded columns can be neither selected, filtered, ordered nor grouped
 *   by: any mention of one is refused (and the client omits them by default);
 * - the read client cannot write.
 */
import { TABLES } from "../generated/columns.js";
import { getDatamodel } from "../generated/pothos-types.js";

/** What a row of each guarded model must satisfy to be visible at all. */
const VISIBILITY_RULES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  Course: { isPublic: true },
  HubPack: { visibility: "public", safetyStatus: "passed" },
  HubPackVersion: { safetyStatus: "passed" },
};

/** Columns that may sit in the database but never leave it. */
export const GUARDED_COLUMNS = {
  course: { joinCode: true },
  hubPack: { payload: true },
  hubPackVersion: { payload: true },
} as const;

/** Whether a model's field is a guarded column (for SQL written from the schema: src/sql-plans/). */
export function guardedColumn(model: string, field: string): boolean {
  const key = model.charAt(0).toLowerCase() + model.slice(1);
  return (GUARDED_COLUMNS as Readonly<Record<string, Readonly<Record<string, true>>>>)[key]?.[field] === true;
}

/**
 * A model's visibility rule in SQL on its row `row` (undefined: every row is
 * visible), written from {@link VISIBILITY_RULES} for SQL the schema's
 * planner writes (src/sql-plans/): each rule is equalities on columns.
 */
export function visibilitySql(model: string, row: string): string | undefined {
  const rule = VISIBILITY_RULES[model];
  if (!rule) return undefined;
  const columns = TABLES[model as keyof typeof TABLES].columns as Readonly<Record<string, string>>;
  return Object.entries(rule)
    .map(([field, value]) => {
      const stored = columns[field];
      if (stored === undefined) throw new GuardViolation(`the visibility rule of ${model} names ${field}, which it does not store`);
      const literal =
        typeof value === "boolean"
          ? String(value).toUpperCase()
          : typeof value === "string"
            ? `'${value.replaceAll("'", "''")}'`
            : undefined;
      if (literal === undefined) throw new GuardViolation(`the visibility rule of ${model} on ${field} is not an equality`);
      return `${row}."${stored}" = ${literal}`;
    })
    .join(" AND ");
}

const guardedNames = new Set(Object.values(GUARDED_COLUMNS).flatMap((columns) => Object.keys(columns)));

const READ_OPERATIONS = new Set([
  "findUnique",
  "findUniqueOrThrow",
  "findFirst",
  "findFirstOrThrow",
  "findMany",
  "count",
  "aggregate",
  "groupBy",
]);

/** Thrown for any query that would bypass a guard. */
export class GuardViolation extends Error {
  override name = "GuardViolation";
}

interface RelationInfo {
  target: string;
  isList: boolean;
}

const relations: Map<string, Map<string, RelationInfo>> = (() => {
  const map = new Map<string, Map<string, RelationInfo>>();
  for (const [model, { fields }] of Object.entries(getDatamodel().datamodel.models)) {
    const fieldMap = new Map<string, RelationInfo>();
    for (const field of fields) {
      if (field.kind === "object") fieldMap.set(field.name, { target: field.type, isList: field.isList });
    }
    map.set(model, fieldMap);
  }
  return map;
})();

type Args = Record<string, unknown>;

const isObject = (value: unknown): value is Args =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);

function and(where: unknown, rule: Readonly<Args> | undefined): Args | undefined {
  if (!rule) return isObject(where) ? where : undefined;
  if (!isObject(where)) return { ...rule };
  const existing = where.AND === undefined ? [] : Array.isArray(where.AND) ? where.AND : [where.AND];
  return { ...where, AND: [...existing, rule] };
}

function refuseGuardedNames(value: unknown, path: string): void {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) refuseGuardedNames(item, `${path}[${i}]`);
    return;
  }
  if (typeof value === "string" && guardedNames.has(value) && /(^|\.)(distinct|by)(\[\d+\])?$/.test(path)) {
    throw new GuardViolation(`guarded column ${value} cannot be used (${path})`);
  }
  if (!isObject(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    if (guardedNames.has(key)) throw new GuardViolation(`guarded column ${key} cannot be used (${path}.${key})`);
    refuseGuardedNames(inner, `${path}.${key}`);
  }
}

/** Adds the visibility rules to a `where` filter, including relation filters inside it. */
function guardWhere(model: string, where: unknown): unknown {
  if (Array.isArray(where)) return where.map((w) => guardWhere(model, w));
  if (!isObject(where)) return where;
  const out: Args = {};
  for (const [key, value] of Object.entries(where)) {
    if (key === "AND" || key === "OR" || key === "NOT") {
      out[key] = guardWhere(model, value);
      continue;
    }
    const relation = relations.get(model)?.get(key);
    if (!relation || !isObject(value)) {
      out[key] = value;
      continue;
    }
    const rule = VISIBILITY_RULES[relation.target];
    const filter: Args = {};
    for (const [op, inner] of Object.entries(value)) {
      const guarded = guardWhere(relation.target, inner);
      if (!rule) filter[op] = guarded;
      else if (op === "some" || op === "none" || op === "is" || op === "isNot") filter[op] = and(guarded, rule);
      else if (op === "every") filter[op] = { OR: [{ NOT: rule }, guarded ?? {}] };
      else filter[op] = and(guardWhere(relation.target, { [op]: inner }), rule);
    }
    out[key] = filter;
  }
  return out;
}

/** Adds the visibility rules to nested `select`/`include` trees and `_count`. */
function guardSelection(model: string, selection: unknown): unknown {
  if (!isObject(selection)) return selection;
  const out: Args = {};
  for (const [key, value] of Object.entries(selection)) {
    if (key === "_count") {
      out[key] = guardCount(model, value);
      continue;
    }
    const relation = relations.get(model)?.get(key);
    if (!relation || value === false || value === undefined) {
      out[key] = value;
      continue;
    }
    const rule = VISIBILITY_RULES[relation.target];
    if (rule && !relation.isList) {
      throw new GuardViolation(`${model}.${key} leads to guarded ${relation.target} and cannot be selected`);
    }
    out[key] = guardNested(relation.target, value === true ? {} : value, rule);
  }
  return out;
}

function guardNested(model: string, value: unknown, rule: Readonly<Args> | undefined): Args {
  const args = isObject(value) ? { ...value } : {};
  if (rule || args.where !== undefined) args.where = and(guardWhere(model, args.where), rule);
  if (args.select !== undefined) args.select = guardSelection(model, args.select);
  if (args.include !== undefined) args.include = guardSelection(model, args.include);
  return args;
}

function guardCount(model: string, value: unknown): unknown {
  if (!isObject(value) || !isObject(value.select)) return value;
  const select: Args = {};
  for (const [key, inner] of Object.entries(value.select)) {
    const relation = relations.get(model)?.get(key);
    const rule = relation ? VISIBILITY_RULES[relation.target] : undefined;
    select[key] = relation && inner !== false ? guardNested(relation.target, inner === true ? {} : inner, rule) : inner;
  }
  return { ...value, select };
}

/**
 * Returns the arguments of one Prisma operation with every guard applied.
 * Throws `GuardViolation` for writes and for any use of a guarded column.
 */
export function guardArgs(model: string, operation: string, args: unknown): Args {
  if (!READ_OPERATIONS.has(operation)) {
    throw new GuardViolation(`the read client cannot run ${model}.${operation}`);
  }
  const input = isObject(args) ? args : {};
  refuseGuardedNames(input, model);
  const rule = VISIBILITY_RULES[model];
  const out: Args = { ...input };
  const where = and(guardWhere(model, input.where), rule);
  if (where !== undefined) out.where = where;
  if (input.select !== undefined) out.select = guardSelection(model, input.select);
  if (input.include !== undefined) out.include = guardSelection(model, input.include);
  return out;
}
