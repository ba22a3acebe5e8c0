/**
 * The breaking-change guard of the two published contracts: what changed
 * between the released GraphQL schema and OpenAPI document
 * (`graphql/schema.released.graphql`, `rest/openapi.released.json`, copied
 * by `npm run contracts:release`) and the current ones, whether each change
 * breaks a client, and whether CHANGELOG.md records it as it must.
 *
 * - GraphQL: `@graphql-inspector/core`'s diff and its criticality.
 * - OpenAPI: a small rule set over the parsed documents. Breaking: a removed
 *   path, operation, parameter, response field or enum value; a parameter
 *   newly required; a type changed (a response's) or narrowed (a
 *   parameter's: fewer types, a lower maximum, a higher minimum, a shorter
 *   maximum length); and, by the contract, any field added to or removed
 *   from a v1 envelope (the top level of an `/api/v1` answer).
 *
 * A breaking change passes only when the released contract deprecated what
 * it removes (GraphQL `@deprecated`, OpenAPI `deprecated: true`) and the
 * changelog's unreleased version lists it as breaking, with its reason.
 * Every other change must be listed there too.
 *
 * Given usage (docs/usage.md: `USAGE_DATABASE_URL`, or `USAGE_FILE` written
 * by `npm run usage -- --json`), a breaking change to a coordinate that a key
 * used within the last `USAGE_DAYS` (default 30) is refused too, naming its
 * last use and how many keys used it. Given `TRUSTED_DOCUMENTS`, so is a
 * change that makes one of those documents invalid.
 */
import { readFileSync } from "node:fs";
import { CriticalityLevel, diff } from "@graphql-inspector/core";
import {
  buildSchema,
  Kind,
  parse,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
  getNamedType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
} from "graphql";
import pg from "pg";
import { documentProblems } from "../../src/plugins/persisted-documents.js";
import { coordinatesUsed } from "../../src/usage/report.js";

/** One difference between a released contract and the current one. */
export interface ContractChange {
  /** `graphql` or `openapi`. */
  contract: "graphql" | "openapi";
  /** Where: `Query.universities`, `GET /api/v1/courses`, `GET /api/v1/courses 200 items[].id`. */
  path: string;
  message: string;
  breaking: boolean;
  /** A removal of something the released contract had deprecated. */
  deprecated: boolean;
}

/** The changes between two GraphQL schemas (SDL). */
export async function graphqlChanges(released: string, current: string): Promise<ContractChange[]> {
  const before = buildSchema(released);
  const changes = await diff(before, buildSchema(current));
  // What the released schema lets a client reach, walked once, and only if a type was removed.
  let reach: Set<string> | undefined;
  const reachableBefore = () => (reach ??= reachable(before));
  return changes.map((change) => ({
    contract: "graphql",
    path: change.path ?? change.type,
    message: change.message,
    breaking: change.criticality.level === CriticalityLevel.Breaking,
    deprecated: change.path !== undefined && isDeprecated(before, change.path, reachableBefore),
  }));
}

/**
 * Whether the schema marks `Type.field` (or `Type.field.argument`, or
 * `Enum.VALUE`) deprecated; a type, which GraphQL cannot mark, counts as
 * deprecated when only deprecated fields lead to it from the root types.
 */
function isDeprecated(schema: GraphQLSchema, path: string, reachableTypes: () => Set<string>): boolean {
  const [typeName, member, argument] = path.split(".");
  const type = typeName ? schema.getType(typeName) : undefined;
  if (type && !member) return !reachableTypes().has(type.name);
  if (!type || !member) return false;
  if ("getValues" in type) return type.getValues().find((v) => v.name === member)?.deprecationReason != null;
  if (!("getFields" in type)) return false;
  const field = type.getFields()[member];
  if (!field) return false;
  if (argument) return "args" in field && field.args.find((a) => a.name === argument)?.deprecationReason != null;
  return field.deprecationReason != null;
}

/** The names of the types a client can reach from the root types without a deprecated field or argument. */
function reachable(schema: GraphQLSchema): Set<string> {
  const seen = new Set<string>();
  const visit = (type: GraphQLNamedType | null | undefined) => {
    if (!type || seen.has(type.name)) return;
    seen.add(type.name);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (field.deprecationReason != null) continue;
        visit(getNamedType(field.type as GraphQLType));
        if ("args" in field) for (const arg of field.args) if (arg.deprecationReason == null) visit(getNamedType(arg.type as GraphQLType));
      }
    }
    if (isInterfaceType(type) || isUnionType(type)) for (const t of schema.getPossibleTypes(type)) visit(t);
  };
  for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) visit(root);
  return seen;
}

type Json = Record<string, unknown>;
type Schema = Json & { $ref?: string; type?: string | string[]; properties?: Record<string, Json>; items?: Json; enum?: unknown[] };

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** The changes between two OpenAPI documents (parsed JSON). */
export function openapiChanges(released: Json, current: Json): ContractChange[] {
  const changes: ContractChange[] = [];
  const add = (path: string, message: string, breaking: boolean, deprecated = false) =>
    changes.push({ contract: "openapi", path, message, breaking, deprecated });
  const resolve = (doc: Json, schema: Schema | undefined): Schema | undefined => {
    let s = schema;
    for (let hops = 0; s?.$ref && hops < 20; hops++) {
      s = s.$ref
        .replace(/^#\//, "")
        .split("/")
        .reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc) as Schema;
    }
    return s;
  };
  const types = (s: Schema) => new Set(s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type]);

  /**
   * Compares two answers' schemas at `field` (a dotted path, `[]` for a list's
   * items) of `answer` (`GET /api/v1/courses 200`); at the top of a v1 answer,
   * `envelope`.
   */
  const compareResponse = (
    answer: string,
    field: string,
    a: Schema | undefined,
    b: Schema | undefined,
    envelope: boolean,
    seen: Set<Schema>,
  ) => {
    const [old, now] = [resolve(released, a), resolve(current, b)];
    if (!old || !now || seen.has(old)) return;
    seen.add(old);
    const at = (name = field) => `${answer} ${name || "(answer)"}`;
    const [t1, t2] = [types(old), types(now)];
    if ([...t1].sort().join() !== [...t2].sort().join()) {
      add(at(), `type changed from ${[...t1].join("|") || "any"} to ${[...t2].join("|") || "any"}`, true);
    }
    for (const value of old.enum ?? []) {
      if (!(now.enum ?? []).includes(value)) add(at(), `enum value ${JSON.stringify(value)} removed`, true, old.deprecated === true);
    }
    for (const value of now.enum ?? [])
      if (!(old.enum ?? []).includes(value)) add(at(), `enum value ${JSON.stringify(value)} added`, false);
    const [p1, p2] = [old.properties ?? {}, now.properties ?? {}];
    const child = (name: string) => (field ? `${field}.${name}` : name);
    for (const name of Object.keys(p1)) {
      if (name in p2) {
        compareResponse(answer, child(name), p1[name] as Schema, p2[name] as Schema, false, seen);
        continue;
      }
      const deprecated = resolve(released, p1[name] as Schema)?.deprecated === true;
      if (envelope) add(at(child(name)), "envelope field removed (a v1 envelope's fields are fixed by the contract)", true, deprecated);
      else add(at(child(name)), "response field removed", true, deprecated);
    }
    for (const name of Object.keys(p2)) {
      if (name in p1) continue;
      if (envelope) add(at(child(name)), "envelope field added (a v1 envelope's fields are fixed by the contract)", true);
      else add(at(child(name)), "response field added", false);
    }
    if (old.items || now.items) compareResponse(answer, `${field}[]`, old.items as Schema, now.items as Schema, false, seen);
  };

  const paths1 = (released.paths ?? {}) as Record<string, Json>;
  const paths2 = (current.paths ?? {}) as Record<string, Json>;
  for (const [path, item1] of Object.entries(paths1)) {
    for (const method of METHODS) {
      const op1 = item1[method] as Json | undefined;
      if (!op1) continue;
      const name = `${method.toUpperCase()} ${path}`;
      const op2 = paths2[path]?.[method] as Json | undefined;
      if (!op2) {
        add(name, "operation removed", true, op1.deprecated === true);
        continue;
      }
      compareParameters(
        name,
        op1,
        op2,
        add,
        (s) => resolve(released, s),
        (s) => resolve(current, s),
        types,
      );
      const responses1 = (op1.responses ?? {}) as Record<string, Json>;
      const responses2 = (op2.responses ?? {}) as Record<string, Json>;
      for (const [status, r1] of Object.entries(responses1)) {
        const r2 = responses2[status];
        if (!r2) {
          add(`${name} ${status}`, "response removed", true);
          continue;
        }
        const body = (r: Json) => (r.content as Record<string, Json> | undefined)?.["application/json"]?.schema as Schema | undefined;
        const [b1, b2] = [body(resolve(released, r1 as Schema) ?? r1), body(resolve(current, r2 as Schema) ?? r2)];
        compareResponse(`${name} ${status}`, "", b1, b2, path.startsWith("/api/v1/"), new Set());
      }
    }
  }
  for (const [path, item2] of Object.entries(paths2)) {
    for (const method of METHODS)
      if (item2[method] && !paths1[path]?.[method]) add(`${method.toUpperCase()} ${path}`, "operation added", false);
  }
  return changes;
}

/** Parameters of an operation: removed, newly required, narrowed, or added. */
function compareParameters(
  name: string,
  op1: Json,
  op2: Json,
  add: (path: string, message: string, breaking: boolean, deprecated?: boolean) => void,
  resolve1: (s: Schema) => Schema | undefined,
  resolve2: (s: Schema) => Schema | undefined,
  types: (s: Schema) => Set<string>,
) {
  const key = (p: Json) => `${String(p.in)}:${String(p.name)}`;
  const list1 = ((op1.parameters ?? []) as Schema[]).map((p) => resolve1(p)!) as Json[];
  const list2 = ((op2.parameters ?? []) as Schema[]).map((p) => resolve2(p)!) as Json[];
  const byKey2 = new Map(list2.map((p) => [key(p), p]));
  for (const p1 of list1) {
    const at = `${name} ${String(p1.in)} parameter ${String(p1.name)}`;
    const p2 = byKey2.get(key(p1));
    if (!p2) {
      add(at, "parameter removed", true, p1.deprecated === true);
      continue;
    }
    if (p2.required === true && p1.required !== true) add(at, "parameter became required", true);
    const [s1, s2] = [resolve1(p1.schema as Schema) ?? {}, resolve2(p2.schema as Schema) ?? {}];
    const [t1, t2] = [types(s1), types(s2)];
    if (t1.size && ([...t1].some((t) => !t2.has(t)) || !t2.size))
      add(at, `type narrowed from ${[...t1].join("|")} to ${[...t2].join("|") || "any"}`, true);
    const narrower = (field: string, lower: boolean) => {
      const [a, b] = [s1[field] as number | undefined, s2[field] as number | undefined];
      if (b !== undefined && (a === undefined || (lower ? b < a : b > a))) add(at, `${field} narrowed from ${a ?? "none"} to ${b}`, true);
    };
    narrower("maximum", true);
    narrower("maxLength", true);
    narrower("maxItems", true);
    narrower("minimum", false);
    narrower("minLength", false);
    for (const value of (s1.enum ?? []) as unknown[]) {
      if (s2.enum !== undefined && !(s2.enum as unknown[]).includes(value)) add(at, `enum value ${JSON.stringify(value)} removed`, true);
    }
  }
  const keys1 = new Set(list1.map(key));
  for (const p2 of list2) {
    if (!keys1.has(key(p2))) add(`${name} ${String(p2.in)} parameter ${String(p2.name)}`, "parameter added", p2.required === true);
  }
}

/** The first section of the changelog: its version, and its lines. */
interface ChangelogSection {
  version: string;
  lines: string[];
}

/** The sections of CHANGELOG.md, newest first (`## 1.2.0` headings; any text after the version is ignored). */
function changelogSections(text: string): ChangelogSection[] {
  const sections: ChangelogSection[] = [];
  for (const line of text.split("\n")) {
    const heading = /^## (\d+\.\d+\.\d+)\b/.exec(line);
    if (heading) sections.push({ version: heading[1]!, lines: [] });
    else sections.at(-1)?.lines.push(line);
  }
  return sections;
}

const newer = (a: string, b: string) => {
  const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)];
  for (let i = 0; i < 3; i++) if (x[i]! !== y[i]!) return x[i]! > y[i]!;
  return false;
};

/**
 * What the guard refuses: each a line saying why. Empty when every change is
 * listed in the changelog's unreleased version (newer than `releasedVersion`),
 * each breaking one marked **Breaking** with its reason and only after a
 * deprecation.
 */
export function refusals(changes: ContractChange[], changelog: string, releasedVersion: string): string[] {
  if (changes.length === 0) return [];
  const [top] = changelogSections(changelog);
  if (!top || !newer(top.version, releasedVersion)) {
    return [
      `${changes.length} change(s) to the published contracts, and CHANGELOG.md has no version newer than the released ${releasedVersion} to list them under: ${changes.map((c) => `${c.path} (${c.message})`).join("; ")}`,
    ];
  }
  const out: string[] = [];
  for (const change of changes) {
    const entry = top.lines.find((line) => line.startsWith("- ") && line.includes(`\`${change.path}\``));
    const where = `${change.contract} ${change.path}: ${change.message}`;
    if (!entry) {
      out.push(`${where}: not listed under ## ${top.version} in CHANGELOG.md (a line with \`${change.path}\`)`);
      continue;
    }
    if (!change.breaking) continue;
    if (!change.deprecated) {
      out.push(`${where}: breaking, and the released contract did not deprecate it first (GraphQL @deprecated, OpenAPI deprecated: true)`);
    }
    const reason = entry
      .replace(`\`${change.path}\``, "")
      .replace(/^- \*\*Breaking\*\*:?/, "")
      .replace(/[\s:.,;-]+/g, " ")
      .trim();
    if (!entry.startsWith("- **Breaking**") || reason.split(" ").length < 3) {
      out.push(`${where}: breaking; its changelog line must begin with **Breaking** and say why`);
    }
  }
  return out;
}

/** The version a released GraphQL schema was published as (its first line, written by `npm run contracts:release`). */
export function releasedVersion(releasedSchema: string): string {
  const version = /^# Released as (\d+\.\d+\.\d+) by npm run contracts:release\./.exec(releasedSchema)?.[1];
  if (!version) throw new Error("graphql/schema.released.graphql does not begin with the line npm run contracts:release writes");
  return version;
}

/** A coordinate's use in a window, as `npm run usage -- --json` writes it under `coordinates`. */
export interface RecentUse {
  coordinate: string;
  requests: number;
  keys: number;
  /** ISO 8601. */
  lastUsed: string;
}

/** The usage coordinate (docs/usage.md) a change is about, if it names one. */
export function coordinateOf(change: ContractChange): string | undefined {
  if (change.contract === "graphql") {
    const [type, member, argument] = change.path.split(".");
    if (!type || !member) return undefined;
    return argument ? `${type}.${member}(${argument}:)` : `${type}.${member}`;
  }
  const parameter = /^GET (\/\S+) query parameter (\S+)$/.exec(change.path);
  if (parameter) return `${parameter[1]}?${parameter[2]}`;
  return /^GET (\/\S+)$/.exec(change.path)?.[1];
}

/** The breaking changes to a coordinate some key used since `since` (a UTC date): each a line naming it, its last use and its keys. */
export function usageRefusals(changes: ContractChange[], used: readonly RecentUse[], since: string): string[] {
  const recent = new Map(used.filter((u) => u.lastUsed >= since).map((u) => [u.coordinate, u]));
  return changes.flatMap((change) => {
    const coordinate = change.breaking ? coordinateOf(change) : undefined;
    const use = coordinate === undefined ? undefined : recent.get(coordinate);
    if (!use) return [];
    const keys = `${use.keys} key${use.keys === 1 ? "" : "s"}`;
    return [
      `${change.contract} ${change.path}: ${change.message}: ${coordinate} is still used: last ${use.lastUsed}, by ${keys} (${use.requests} requests since ${since}); see npm run usage -- --coordinate '${coordinate}'`,
    ];
  });
}

/** The documents of a trusted documents file that the `current` schema (SDL) would refuse: each a line naming its hash and operations. */
export function trustedDocumentRefusals(current: string, documents: ReadonlyMap<string, string>): string[] {
  const schema = buildSchema(current);
  return [...documents].flatMap(([hash, text]) => {
    const problems = documentProblems(schema, text);
    if (problems.length === 0) return [];
    let names = "";
    try {
      names = parse(text)
        .definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION)
        .map((d) => `${d.operation} ${d.name?.value ?? "(anonymous)"}`)
        .join(", ");
    } catch {
      names = "not a document";
    }
    return [`trusted document ${hash} (${names}): ${problems.join("; ")}`];
  });
}

/**
 * The use of each coordinate since `since`: from `USAGE_FILE` (written by
 * `npm run usage -- --json`), or read from `USAGE_DATABASE_URL`'s usage_day;
 * undefined when neither is given (the check is then as without usage).
 */
export async function recentUse(
  env: { USAGE_FILE?: string; USAGE_DATABASE_URL?: string },
  since: string,
): Promise<RecentUse[] | undefined> {
  if (env.USAGE_FILE) {
    const exported = JSON.parse(readFileSync(env.USAGE_FILE, "utf8")) as { since?: string; coordinates?: RecentUse[] };
    if (!Array.isArray(exported.coordinates)) throw new Error(`USAGE_FILE ${env.USAGE_FILE}: not what npm run usage -- --json writes`);
    if (exported.since === undefined || exported.since > since) {
      throw new Error(
        `USAGE_FILE ${env.USAGE_FILE} starts on ${exported.since}, after ${since}: export it with --since ${since} or earlier`,
      );
    }
    return exported.coordinates;
  }
  if (!env.USAGE_DATABASE_URL) return undefined;
  const pool = new pg.Pool({ connectionString: env.USAGE_DATABASE_URL, max: 1 });
  pool.on("error", () => undefined);
  try {
    return await coordinatesUsed({ query: async (sql, params) => (await pool.query(sql, params)).rows }, { since });
  } finally {
    await pool.end();
  }
}
