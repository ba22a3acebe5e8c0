/**
 * What a client may send as text and lists, on every surface, checked before
 * anything reaches the database (a NUL byte there is a server error, and a
 * 100,000-character search a slow one). REST parameters, MCP arguments (the
 * same parameters) and GraphQL arguments and variables all use these.
 */

/**
 * The largest 32-bit signed integer: PostgreSQL's `integer`, so the largest
 * id and page number; also the longest delay a Node.js timer takes.
 */
export const INT32_MAX = 2_147_483_647;

/** Longest text argument or parameter, in characters (code points). */
export const MAX_TEXT_LENGTH = 200;

/** Most items in one list argument (`nodes(ids:)` included). */
export const MAX_LIST_LENGTH = 100;

// C0 controls and DEL, C1 controls, and UTF-16 halves without their other half.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's purpose
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether `value` holds half of a UTF-16 pair without its other half: no Unicode text can. */
export const hasLoneSurrogate = (value: string): boolean => LONE_SURROGATE.test(value);

/** Why `value` is not acceptable text (to follow the parameter's name), or undefined. */
export function textProblem(value: string): string | undefined {
  if (CONTROL.test(value)) return "must not contain control characters";
  if (hasLoneSurrogate(value)) return "must be valid Unicode text";
  // Cheap bound first: a string of more UTF-16 units than twice the cap cannot fit.
  if (value.length > MAX_TEXT_LENGTH && (value.length > 2 * MAX_TEXT_LENGTH || [...value].length > MAX_TEXT_LENGTH)) {
    return `must be at most ${MAX_TEXT_LENGTH} characters`;
  }
  return undefined;
}

/** Why a list of `length` items is too long, or undefined. */
export function listProblem(length: number): string | undefined {
  return length > MAX_LIST_LENGTH ? `must have at most ${MAX_LIST_LENGTH} items` : undefined;
}

/** Highest cost of one request (src/schema/cost.ts prices it: about 1 s of work if every page comes back full); QUERY_MAX_COST's default. */
export const MAX_COST = 100_000;
