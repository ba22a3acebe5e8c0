/**
 * SQL forms of fields: how a field's rows are read as part of one SQL
 * statement for a whole document (src/sql-plans/), declared beside the
 * field's resolver in its `extensions`. The resolver stays what answers
 * every document the statement cannot; test/graphql/sql-plans.test.ts holds
 * the two to the same bytes.
 *
 * A scalar field of a Prisma object reads the column of the same name, or
 * the one Pothos exposes (`t.exposeString("code")`), or the one its
 * {@link SQL_COLUMN} names. A relation (`t.relation`) follows the Prisma
 * schema's foreign key. Guards hold as for the read client: the planner reads
 * no guarded column, and adds each model's visibility rule where it reads it
 * (src/db/guards.ts).
 */

/** Gives the placeholder (`$n`, typed) of one statement parameter. */
export type Param = (value: unknown, type: "int" | "text") => string;

/** A Relay connection over a model's visible rows: a forward page from the start of the list. */
export interface SqlPage {
  kind: "page";
  /** The Prisma model of the rows. */
  model: string;
  /** The field of the model the connection's cursors are made of (Pothos' `cursor`). */
  cursor: string;
  /** The rows' order, by fields of the model: the resolver's `orderBy`. */
  orderBy: readonly { field: string; descending?: boolean }[];
  /** The page size without `first`, and the most `first` gives (the connection's own). */
  defaultSize: number;
  maxSize: number;
  /** The condition the field's arguments put on a row `t`; undefined when they put none. */
  where(args: Readonly<Record<string, unknown>>, param: Param): string | undefined;
}

/** One visible row of a model, or null. */
export interface SqlOne {
  kind: "one";
  model: string;
  /** The condition that finds the row `t`. */
  where(args: Readonly<Record<string, unknown>>, param: Param): string;
}

export type SqlForm = SqlPage | SqlOne;

/** The `extensions` key of a root field's {@link SqlForm}. */
export const SQL_FORM = "sqlForm";
/** The `extensions` key naming the model field a scalar field reads, where a resolver reads it. */
export const SQL_COLUMN = "sqlColumn";

/** The `extensions` of a field with a SQL form. */
export const sqlForm = (form: SqlForm) => ({ [SQL_FORM]: form });
/** The `extensions` of a scalar field whose resolver returns the model field `field` as it is. */
export const sqlColumn = (field: string) => ({ [SQL_COLUMN]: field });
