/**
 * Rows in PostgreSQL's COPY text format, for `COPY … FROM STDIN`
 * (Transaction.copyIn, ./driver.ts): one line a row, its fields separated
 * by tabs, `\N` for null, and a backslash before each backslash, newline,
 * carriage return and tab that a text holds. The server then reads each field
 * as its column's type, as it reads a literal.
 *
 * Texts must be well-formed Unicode: a lone UTF-16 half would be sent as
 * U+FFFD. The importer's rules refuse such a text first (src/import/rules.ts).
 */

/** What a backslash stands before in a field. */
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
const SPECIAL = /[\\\n\r\t]/g;

/** One field: null and undefined are `\N`; a value of a kind no column takes here is an error in the caller. */
export function copyField(value: unknown): string {
  switch (typeof value) {
    case "string":
      return value.replace(SPECIAL, (c) => ESCAPES[c]!);
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`COPY text: ${value} is not a finite number`);
      return String(value);
    case "bigint":
      return String(value);
    case "boolean":
      return value ? "t" : "f";
    case "undefined":
      return "\\N";
    default:
      if (value === null) return "\\N";
      if (value instanceof Date) return value.toISOString();
      throw new TypeError(`COPY text: a field cannot be ${Array.isArray(value) ? "an array" : `a value of type ${typeof value}`}`);
  }
}

/** One row, ending with its newline. */
export function copyRow(values: readonly unknown[]): string {
  let line = "";
  for (let i = 0; i < values.length; i++) line += (i === 0 ? "" : "\t") + copyField(values[i]);
  return `${line}\n`;
}
