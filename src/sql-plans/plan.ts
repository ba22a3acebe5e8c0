/**
 * A document as one SQL statement (issue 65): the planned documents
 * (src/plugins/planned-documents.ts) whose every field has a SQL form
 * (src/schema/sql-forms.ts) are answered by one statement, in which
 * PostgreSQL reads every root field's rows and their relations and returns
 * them as one JSON text; the answer is then made from it in the document's
 * order, each value serialized by its GraphQL type, as graphql-js makes it.
 * Any other document, and any request of a planned one whose arguments ask
 * for what a form does not cover (a cursor, a backward page) or whose answer
 * would have an error (a null where the schema says non-null), is answered
 * by its compiled operation, as before.
 *
 * The guards are those of the read client (src/db/guards.ts): no column that
 * is guarded is read, and each model's visibility rule is part of every
 * condition on it, written from the same rules.
 */
import { getConnectionPageSize, validateConnectionArguments } from "@pothos/core";
import { formatPrismaCursor, parsePrismaCursor } from "@pothos/plugin-prisma";
import { decodeGlobalID, encodeGlobalID } from "@pothos/plugin-relay";
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  getNullableType,
  getOperationAST,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";
import { queryText, type ReadClient } from "../db/client.js";
import { guardedColumn, visibilitySql } from "../db/guards.js";
import { TABLES } from "../generated/columns.js";
import { INT32_MAX } from "../input-limits.js";
import { getDatamodel } from "../generated/pothos-types.js";
import { type Param, SQL_COLUMN, SQL_FORM, type SqlForm, type SqlNumbered, type SqlOrder, type SqlPage } from "../schema/sql-forms.js";

type Args = Record<string, unknown>;
type Row = unknown[];

/** Thrown while answering: the compiled operation answers this request instead. */
class Unplanned extends Error {}

/** A part of the statement written per request: its SQL for the request's variables, and its value from what that SQL gave. */
interface Part {
  sql(variables: Args, param: Param): string;
  value(part: unknown, variables: Args): unknown;
}

/** What one value of the answer is made from, at an index of its row's JSON array. */
type Out =
  | { kind: "leaf"; key: string; at: number; type: GraphQLLeafType; nonNull: boolean; items?: { nonNull: boolean } }
  | { kind: "typename"; key: string; name: string }
  | { kind: "id"; key: string; at: number; typename: string }
  | { kind: "object"; key: string; at: number; fields: Out[]; nonNull: boolean }
  | { kind: "page"; key: string; at: number; page: Part };

/**
 * The SQL expressions of one row (`json_build_array` of them): a column is
 * read once however often the document asks for it; a nested page's SQL is
 * written per request.
 */
class Columns {
  private readonly list: (string | Part)[] = [];
  at(expression: string | Part): number {
    const found = typeof expression === "string" ? this.list.indexOf(expression) : -1;
    if (found >= 0) return found;
    this.list.push(expression);
    return this.list.length - 1;
  }
  sql(variables: Args, param: Param): string {
    return `json_build_array(${this.list.map((c) => (typeof c === "string" ? c : c.sql(variables, param))).join(", ")})`;
  }
}

/** A document planned as one statement. */
export interface SqlPlan {
  /** The answer's `data` for `variables` (coerced), or undefined when this request must be answered otherwise. */
  run(prisma: ReadClient, variables: Args): Promise<{ data: Args } | undefined>;
}

/** A field of the Prisma datamodel, as Pothos keeps it. */
interface RelationField {
  name: string;
  type: string;
  kind: string;
  isList: boolean;
  isId?: boolean;
  relationFromFields?: readonly string[];
}

const models = getDatamodel().datamodel.models as unknown as Record<string, { fields: readonly RelationField[] }>;

/** A model's table and the column of one of its fields (undefined for a field it does not store). */
function column(model: string, field: string): string | undefined {
  const table = TABLES[model as keyof typeof TABLES];
  return (table?.columns as Record<string, string> | undefined)?.[field];
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Plans `document`'s operation as one statement; undefined when some field of it has no SQL form. */
export function planSql(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): SqlPlan | undefined {
  const operation = getOperationAST(document, operationName);
  const query = schema.getQueryType();
  if (operation?.operation !== "query" || !query) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  let aliases = 0;
  const alias = () => `t${++aliases}`;

  /** The fields of a selection set on `type`, by response key in graphql-js's order; undefined for a directive. */
  function collect(
    type: GraphQLObjectType,
    set: SelectionSetNode,
    into = new Map<string, FieldNode[]>(),
  ): Map<string, FieldNode[]> | undefined {
    for (const selection of set.selections) {
      if (selection.directives?.length) return undefined;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        into.set(key, [...(into.get(key) ?? []), selection]);
        continue;
      }
      const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value) : selection;
      if (!fragment) return undefined;
      // As graphql-js collects fields: a fragment on another type does not apply.
      const condition = fragment.typeCondition?.name.value;
      if (condition !== undefined && condition !== type.name && !type.getInterfaces().some((i) => i.name === condition)) continue;
      if (!collect(type, fragment.selectionSet, into)) return undefined;
    }
    return into;
  }

  /** The selection set of the fields of one response key, merged. */
  const merged = (nodes: FieldNode[]): SelectionSetNode => ({
    kind: Kind.SELECTION_SET,
    selections: nodes.flatMap((node) => node.selectionSet?.selections ?? []),
  });

  /**
   * The values of an object of `type` (a Prisma model's) read from the row
   * `row` of that model, as indexes into `columns`; undefined when a field
   * has no SQL form.
   */
  function object(type: GraphQLObjectType, set: SelectionSetNode, row: string, columns: Columns): Out[] | undefined {
    const model = type.extensions?.pothosPrismaModel as string | undefined;
    const fields = model ? collect(type, set) : undefined;
    if (!model || !fields) return undefined;
    const out: Out[] = [];
    for (const [key, nodes] of fields) {
      const name = nodes[0]!.name.value;
      if (name === "__typename") {
        out.push({ kind: "typename", key, name: type.name });
        continue;
      }
      const field = type.getFields()[name];
      const made = field && objectField(model, type, field, key, nodes, row, columns);
      if (!made) return undefined;
      out.push(made);
    }
    return out;
  }

  function objectField(
    model: string,
    type: GraphQLObjectType,
    field: GraphQLField<unknown, unknown>,
    key: string,
    nodes: FieldNode[],
    row: string,
    columns: Columns,
  ): Out | undefined {
    const named = getNamedType(field.type);
    const nonNull = isNonNullType(field.type);
    const extensions = field.extensions as Record<string, unknown>;
    const form = extensions[SQL_FORM] as SqlForm | undefined;
    if (form?.kind === "page" && isObjectType(named)) {
      const page = pageOf(field, named, nodes, form, row);
      return page && { kind: "page", key, at: columns.at(page), page };
    }
    if ((nodes[0]!.arguments?.length ?? 0) > 0) return undefined;
    // The global id of a Pothos node: its type's name and the row's id.
    if (field.name === "id" && type.getInterfaces().some((i) => i.name === "Node")) {
      const id = column(model, "id");
      return id ? { kind: "id", key, at: columns.at(`${row}.${quote(id)}`), typename: type.name } : undefined;
    }
    const nullable = getNullableType(field.type);
    // A column of one value, or of a list of values (a PostgreSQL array, as `[String!]!`).
    const item = isListType(nullable) ? nullable.ofType : undefined;
    if (isLeafType(named) && (item === undefined || isLeafType(getNullableType(item)))) {
      const name = (extensions[SQL_COLUMN] ?? extensions.pothosExposedField ?? field.name) as string;
      if (name.includes(".")) return item === undefined ? relatedColumn(model, name, key, named, nonNull, row, columns) : undefined;
      const read = readColumn(model, name, row);
      if (read === undefined) return undefined;
      const list = item === undefined ? {} : { items: { nonNull: isNonNullType(item) } };
      return { kind: "leaf", key, at: columns.at(read), type: named, nonNull, ...list };
    }
    const relation = extensions.pothosPrismaRelationField as RelationField | undefined;
    if (relation && isObjectType(named) && !isListType(getNullableType(field.type))) {
      const inner = alias();
      const joined = toOne(model, relation, row, inner);
      const innerColumns = new Columns();
      const fields = joined && object(named, merged(nodes), inner, innerColumns);
      if (!joined || !fields) return undefined;
      const sql: Part = {
        sql: (variables, param) => `(SELECT ${innerColumns.sql(variables, param)} FROM ${joined.from} WHERE ${joined.where})`,
        value: () => undefined,
      };
      return { kind: "object", key, at: columns.at(sql), fields, nonNull };
    }
    return undefined;
  }

  /** A column of the row a to-one relation leads to (`sqlColumn("university.nameZh")`), or null when that row is not visible. */
  function relatedColumn(
    model: string,
    path: string,
    key: string,
    type: GraphQLLeafType,
    nonNull: boolean,
    row: string,
    columns: Columns,
  ): Out | undefined {
    const [relationName, field, ...rest] = path.split(".");
    const relation = models[model]?.fields.find((f) => f.name === relationName && f.kind === "object");
    if (!relation || !field || rest.length > 0) return undefined;
    const inner = alias();
    const joined = toOne(model, relation, row, inner);
    const read = readColumn(relation.type, field, inner);
    if (!joined || read === undefined) return undefined;
    return { kind: "leaf", key, at: columns.at(`(SELECT ${read} FROM ${joined.from} WHERE ${joined.where})`), type, nonNull };
  }

  /** A root field with a SQL form. */
  function root(key: string, nodes: FieldNode[]): Part | undefined {
    const node = nodes[0]!;
    const field = query!.getFields()[node.name.value];
    const form = field?.extensions?.[SQL_FORM] as SqlForm | undefined;
    if (!field || !form) return undefined;
    if (form.kind === "node") return nodeOf(field, nodes);
    const named = getNamedType(field.type);
    if (!isObjectType(named)) return undefined;
    if (form.kind === "page") return pageOf(field, named, nodes, form, undefined);
    if (form.kind === "numbered") return numberedOf(field, named, nodes, form);
    const table = TABLES[form.model as keyof typeof TABLES]?.table;
    if (!table) return undefined;
    const row = alias();
    const columns = new Columns();
    const fields = object(named, merged(nodes), row, columns);
    if (!fields) return undefined;
    const visible = visibilitySql(form.model, row);
    const value: Out = { kind: "object", key, at: 0, fields, nonNull: isNonNullType(field.type) };
    return {
      sql: (variables, param) => {
        const where = [form.where(getArgumentValues(field, node, variables), { row, parent: undefined, param }), visible].filter(Boolean);
        return `(SELECT ${columns.sql(variables, param)} FROM ${quote(table)} ${row} WHERE ${where.join(" AND ")})`;
      },
      value: (part, variables) => made(value, [part], variables),
    };
  }

  /**
   * `node(id:)`: the row of the id's type, read as that type's selection
   * asks, for each node type whose model's id is an `Int` `id` and whose
   * selection has SQL forms; any other id is the resolver's.
   */
  function nodeOf(field: GraphQLField<unknown, unknown>, nodes: FieldNode[]): Part | undefined {
    const node = nodes[0]!;
    const named = getNamedType(field.type);
    if (!isInterfaceType(named)) return undefined;
    const types = new Map<string, { row: string; columns: Columns; out: Out; table: string; visible: string | undefined }>();
    for (const type of schema.getPossibleTypes(named)) {
      const model = type.extensions?.pothosPrismaModel as string | undefined;
      const id = model ? models[model]?.fields.find((f) => f.isId) : undefined;
      const table = model ? TABLES[model as keyof typeof TABLES]?.table : undefined;
      if (!model || id?.name !== "id" || id.type !== "Int" || !table || !column(model, "id")) continue;
      const row = alias();
      const columns = new Columns();
      const fields = object(type, merged(nodes), row, columns);
      if (!fields) continue;
      const out: Out = { kind: "object", key: "", at: 0, fields, nonNull: false };
      types.set(type.name, { row, columns, table, visible: visibilitySql(model, row), out });
    }
    /** The planned type and numeric id a request's global id names; Unplanned for any other. */
    const target = perRequest((variables) => {
      const { id } = getArgumentValues(field, node, variables) as { id: unknown };
      let decoded: { typename: string; id: string };
      try {
        decoded = decodeGlobalID(String(id));
      } catch {
        throw new Unplanned();
      }
      const type = types.get(decoded.typename);
      if (!type || !/^[1-9]\d{0,9}$/.test(decoded.id) || Number(decoded.id) > INT32_MAX) throw new Unplanned();
      return { type, id: Number(decoded.id) };
    });
    return {
      sql: (variables, param) => {
        const { type, id } = target(variables);
        const where = [`${type.row}."id" = ${param(id, "int")}`, ...(type.visible ? [type.visible] : [])];
        return `(SELECT ${type.columns.sql(variables, param)} FROM ${quote(type.table)} ${type.row} WHERE ${where.join(" AND ")})`;
      },
      value: (part, variables) => made(target(variables).type.out, [part], variables),
    };
  }

  /**
   * How a list form's page is read, on its rows `row` (their values in
   * `columns`): for a request's arguments and window, the SQL of one JSON
   * array of the page's rows (in order), the list's total (0 when not
   * `counted`) and whether the list is the one asked for (see pageRows).
   * Undefined when the form's order names a field the model does not store.
   */
  function listRows(form: SqlPage, row: string, columns: Columns, parent: string | undefined) {
    /** The order's ORDER BY on the rows; undefined when it names a field the model does not store. */
    const orderOf = (orderBy: readonly SqlOrder[]) => {
      const keys = orderBy.map((by) => ({
        stored: column(form.model, by.field),
        how: `${by.descending ? " DESC" : ""}${by.nullsLast ? " NULLS LAST" : ""}`,
      }));
      if (keys.some((key) => key.stored === undefined)) return undefined;
      return keys.map((key) => `${row}.${quote(key.stored!)}${key.how}`).join(", ");
    };
    // Each order's SQL written once per plan: a form's orders are constants (one list, or one per argument value).
    const written = new WeakMap<readonly SqlOrder[], ReturnType<typeof orderOf>>();
    const orderFor = (keys: readonly SqlOrder[]) => {
      if (!written.has(keys)) written.set(keys, orderOf(keys));
      return written.get(keys);
    };
    const { orderBy } = form;
    if (typeof orderBy !== "function" && !orderFor(orderBy)) return undefined;
    const visible = visibilitySql(form.model, row);
    return (given: Args, variables: Args, param: Param, window: { take: number; after: unknown; skip: number }, counted: boolean) => {
      // The order of the page the arguments ask for (the form's own, or the one they choose).
      const order = orderFor(typeof orderBy === "function" ? orderBy(given) : orderBy);
      if (!order) throw new Unplanned();
      // The page's size written into the statement, as PostGraphile writes it. As a parameter, PostgreSQL planned
      // the statement again on every request (no generic plan knows how many rows a LIMIT takes, so none cost
      // less): 0.08 ms of its CPU per request on 20 schools' first courses of 100,000, a third of the statement's.
      if (!Number.isSafeInteger(window.take) || window.take < 0) throw new Unplanned();
      const limit = String(window.take);
      const at = { row, parent, param };
      const list = form.list(given, at, limit, window.after, window.take, window.skip);
      if (!list) throw new Unplanned();
      const where = [...list.where, ...(visible ? [visible] : [])];
      const whereSql = where.length ? ` WHERE ${where.join(" AND ")}` : "";
      const onPage = [...where, ...(list.page ?? [])];
      const pageSql = onPage.length ? ` WHERE ${onPage.join(" AND ")}` : "";
      // An array of the page's rows in their order (an ARRAY of a subquery keeps it), as JSON: 134 µs of the
      // database's time for 20 schools' first courses, against 229 for json_agg over the ordered rows, which
      // sorts each list's rows again.
      const rows = `array_to_json(ARRAY(SELECT ${columns.sql(variables, param)} FROM ${list.from}${pageSql} ORDER BY ${order} LIMIT ${limit}))`;
      const holds = list.holds ?? "TRUE";
      const count = !counted
        ? "0"
        : (list.total ?? (form.total ? form.total(given, at) : `(SELECT count(*) FROM ${list.from}${whereSql})`));
      if (count === undefined) throw new Unplanned();
      const page = `json_build_array(${rows}, ${count}, ${holds})`;
      return list.source ? `(SELECT ${page} FROM ${list.source})` : page;
    };
  }

  /**
   * A page by number (`coursePage`): the object whose fields are the rows of
   * a list form's window, the list's total and arguments given back.
   */
  function numberedOf(
    field: GraphQLField<unknown, unknown>,
    type: GraphQLObjectType,
    nodes: FieldNode[],
    form: SqlNumbered,
  ): Part | undefined {
    const fields = collect(type, merged(nodes));
    if (!fields) return undefined;
    const node = nodes[0]!;
    const args = argumentsOf(field, node);
    const row = alias();
    const columns = new Columns();
    const rowsOf = listRows(form.list, row, columns, undefined);
    if (!rowsOf) return undefined;
    const outs: { key: string; make: (rows: Row[], total: number, variables: Args) => unknown }[] = [];
    let counted = false;
    for (const [key, partNodes] of fields) {
      const name = partNodes[0]!.name.value;
      const part = form.fields[name];
      const target = type.getFields()[name];
      if (partNodes.some((n) => n.arguments?.length)) return undefined;
      if (name === "__typename") outs.push({ key, make: () => type.name });
      else if (part === "total") {
        counted = true;
        outs.push({ key, make: (_rows, total) => total });
      } else if (part === "rows" && target && isObjectType(getNamedType(target.type))) {
        const out = object(getNamedType(target.type) as GraphQLObjectType, merged(partNodes), row, columns);
        if (!out) return undefined;
        outs.push({ key, make: (rows, _total, variables) => rows.map((r) => objectOf(out, r, variables)) });
      } else if (typeof part === "object") outs.push({ key, make: (_rows, _total, variables) => args(variables)[part.argument] });
      else return undefined;
    }
    /** The request's window; Unplanned for arguments the resolver refuses (its error). */
    const window = (variables: Args) => {
      const found = form.window(args(variables));
      if (!found) throw new Unplanned();
      return found;
    };
    return {
      sql: (variables, param) => rowsOf(args(variables), variables, param, { ...window(variables), after: undefined }, counted),
      value: (part, variables) => {
        const [rows, total] = pageRows(part);
        return Object.fromEntries(outs.map((m) => [m.key, m.make(rows, total, variables)]));
      },
    };
  }

  /**
   * A connection's first page (of a root field, or of the object whose row
   * is `parent`): its rows, and its total when asked for.
   */
  function pageOf(
    field: GraphQLField<unknown, unknown>,
    connection: GraphQLObjectType,
    nodes: FieldNode[],
    form: SqlPage,
    parent: string | undefined,
  ): Part | undefined {
    const fields = collect(connection, merged(nodes));
    const cursorColumn = column(form.model, form.cursor);
    if (!fields || !cursorColumn) return undefined;
    const node = nodes[0]!;
    const args = argumentsOf(field, node);
    const row = alias();
    const columns = new Columns();
    const cursorAt = columns.at(`${row}.${quote(cursorColumn)}`);
    const rowsOf = listRows(form, row, columns, parent);
    if (!rowsOf) return undefined;
    type Make = (rows: Row[], total: number, pageInfo: PageInfo, variables: Args) => unknown;
    const parts: { key: string; make: Make }[] = [];
    let total = false;
    let info = false;
    const connectionFields = connection.getFields();
    const edgeType = connectionFields.edges && getNamedType(connectionFields.edges.type);
    const nodeType = connectionFields.nodes && getNamedType(connectionFields.nodes.type);
    for (const [partKey, partNodes] of fields) {
      const name = partNodes[0]!.name.value;
      if (partNodes.some((n) => n.arguments?.length)) return undefined;
      if (name === "__typename") parts.push({ key: partKey, make: () => connection.name });
      else if (name === "totalCount") {
        total = true;
        parts.push({ key: partKey, make: (_rows, count) => count });
      } else if (name === "nodes" && nodeType && isObjectType(nodeType)) {
        const out = object(nodeType, merged(partNodes), row, columns);
        if (!out) return undefined;
        parts.push({ key: partKey, make: (rows, _count, _info, variables) => rows.map((r) => objectOf(out, r, variables)) });
      } else if (name === "pageInfo" && connectionFields.pageInfo) {
        const pageInfoType = getNamedType(connectionFields.pageInfo.type) as GraphQLObjectType;
        const asked = collect(pageInfoType, merged(partNodes));
        if (!asked) return undefined;
        info = true;
        const keys = [...asked].map(([infoKey, infoNodes]) => [infoKey, infoNodes[0]!.name.value] as const);
        if (keys.some(([, infoName]) => !(infoName in PAGE_INFO) && infoName !== "__typename")) return undefined;
        parts.push({
          key: partKey,
          make: (_rows, _count, pageInfo) =>
            Object.fromEntries(
              keys.map(([infoKey, infoName]) => [
                infoKey,
                infoName === "__typename" ? pageInfoType.name : pageInfo[infoName as keyof PageInfo],
              ]),
            ),
        });
      } else if (name === "edges" && edgeType && isObjectType(edgeType)) {
        const edge = collect(edgeType, merged(partNodes));
        if (!edge) return undefined;
        const makers: { key: string; make: (r: Row, variables: Args) => unknown }[] = [];
        for (const [edgeKey, edgeNodes] of edge) {
          const edgeName = edgeNodes[0]!.name.value;
          const target = getNamedType(edgeType.getFields()[edgeName]?.type ?? edgeType);
          if (edgeNodes.some((n) => n.arguments?.length)) return undefined;
          if (edgeName === "__typename") makers.push({ key: edgeKey, make: () => edgeType.name });
          else if (edgeName === "cursor") makers.push({ key: edgeKey, make: (r) => cursorOf(form, r[cursorAt]) });
          else if (edgeName === "node" && isObjectType(target)) {
            const out = object(target, merged(edgeNodes), row, columns);
            if (!out) return undefined;
            makers.push({ key: edgeKey, make: (r, variables) => objectOf(out, r, variables) });
          } else return undefined;
        }
        parts.push({
          key: partKey,
          make: (rows, _count, _info, variables) => rows.map((r) => Object.fromEntries(makers.map((m) => [m.key, m.make(r, variables)]))),
        });
      } else return undefined;
    }
    const pageInfoOf = (shown: Row[], hasNextPage: boolean, hasPreviousPage: boolean): PageInfo => {
      const first = shown[0];
      const last = shown[shown.length - 1];
      return {
        hasNextPage,
        hasPreviousPage,
        startCursor: first ? cursorOf(form, first[cursorAt]) : null,
        endCursor: last ? cursorOf(form, last[cursorAt]) : null,
      };
    };
    return {
      sql: (variables, param) => {
        const given = args(variables);
        // The row after the page, which tells whether another page follows, only when pageInfo is asked for (as
        // PostGraphile reads it): a school's first 3 courses are 3 rows, not 4.
        const take = limitOf(form, given) - (info ? 0 : 1);
        return rowsOf(given, variables, param, { take, after: afterOf(given), skip: 0 }, total);
      },
      value: (part, variables) => {
        const [rows, count] = pageRows(part);
        const full = info && rows.length === limitOf(form, args(variables));
        const shown = full ? rows.slice(0, -1) : rows;
        // Its cursors are written only when the document asks for the page's pageInfo.
        const pageInfo = info ? pageInfoOf(shown, full, args(variables).after != null) : NO_PAGE_INFO;
        const value: Args = {};
        for (const p of parts) value[p.key] = p.make(shown, count, pageInfo, variables);
        return value;
      },
    };
  }

  const top = collect(query, operation.selectionSet);
  if (!top || top.size === 0) return undefined;
  const roots: { key: string; part: Part }[] = [];
  for (const [key, nodes] of top) {
    if (nodes[0]!.name.value === "__typename") {
      roots.push({ key, part: { sql: () => "NULL", value: () => query.name } });
      continue;
    }
    const part = root(key, nodes);
    if (!part) return undefined;
    roots.push({ key, part });
  }
  /** The statement and its parameters for a request's variables; Unplanned when its arguments ask for what no form covers. */
  const statement = (variables: Args) => {
    const params: unknown[] = [];
    const param: Param = (value, type) => {
      params.push(value);
      return type ? `$${params.length}::${type}` : `$${params.length}`;
    };
    const sql = `SELECT json_build_array(${roots.map((r) => r.part.sql(variables, param)).join(", ")})::text AS body`;
    return { sql, params };
  };
  // A document without variables sends the same statement every time: written once.
  let constant: ReturnType<typeof statement> | undefined;
  const fixed = !operation.variableDefinitions?.length;
  return {
    async run(prisma, variables) {
      try {
        const written = constant ?? statement(variables);
        if (fixed) constant = written;
        const body = await queryText(prisma, written.sql, written.params);
        if (body === null) throw new Unplanned();
        const parts = JSON.parse(body) as unknown[];
        return { data: Object.fromEntries(roots.map((r, i) => [r.key, r.part.value(parts[i], variables)])) };
      } catch (error) {
        if (error instanceof Unplanned) return undefined;
        throw error;
      }
    },
  };
}

/** A list's rows and total from its part of the statement (listRows); Unplanned when the list is not the one asked for. */
function pageRows(part: unknown): [Row[], number] {
  const [rows, count, holds] = (part ?? []) as [Row[], number, boolean];
  if (holds !== true) throw new Unplanned();
  return [rows, Number(count)];
}

interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

/** What a page whose pageInfo the document does not ask for passes for it. */
const NO_PAGE_INFO: PageInfo = { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null };

const PAGE_INFO: Record<keyof PageInfo, true> = { hasNextPage: true, hasPreviousPage: true, startCursor: true, endCursor: true };

/** The rows a page reads (one more than it shows, to know whether another follows), as Pothos counts them; Unplanned for what a form does not page. */
function limitOf(form: SqlPage, args: Args): number {
  if (args.before != null || args.last != null) throw new Unplanned();
  try {
    validateConnectionArguments(args);
  } catch {
    throw new Unplanned();
  }
  return getConnectionPageSize({ args, defaultSize: form.defaultSize, maxSize: form.maxSize }).limit;
}

/** The value of the cursor `after` names, if any; Unplanned for one that is not a cursor (the resolver refuses it). */
function afterOf(args: Args): unknown {
  if (args.after == null) return undefined;
  try {
    return parsePrismaCursor(args.after);
  } catch {
    throw new Unplanned();
  }
}

const cursorOf = (form: SqlPage, value: unknown) => formatPrismaCursor({ [form.cursor]: value }, form.cursor);

/** An object's values from its row, in the document's order. */
function objectOf(fields: Out[], row: Row, variables: Args): Args {
  const value: Args = {};
  for (const field of fields) value[field.key] = made(field, row, variables);
  return value;
}

function made(field: Out, row: Row, variables: Args): unknown {
  switch (field.kind) {
    case "typename":
      return field.name;
    case "id":
      return encodeGlobalID(field.typename, String(row[field.at]));
    case "page":
      return field.page.value(row[field.at], variables);
    case "leaf": {
      const value = row[field.at];
      if (value === null || value === undefined) {
        if (field.nonNull) throw new Unplanned();
        return null;
      }
      if (!field.items) return field.type.serialize(value);
      const items = field.items;
      return (value as unknown[]).map((item) => {
        if (item !== null) return field.type.serialize(item);
        if (items.nonNull) throw new Unplanned();
        return null;
      });
    }
    case "object": {
      const value = row[field.at];
      if (value === null || value === undefined) {
        if (field.nonNull) throw new Unplanned();
        return null;
      }
      return objectOf(field.fields, value as Row, variables);
    }
  }
}

/**
 * `compute` of a request's variables, once per request: a page's arguments
 * are read when its SQL is written and again for each row whose page it is.
 * It keeps the last request's value: requests whose statements are in flight
 * together may compute theirs again, never use another's (a WeakMap by
 * request did the same at a cost to every request's garbage collection).
 */
function perRequest<T>(compute: (variables: Args) => T): (variables: Args) => T {
  let last: { variables: Args; value: T } | undefined;
  return (variables) => {
    if (last?.variables !== variables) last = { variables, value: compute(variables) };
    return last.value;
  };
}

/** Whether a value of the document (an argument's) names a variable anywhere in it. */
function hasVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(hasVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((f) => hasVariable(f.value));
  return false;
}

/** A field's argument values for a request's variables: computed once for the plan when the document writes them all out. */
function argumentsOf(field: GraphQLField<unknown, unknown>, node: FieldNode): (variables: Args) => Args {
  const each = perRequest((variables) => getArgumentValues(field, node, variables));
  if (node.arguments?.some((a) => hasVariable(a.value))) return each;
  let constant: Args;
  try {
    // Frozen: every request reads the same object.
    constant = Object.freeze(getArgumentValues(field, node, {}));
  } catch {
    // A value graphql-js refuses: refused per request, as the resolver's would be.
    return each;
  }
  return () => constant;
}

/** How a model's field is read from its row `row` (an enum as its text, as Prisma reads it); undefined for one it does not store or guards. */
function readColumn(model: string, field: string, row: string): string | undefined {
  const stored = column(model, field);
  if (!stored || guardedColumn(model, field)) return undefined;
  return isEnumColumn(model, field) ? `${row}.${quote(stored)}::text` : `${row}.${quote(stored)}`;
}

/**
 * The row `inner` a to-one relation of the row `row` of `model` leads to: its
 * table, and the condition that joins it (this model's foreign key to the
 * other's id) with the other model's visibility rule.
 */
function toOne(model: string, relation: RelationField, row: string, inner: string): { from: string; where: string } | undefined {
  const foreign = relation.relationFromFields;
  const id = models[relation.type]?.fields.find((f) => f.isId);
  if (relation.isList || foreign?.length !== 1 || !id) return undefined;
  const from = column(model, foreign[0]!);
  const to = column(relation.type, id.name);
  const table = TABLES[relation.type as keyof typeof TABLES]?.table;
  if (!from || !to || !table) return undefined;
  const visible = visibilitySql(relation.type, inner);
  return { from: `${quote(table)} ${inner}`, where: `${inner}.${quote(to)} = ${row}.${quote(from)}${visible ? ` AND ${visible}` : ""}` };
}

/** Whether a model's field is stored as a PostgreSQL enum (read as its text). */
function isEnumColumn(model: string, field: string): boolean {
  return (models[model]?.fields.find((f) => f.name === field) as { kind?: string } | undefined)?.kind === "enum";
}
