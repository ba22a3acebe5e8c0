/**
 * How the platform export's values are validated (docs/contract.md §6): one
 * rule per kind of column. `src/generated/columns.ts`, generated from
 * `prisma/schema.prisma` by `scripts/prisma-columns.mjs`, gives every column
 * the rule its type implies; `records.ts` adds the rules of its own (ranges,
 * patterns) where a column needs more.
 */
import * as z from "zod";
import { hasLoneSurrogate, INT32_MAX } from "../input-limits.js";

// PostgreSQL text cannot hold NUL; half of a UTF-16 pair without its other
// half would reach it as U+FFFD (through COPY, src/db/copy-text.ts). Both are
// refused here, so that the record is named.
const noNul = (v: string) => !v.includes("\0");
const NUL = { message: "must not contain a NUL character" };
const UNICODE = { message: "must be valid Unicode text (it holds half of a UTF-16 pair)" };
const wellFormed = (v: string) => !hasLoneSurrogate(v);

/** A non-empty string, trimmed. */
export const text = z.string().trim().min(1, { message: "expected a non-empty string" }).refine(noNul, NUL).refine(wellFormed, UNICODE);

/** A string that may be missing; missing, null and "" are stored as null. */
export const optionalText = z
  .string()
  .refine(noNul, NUL)
  .refine(wellFormed, UNICODE)
  .nullish()
  .transform((v) => (v === "" ? null : (v ?? null)));

/** A list of non-empty strings; missing or null is the empty list. */
export const texts = z
  .array(text)
  .nullish()
  .transform((v) => v ?? []);

/** A positive 32-bit integer id. */
export const id = z
  .number({ message: "expected an integer id" })
  .int({ message: "expected an integer id" })
  .positive({ message: "expected a positive integer id" })
  .max(INT32_MAX, { message: `expected an id of at most ${INT32_MAX}` });

/** A 32-bit integer. */
export const int = z
  .number({ message: "expected an integer" })
  .int({ message: "expected an integer" })
  .min(-INT32_MAX - 1, { message: `expected an integer of at least ${-INT32_MAX - 1}` })
  .max(INT32_MAX, { message: `expected an integer of at most ${INT32_MAX}` });

/** A count: a non-negative 32-bit integer; missing or null is 0. */
export const count = z
  .number()
  .int()
  .min(0, { message: "expected a non-negative integer" })
  .max(INT32_MAX, { message: `expected an integer of at most ${INT32_MAX}` })
  .nullish()
  .transform((v) => v ?? 0);

/** A list of 32-bit integers; missing or null is the empty list. */
export const ints = z
  .array(int)
  .nullish()
  .transform((v) => v ?? []);

/** A finite number (JSON has no other). */
export const float = z.number({ message: "expected a number" });

/** A yes or no, which the export writes as 0 or 1 (or as a JSON boolean). */
export const flag = z
  .union([z.literal(0), z.literal(1), z.boolean()], { message: "expected 0 or 1" })
  .transform((v) => v === 1 || v === true);

/** Whether `test` holds for some string of a JSON value: a value, or a member's name. */
function someString(value: unknown, test: (text: string) => boolean): boolean {
  if (typeof value === "string") return test(value);
  if (Array.isArray(value)) return value.some((item) => someString(item, test));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).some(([name, item]) => test(name) || someString(item, test));
  }
  return false;
}

/**
 * Any JSON value whose strings PostgreSQL's jsonb can hold (no NUL, no half
 * of a UTF-16 pair, which its JSON parser refuses without naming the
 * record); stored as jsonb, or null when missing.
 */
export const json = z
  .unknown()
  .refine((v) => !someString(v, (text) => text.includes("\0")), NUL)
  .refine((v) => !someString(v, hasLoneSurrogate), UNICODE)
  .transform((v) => v ?? null);

/** A calendar date, `YYYY-MM-DD`. */
export const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: "expected a date YYYY-MM-DD" })
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), {
    message: "expected a real calendar date",
  });

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(:(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

const NOT_AN_INSTANT = "expected an ISO 8601 instant with a time zone offset";

/** The instant `v` names, or undefined when it is not one (February 30, 24:00, no offset, …). */
function instantOf(v: string): Date | undefined {
  const match = INSTANT.exec(v);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, , s] = match;
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  const at = new Date(v);
  const real =
    day.getUTCFullYear() === Number(y) &&
    day.getUTCMonth() === Number(mo) - 1 &&
    day.getUTCDate() === Number(d) &&
    Number(h) < 24 &&
    Number(mi) < 60 &&
    Number(s ?? 0) < 60 &&
    !Number.isNaN(at.getTime());
  return real ? at : undefined;
}

/**
 * An ISO 8601 instant with a time zone offset, as a Date: the pattern, the
 * calendar and the conversion in one step. As a pattern check, a refinement
 * and a transform, each a pass of its own, it was the costliest rule of an
 * observation; with the readings' rule (`optional`, below), one pass over
 * the demo's 96,544 observations, as an import makes, takes 0.59-0.63 CPU-s
 * with their generation instead of 0.90-0.95.
 */
export const instant = z.string().transform((v, ctx) => {
  const at = instantOf(v);
  if (at) return at;
  ctx.issues.push({ code: "custom", input: v, message: INSTANT.test(v) ? "expected a real instant" : NOT_AN_INSTANT });
  return z.NEVER;
});

/** One of a database enum's values, refused with the list in words. */
export function oneOf<const E extends Record<string, string>>(values: E) {
  const list = Object.values(values);
  const words = list.length > 1 ? `${list.slice(0, -1).join(", ")} or ${list.at(-1)}` : list.join("");
  return z.enum(values, { message: `expected ${words}` });
}

/**
 * A rule for a column that may be missing: missing is stored as null. A
 * default, not a transform of `undefined`: what zod's transforms allocate
 * outlives V8's young-generation collections (which then copy it), and an
 * observation has six such columns. Checking the demo's observations left
 * 37 MB to survive those collections instead of 75-78.
 */
export const optional = <T extends z.ZodType>(rule: T) => rule.nullable().default(null);

/** A rule for a column with a default: missing or null is stored as the default. */
export const orDefault = <T extends z.ZodType>(rule: T, value: z.output<T>) => rule.nullish().transform((v) => v ?? value);
