/**
 * Query-parameter rules of the v1 contract: each rule turns the raw string
 * (absent or empty means "not given", docs/contract.md §3) into a typed value or a
 * 400 message that names the parameter and what is allowed (docs/contract.md §2).
 */

import { INT32_MAX, MAX_TEXT_LENGTH, textProblem } from "../src/input-limits.js";

/**
 * A parameter as a caller gives it: a query-string or path value (a string),
 * or an MCP tool argument (a string or a number); absent when not given.
 */
export type RawValue = string | number | undefined;

/** A call's parameters by REST name: path and query together. */
export type RawArgs = Readonly<Record<string, RawValue>>;

export type ParamResult<T> = { ok: true; value: T } | { ok: false; message: string };

export interface ParamRule<T> {
  /** Parses the raw value; `undefined` when the parameter was not given. */
  parse(name: string, raw: RawValue): ParamResult<T>;
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
      if (raw === undefined) return { ok: true, value: undefined };
      const value = String(raw);
      const problem = textProblem(value);
      return problem ? { ok: false, message: `${name} ${problem}` } : { ok: true, value };
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
      const value = typeof raw === "number" ? raw : INT_PATTERN.test(raw) ? Number(raw) : Number.NaN;
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
      if (typeof raw === "string" && (values as readonly string[]).includes(raw)) return { ok: true, value: raw as V };
      return { ok: false, message: `${name} must be one of ${values.join(", ")}` };
    },
  };
}

/**
 * The schema of a path parameter: an integer id in 32 bits, or a text
 * (one that is not an id of anything is simply not found).
 */
export function pathParamSchema(kind: "integer" | "string"): Record<string, unknown> {
  return kind === "integer"
    ? { type: "integer", minimum: 0, maximum: INT32_MAX }
    : { type: "string", minLength: 1, maxLength: MAX_TEXT_LENGTH };
}

export type ParamRules = Record<string, ParamRule<unknown>>;
export type ParamValues<R extends ParamRules> = { [K in keyof R]: R[K] extends ParamRule<infer T> ? T : never };

/**
 * Reads every rule's parameter from a call's arguments; an empty string is
 * "not given". Unknown parameters are ignored. Returns the first problem.
 */
export function readParams<R extends ParamRules>(rules: R, args: RawArgs): ParamResult<ParamValues<R>> {
  const values: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(rules)) {
    const raw = args[name];
    const result = rule.parse(name, raw === "" ? undefined : raw);
    if (!result.ok) return result;
    values[name] = result.value;
  }
  return { ok: true, value: values as ParamValues<R> };
}
