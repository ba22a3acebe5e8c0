/**
 * `/graphql` compiled by graphql-jit (src/plugins/compiled-execution.ts) gives
 * the answers graphql-js gives, byte for byte, errors included: every
 * committed operation with generated variables (valid and not), and
 * generated documents over the whole schema (aliases, fragments, `@include`,
 * arguments in and out of range, unknown fields), sent to two gateways over
 * the same database, one compiling and one not.
 */
import fc from "fast-check";
import {
  getNamedType,
  type GraphQLArgument,
  type GraphQLField,
  GraphQLEnumType,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLInterfaceType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLUnionType,
  isListType,
  print,
  typeFromAST,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOperations } from "../../rest/operations.js";
import { createReadClient, type ReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { registry } from "../../src/observe/metrics.js";
import { schema } from "../../src/schema/index.js";
import { createGateway, type Gateway } from "../../src/server.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase, importObject } from "../support/databases.js";

let db: Database;
let prisma: ReadClient;
let compiled: Gateway;
let interpreted: Gateway;
/** How many answers went through the compiled executor (the rest fell back). */
let seen = 0;

beforeAll(async () => {
  db = await freshDatabase();
  await importObject(db, canaryExport());
  prisma = createReadClient(db);
  const now = () => new Date("2026-11-20T04:00:00Z");
  compiled = createGateway({ db, prisma, auth: false, now, compile: true });
  interpreted = createGateway({ db, prisma, auth: false, now, compile: false });
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.close();
});

/** The status and body both gateways give a document with its variables; they must be the same bytes. */
async function same(query: string, variables?: unknown, operationName?: string): Promise<{ status: number; text: string }> {
  const ask = async (gateway: Gateway) => {
    const response = await gateway.fetch("http://gateway.test/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
      body: JSON.stringify({ query, variables, operationName }),
    });
    return { status: response.status, text: await response.text() };
  };
  const [fast, slow] = [await ask(compiled), await ask(interpreted)];
  expect(fast, `${query}\n${JSON.stringify(variables)}`).toEqual(slow);
  seen++;
  return fast;
}

/** Executions on /graphql by one executor, as /metrics counts them. */
async function executions(executor: "compiled" | "graphql-js"): Promise<number> {
  const metric = await registry.getSingleMetric("gateway_graphql_executions_total")!.get();
  return metric.values.find((v) => v.labels.executor === executor)?.value ?? 0;
}

/** A literal or variable value of an input type: mostly valid, sometimes out of range, of the wrong type, or null. */
function inputValue(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  const required = type instanceof GraphQLNonNull;
  const inner = required ? type.ofType : type;
  const wrong = fc.constantFrom<unknown>(null, "x", 3.5, true, -1, 2 ** 31, "", "\u0000");
  let good: fc.Arbitrary<unknown>;
  if (isListType(inner)) good = fc.array(inputValue(inner.ofType as GraphQLInputType, depth + 1), { maxLength: 3 });
  else if (inner instanceof GraphQLEnumType) good = fc.constantFrom(...inner.getValues().map((v) => v.value));
  else if (inner instanceof GraphQLInputObjectType) {
    const fields = Object.values(inner.getFields());
    good =
      depth > 1
        ? fc.constant({})
        : fc.record(Object.fromEntries(fields.map((f) => [f.name, inputValue(f.type, depth + 1)])), { requiredKeys: [] });
  } else if (inner instanceof GraphQLScalarType && inner.name === "Int")
    good = fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: -3, max: 3 }));
  else if (inner instanceof GraphQLScalarType && inner.name === "Boolean") good = fc.boolean();
  else good = fc.constantFrom("NTU", "ntu", "資料", "a", "%", "113-1", "pk_public", "1", "Q291cnNlOjE=", "", "2026-11-19");
  return fc.oneof(
    { weight: 8, arbitrary: good },
    { weight: 1, arbitrary: wrong },
    { weight: required ? 0 : 1, arbitrary: fc.constant(undefined) },
  );
}

/** A GraphQL literal of a value (enums bare, objects and lists written out). */
function literal(value: unknown, type: GraphQLInputType): string {
  const inner = getNamedType(type);
  if (value === null) return "null";
  if (Array.isArray(value)) return `[${value.map((v) => literal(v, isListType(type) ? type.ofType : type)).join(", ")}]`;
  if (inner instanceof GraphQLEnumType && typeof value === "string" && /^[A-Za-z_]\w*$/.test(value)) return value;
  if (typeof value === "object") {
    const fields = inner instanceof GraphQLInputObjectType ? inner.getFields() : {};
    return `{${Object.entries(value as object)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}: ${literal(v, fields[k]?.type ?? type)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(value);
}

/** Arguments of a field, some as literals and some as variables (declared in `vars`). */
function argumentsOf(args: readonly GraphQLArgument[], vars: Map<string, { type: string; value: unknown }>): fc.Arbitrary<string> {
  if (!args.length) return fc.constant("");
  return fc.tuple(...args.map((a) => fc.tuple(inputValue(a.type), fc.boolean()))).map((values) => {
    const written = args.flatMap((a, i) => {
      const [value, asVariable] = values[i]!;
      if (value === undefined) return [];
      if (asVariable) {
        const name = `v${vars.size}`;
        vars.set(name, { type: String(a.type), value });
        return [`${a.name}: $${name}`];
      }
      return [`${a.name}: ${literal(value, a.type)}`];
    });
    return written.length ? `(${written.join(", ")})` : "";
  });
}

/** A selection set on an output type, `depth` levels deep at most. */
function selectionOf(type: unknown, depth: number, vars: Map<string, { type: string; value: unknown }>): fc.Arbitrary<string> {
  const named = getNamedType(type as GraphQLObjectType);
  if (named instanceof GraphQLUnionType || named instanceof GraphQLInterfaceType) {
    const possible = schema.getPossibleTypes(named);
    return fc
      .constantFrom(...possible)
      .chain((t) => selectionOf(t, depth, vars).map((inner) => `{ __typename ... on ${t.name} ${inner} }`));
  }
  if (!(named instanceof GraphQLObjectType)) return fc.constant("");
  const fields = Object.values(named.getFields()).filter((f) => depth > 0 || !(getNamedType(f.type) instanceof GraphQLObjectType));
  const leaves = fields.filter((f) => !(getNamedType(f.type) instanceof GraphQLObjectType));
  const one = (f: GraphQLField<unknown, unknown>) =>
    fc
      .tuple(
        // An alias of its own: two fields under one name would only test validation.
        fc.constantFrom("", `${f.name}A: `),
        argumentsOf(f.args, vars),
        selectionOf(f.type, depth - 1, vars),
        fc.constantFrom("", "", "", " @include(if: true)", " @skip(if: true)"),
      )
      .map(([alias, args, inner, directive]) => `${alias}${f.name}${args}${directive} ${inner}`);
  const pool = fields.length ? fields : leaves;
  const picked = fc.subarray(pool, { minLength: 1, maxLength: Math.min(4, pool.length) }).chain((list) => fc.tuple(...list.map(one)));
  return fc.tuple(picked, fc.constantFrom("", "", "", " __typename")).map(([parts, extra]) => `{ ${parts.join(" ")}${extra} }`);
}

/** A whole document over the Query type, with its variables. */
const documents = fc.integer({ min: 1, max: 3 }).chain((depth) => {
  const vars = new Map<string, { type: string; value: unknown }>();
  return fc.tuple(selectionOf(schema.getQueryType(), depth, vars), fc.nat(15)).map(([selection, dice]) => {
    const declared = [...vars].map(([name, v]) => `$${name}: ${v.type}`);
    const variables = Object.fromEntries([...vars].filter(([, v]) => v.value !== undefined).map(([name, v]) => [name, v.value]));
    vars.clear();
    // Now and then a field the schema does not have.
    const body = dice === 0 ? selection.replace(/\}$/, " nope }") : selection;
    return { query: `query Generated${declared.length ? `(${declared.join(", ")})` : ""} ${body}`, variables };
  });
});

describe("compiled execution against graphql-js, byte for byte", () => {
  it("every committed operation, with generated variables", async () => {
    const operations = loadOperations(schema);
    for (const [name, document] of operations) {
      const definition = document.definitions.find((d) => d.kind === "OperationDefinition");
      const declared = definition && "variableDefinitions" in definition ? (definition.variableDefinitions ?? []) : [];
      const text = print(document);
      await same(text, {}, name);
      const variables = fc.record(
        Object.fromEntries(
          declared.map((d) => [d.variable.name.value, inputValue(typeFromAST(schema, d.type as never) as GraphQLInputType)]),
        ),
        { requiredKeys: [] },
      );
      await fc.assert(
        fc.asyncProperty(variables, async (values) => {
          await same(text, values, name);
        }),
        { numRuns: 15, seed: 43 },
      );
    }
  });

  it("generated documents, valid and not, with variables", async () => {
    const compiledBefore = await executions("compiled");
    const statuses = new Set<number>();
    let errors = 0;
    let clean = 0;
    await fc.assert(
      fc.asyncProperty(documents, async ({ query, variables }) => {
        const { status, text } = await same(query, variables);
        statuses.add(status);
        const body = JSON.parse(text) as { data?: unknown; errors?: unknown[] };
        if (body.errors?.length) errors++;
        if (body.data && !body.errors) clean++;
      }),
      { numRuns: 250, seed: 44 },
    );
    // The set covered answers with data, answers with errors, and refusals before execution.
    expect(clean).toBeGreaterThan(50);
    expect(errors).toBeGreaterThan(20);
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 400]));
    // Every answer without errors came from the compiled executor (of the one gateway that compiles).
    expect((await executions("compiled")) - compiledBefore).toBeGreaterThanOrEqual(clean);
  });

  it("a document with two operations, by name and without, and a subscription-free schema's mutation", async () => {
    const two = "query A { universities { totalCount } } query B { papers { totalCount } }";
    await same(two, {}, "A");
    await same(two, {}, "B");
    expect((await same(two, {})).status).toBe(400);
    expect((await same("mutation { x }", {})).status).toBe(400);
    expect(seen).toBeGreaterThan(0);
  });
});
