/**
 * SQL forms of fields: how a field's rows are read as part of one SQL
 * statement for a whole document (src/sql-plans/), declared beside the
 * field's resolver in its `extensions`. The resolver stays what answers
 * every document the statement cannot; test/graphql/sql-plans.test.ts holds
 * the two to the same bytes.
 *
 * A scalar field of a Prisma object reads the column of the same name, or
 * the one Pothos exposes (`t.exposeString("code")`), or the one its
 * {@link SQL_COLUMN} names (also through a to-one relation). A relation (`t.relation`) follows the Prisma
 * schema's foreign key. Guards hold as for the read client: the planner reads
 * no guarded column, and adds each model's visibility rule where it reads the
 * model's rows (src/db/guards.ts).
 */

/**
 * Gives the placeholder (`$n`, typed) of one statement parameter; without a
 * type, a bare `$n` whose type the SQL around it gives (a cast after it).
 */
export type Param = (value: unknown, type?: "int" | "text") => string;

/**
 * A statement written with Prisma's `sql` tag, as SQL text within a form's:
 * each of its values becomes one of the whole statement's parameters. Its
 * SQL must give each value its type (`${value}::int`), as Prisma's own
 * parameters are sent untyped too.
 */
export function embedded(sql: { readonly strings: readonly string[]; readonly values: readonly unknown[] }, param: Param): string {
  return sql.strings.reduce((text, part, i) => (i === 0 ? part : `${text}${param(sql.values[i - 1])}${part}`), "");
}

/** Where a form's SQL stands: the alias of its own rows, and of the row of the object whose field it is. */
export interface SqlRows {
  /** The alias of the form's rows of its model. */
  row: string;
  /** The alias of the parent object's row; undefined for a root field. */
  parent: string | undefined;
  param: Param;
}

/** A list's rows: what they are read from and the conditions on them (the rows' alias is `SqlRows.row`). */
export interface SqlList {
  from: string;
  /** The conditions of the whole list (its total counts them). */
  where: string[];
  /** The conditions of the page alone: after the cursor. */
  page?: string[];
  /**
   * A condition (SQL, true or false) that the list is the one the arguments
   * ask for; when false, the resolver answers the request (a school name two
   * schools share, whose places are two lists).
   */
  holds?: string;
  /**
   * A FROM item read once for the page (`(…) s`), which `from`, `where`,
   * `page`, `holds` and `total` may refer to: a search that finds the page's
   * rows and counts them.
   */
  source?: string;
  /** The list's total, when the list gives it (from `source`); otherwise the form's `total`. */
  total?: string;
}

/** One key of a list's order: a field of the model, and its direction; `nullsLast` as Prisma's `nulls: "last"`. */
export interface SqlOrder {
  field: string;
  descending?: boolean;
  nullsLast?: boolean;
}

/**
 * The {@link SqlOrder} of a Prisma `orderBy` list (`[{ semester: "desc" }]`,
 * `[{ latestPublishedAt: { sort: "desc", nulls: "last" } }]`), so that a
 * form's order is the resolver's own.
 */
export function sqlOrder(orderBy: readonly object[]): SqlOrder[] {
  return orderBy.map((by) => {
    const [field, how] = Object.entries(by)[0] as [string, "asc" | "desc" | { sort: "asc" | "desc"; nulls?: "first" | "last" }];
    const sort = typeof how === "string" ? how : how.sort;
    const nullsLast = typeof how === "object" && how.nulls === "last";
    return { field, ...(sort === "desc" ? { descending: true } : {}), ...(nullsLast ? { nullsLast } : {}) };
  });
}

/**
 * A Relay connection over a model's visible rows: a forward page, from the
 * start of the list or after a cursor (a page from the end is the
 * resolver's).
 */
export interface SqlPage {
  kind: "page";
  /** The Prisma model of the rows. */
  model: string;
  /** The field of the model the connection's cursors are made of (Pothos' `cursor`). */
  cursor: string;
  /** The rows' order, by fields of the model: the resolver's `orderBy` (for the arguments, when they choose it). */
  orderBy: readonly SqlOrder[] | ((args: Readonly<Record<string, unknown>>) => readonly SqlOrder[]);
  /** The page size without `first`, and the most `first` gives (the connection's own). */
  defaultSize: number;
  maxSize: number;
  /**
   * The list the arguments ask for, of which the page is the first `limit`
   * rows (`take` rows, as SQL: a literal, which PostgreSQL plans for) after the row of the cursor `after`
   * (its cursor field's value, when the arguments give one), or after the
   * first `skip` rows (a page by number, {@link SqlNumbered}; 0 otherwise);
   * undefined when its resolver must answer these arguments (the planner
   * then leaves the request to the compiled operation).
   */
  list(
    args: Readonly<Record<string, unknown>>,
    at: SqlRows,
    limit: string,
    after: unknown,
    take: number,
    skip: number,
  ): SqlList | undefined;
  /**
   * The SQL of the list's total (`totalCount`); without it, the rows of
   * `list` are counted. Undefined when its resolver must answer.
   */
  total?(args: Readonly<Record<string, unknown>>, at: SqlRows): string | undefined;
}

/** One visible row of a model, or null. */
export interface SqlOne {
  kind: "one";
  model: string;
  /** The condition that finds the row `at.row`. */
  where(args: Readonly<Record<string, unknown>>, at: SqlRows): string;
}

/**
 * Relay's `node(id:)`: the row of the global id's type whose id it names,
 * for the node types whose model's id is an `Int` named `id` (others are the
 * resolver's).
 */
export interface SqlNode {
  kind: "node";
}

/**
 * A page by number (`coursePage`): an object whose fields are the rows of a
 * window of a list form, the list's total, and arguments given back as they
 * are.
 */
export interface SqlNumbered {
  kind: "numbered";
  /** The form of the list it pages (its `list` is called with the window's `skip`). */
  list: SqlPage;
  /** The rows to skip and to take for these arguments; undefined for arguments the resolver refuses (its error is the answer). */
  window(args: Readonly<Record<string, unknown>>): { skip: number; take: number } | undefined;
  /** What each field of the page's object is: the window's rows, the list's total, or an argument given back. */
  fields: Readonly<Record<string, "rows" | "total" | { argument: string }>>;
}

export type SqlForm = SqlPage | SqlOne | SqlNode | SqlNumbered;

/** The `extensions` key of a field's {@link SqlForm}. */
export const SQL_FORM = "sqlForm";
/** The `extensions` key naming the model field a scalar field reads, where a resolver reads it. */
export const SQL_COLUMN = "sqlColumn";

/** The `extensions` of a field with a SQL form. */
export const sqlForm = (form: SqlForm) => ({ [SQL_FORM]: form });
/**
 * The `extensions` of a scalar field whose resolver returns the model field
 * `field` as it is, or a field of the row a to-one relation leads to
 * (`"university.nameZh"`).
 */
export const sqlColumn = (field: string) => ({ [SQL_COLUMN]: field });
