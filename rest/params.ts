/**
 * Query-parameter rules of the v1 contract: each rule turns the raw string
 * (absent or empty means "not given", CONTRACT §3) into a typed value or a
 * 400 message that names the parameter and what is allowed (CONTRACT §2).
 */

import { MAX_TEXT_LENGTH, textProblem } from "../src/input-limits.js";

export type ParamResult<T> = { ok: true; value: T } | { ok: false; message: string };

export interface ParamRule<T> {
  /** Parses the raw value; `undefined` when the parameter was not given. */
  parse(name: string, raw: string | undefined): ParamResult<T>;
  /** The OpenAPI schema of the parameter. */
  schema: Record<string, unknown>;
  /** Human description, for the OpenAPI document. */
  description: string;
}

const INT_PATTERN = /^[+-]?\d+$/;

/** An optional free-text parameter: no control characters, at most MAX_TEXT_LENGTH characters. */
export function text(description: string): ParamRule<string | undefined> {
  return {
    description,
    schema: { type: "string", maxLength: MAX_TEXT_LENGTH },
    parse(name, raw) {
      const problem = raw === undefined ? undefined : textProblem(raw);
      return problem ? { ok: false, message: `${name} ${problem}` } : { ok: true, value: raw };
    },
  };
}

/** An integer in [min, max], with a default (or none: then optional). */
export function integer(description: string, options: { min: number; max: number; default: number }): ParamRule<number>;
export function integer(description: string, options: { min: number; max: number }): ParamRule<number | undefined>;
export function integer(description: string, options: { min: number; max: number; default?: number }): ParamRule<number | undefined> {
  const { min, max } = options;
  return {
    description,
    schema: { type: "integer", minimum: min, maximum: max, ...(options.default !== undefined ? { default: options.default } : {}) },
    parse(name, raw) {
      if (raw === undefined) return { ok: true, value: options.default };
      const value = INT_PATTERN.test(raw) ? Number(raw) : Number.NaN;
      if (!Number.isSafeInteger(value) || value < min || value > max) {
        return { ok: false, message: `${name} must be an integer from ${min} to ${max}` };
      }
      return { ok: true, value };
    },
  };
}

/** One of a fixed set of values, with an optional default. */
export function oneOf<const V extends string>(description: string, values: readonly V[], fallback: V): ParamRule<V>;
export function oneOf<const V extends string>(description: string, values: readonly V[]): ParamRule<V | undefined>;
export function oneOf<const V extends string>(description: string, values: readonly V[], fallback?: V): ParamRule<V | undefined> {
  return {
    description,
    schema: { type: "string", enum: [...values], ...(fallback !== undefined ? { default: fallback } : {}) },
    parse(name, raw) {
      if (raw === undefined) return { ok: true, value: fallback };
      if ((values as readonly string[]).includes(raw)) return { ok: true, value: raw as V };
      return { ok: false, message: `${name} must be one of ${values.join(", ")}` };
    },
  };
}

export type ParamRules = Record<string, ParamRule<unknown>>;
export type ParamValues<R extends ParamRules> = { [K in keyof R]: R[K] extends ParamRule<infer T> ? T : never };

/**
 * Reads every rule's parameter from the query string. Unknown parameters are
 * ignored; the first of repeated values counts. Returns the first problem.
 */
export function readParams<R extends ParamRules>(rules: R, query: URLSearchParams): ParamResult<ParamValues<R>> {
  const values: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(rules)) {
    const raw = query.get(name);
    const result = rule.parse(name, raw === null || raw === "" ? undefined : raw);
    if (!result.ok) return result;
    values[name] = result.value;
  }
  return { ok: true, value: values as ParamValues<R> };
}
