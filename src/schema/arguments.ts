/** Argument checks shared by the root fields, with messages naming the argument. */
import { GraphQLError } from "graphql";

/** Whether `value` is an integer in [min, max]. */
export const inRange = (value: unknown, min: number, max: number): value is number =>
  Number.isInteger(value) && (value as number) >= min && (value as number) <= max;

/** Throws a BAD_USER_INPUT error unless `value` is an integer in [min, max]. */
export function checkRange(name: string, value: number, min: number, max: number): number {
  if (!inRange(value, min, max)) {
    throw new GraphQLError(`${name} must be an integer from ${min} to ${max}`, {
      extensions: { code: "BAD_USER_INPUT", argument: name },
    });
  }
  return value;
}

/** An empty or blank string means "no filter" (docs/contract.md §3). */
export function present(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value.trim() === "" ? undefined : value;
}

/**
 * A `contains` needle with LIKE wildcards escaped: Prisma passes `%` and `_`
 * through to ILIKE, so `q=%` would otherwise match every row.
 */
export function literal(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}
