/**
 * The answers' schemas come from the operation documents (rest/schemas.ts):
 * a field added to a throwaway copy of the documents appears at once in the
 * REST answer, the OpenAPI document and the MCP tool's output schema and
 * result; a document the derivation cannot describe stops it with a clear
 * error.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import formats from "ajv-formats";
import { getNamedType, isEnumType, isNonNullType, Kind, typeFromAST } from "graphql";
import { createYoga } from "graphql-yoga";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RestApi } from "../../rest/api.js";
import { buildOpenApi } from "../../rest/openapi.js";
import { loadOperations, OPERATIONS_DIR } from "../../rest/operations.js";
import { useRestApi } from "../../rest/plugin.js";
import { ROUTES, type Route } from "../../rest/routes.js";
import { deriveSchemas, FAILURE_SCHEMA, standalone } from "../../rest/schemas.js";
import { createContext } from "../../src/context.js";
import { createReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { useMcp } from "../../src/mcp/plugin.js";
import { portable } from "../../src/mcp/tools.js";
import { schema } from "../../src/schema/index.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { mcpClient } from "../support/mcp-client.js";

type Json = Record<string, any>;

/** A copy of graphql/operations with `edit` applied to its files; removed after the run. */
const copies: string[] = [];
function operationsCopy(edit: Record<string, (text: string) => string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "operations-"));
  copies.push(dir);
  cpSync(OPERATIONS_DIR, dir, { recursive: true });
  for (const [file, change] of Object.entries(edit)) {
    const path = join(dir, file);
    const before = (() => {
      try {
        return readFileSync(path, "utf8");
      } catch {
        return "";
      }
    })();
    const after = change(before);
    expect(after, file).not.toBe(before);
    writeFileSync(path, after);
  }
  return dir;
}
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

const derive = (dir: string, routes: readonly Route[] = ROUTES) => {
  const derived = deriveSchemas(schema, loadOperations(schema, dir), routes);
  return { bodies: derived.bodies, components: derived.components as Record<string, Json> };
};

describe("a field added to an operation document", () => {
  const dir = operationsCopy({
    "fragments.graphql": (text) => text.replace("  region\n}\n\nfragment Course", "  region\n  country\n}\n\nfragment Course"),
  });
  let db: Database;
  let prisma: ReturnType<typeof createReadClient>;
  let gateway: ReturnType<typeof createYoga>;
  beforeAll(async () => {
    db = await freshDatabase();
    await importObject(db, canaryExport());
    prisma = createReadClient(db);
    const api = new RestApi(schema, { operationsDir: dir });
    const context = () => createContext(prisma);
    gateway = createYoga({
      schema,
      plugins: [useRestApi({ api, context, limits: { perMinute: 60, perDay: 10_000 } }), useMcp({ api, context })],
    });
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await db?.close();
  });

  it("is in the OpenAPI document, typed and described from the GraphQL schema", () => {
    const before = (buildOpenApi() as Json).components.schemas.University;
    const after = (buildOpenApi(ROUTES, dir) as Json).components.schemas.University;
    expect(before.properties.country).toBeUndefined();
    expect(after.properties.country).toEqual({
      type: "string",
      enum: ["TW", "US"],
      description: "Country of the school. `TW`: Taiwan; `US`: United States.",
    });
    expect(after.required).toEqual([...before.required, "country"]);
  });

  it("is in the REST answer, which its derived schema accepts and the committed one refuses", async () => {
    const response = await gateway.fetch("http://gateway.test/api/v1/universities");
    const body = (await response.json()) as Json;
    expect(response.status).toBe(200);
    expect(body.items[0].country).toBe("TW");
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    formats.default(ajv);
    const list = (d: ReturnType<typeof derive>) => standalone(d.bodies.get("universities")!.schema, d.components);
    expect(ajv.validate(list(derive(dir)), body)).toBe(true);
    expect(ajv.validate(list(derive(OPERATIONS_DIR)), body)).toBe(false);
  });

  it("is in the MCP tool's output schema and its structured content", async () => {
    const client = await mcpClient(gateway);
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === "list_universities")!;
      const [success] = (tool.outputSchema as Json).anyOf;
      expect(success.properties.items.items.properties.country).toMatchObject({ type: "string", enum: ["TW", "US"] });
      // The SDK's client checks the structured content against the output schema itself.
      const result = await client.callTool({ name: "list_universities", arguments: {} });
      expect((result.structuredContent as Json).items[0].country).toBe("TW");
    } finally {
      await client.close();
    }
  });
});

describe("the derivation", () => {
  it("names each schema after its fragment and each body after its resource and envelope", () => {
    const derived = derive(OPERATIONS_DIR);
    expect(Object.fromEntries([...derived.bodies].map(([op, body]) => [op, `${body.name} of ${body.resource}`]))).toEqual({
      universities: "UniversityList of University",
      courses: "CoursePage of Course",
      course: "CourseDetailResponse of CourseDetail",
      course_stats: "CourseStatList of CourseStat",
      papers: "PaperList of Paper",
      conferences: "ConferenceList of Conference",
      environment_school: "SnapshotResponse of Snapshot",
      environment_history: "HistoryResponse of History",
      environment_snapshot: "SnapshotList of Snapshot",
      hub_packs: "PackList of Pack",
      hub_pack: "PackDetailResponse of PackDetail",
    });
    // A nullable enum takes null among its values; a nullable object reference is anyOf it and null.
    expect(derived.components.Pack!.properties.education_level.enum.at(-1)).toBeNull();
    expect(derived.components.Realtime!.properties.observed_at_utc).toMatchObject({ type: ["string", "null"], format: "date-time" });
  });

  it("stops with a clear error on what it cannot describe", () => {
    const cases: [Record<string, (text: string) => string>, string][] = [
      [{ "universities.graphql": (t) => t.replace("result: universities", "universities") }, "one field, aliased `result`"],
      [{ "universities.graphql": (t) => t.replace("    total: totalCount\n", "") }, "the list envelope needs `result` to select `total`"],
      [{ "fragments.graphql": (t) => t.replace("  region\n}", "  region @include(if: true)\n}") }, "a directive on a selection"],
      [{ "fragments.graphql": (t) => t.replace("  code\n", "  code\n  code\n") }, "`code` is selected twice"],
      [
        { "papers.graphql": (t) => t.replace("fragment Paper on Paper {", "fragment Course on Paper {").replace("...Paper", "...Course") },
        "no longer validates",
      ],
      [
        {
          "conferences.graphql": (t) =>
            t.replace("...Conference\n", "...Paper\n").replace("fragment Conference on Conference", "fragment Paper on Conference"),
        },
        "two different schemas are both named Paper",
      ],
    ];
    for (const [edit, message] of cases) expect(() => derive(operationsCopy(edit)), message).toThrow(message);
  });

  it("lets no fragment take the name of a schema of the service's own", () => {
    const dir = operationsCopy({
      "papers.graphql": (t) => t.replace("fragment Paper on Paper {", "fragment Failure on Paper {").replace("...Paper", "...Failure"),
    });
    expect(() => buildOpenApi(ROUTES, dir)).toThrow("a fragment or envelope is named Failure");
  });
});

describe("portable schemas", () => {
  it("write a nullable type as anyOf one type and null, keeping an enum's values with the type", () => {
    expect(portable({ type: ["string", "null"], enum: ["a", null], description: "d", maxLength: 3 })).toEqual({
      anyOf: [{ type: "string", maxLength: 3, enum: ["a"] }, { type: "null" }],
      description: "d",
    });
    expect(portable({ type: "object", properties: { x: { type: ["integer", "null"] } } })).toEqual({
      type: "object",
      properties: { x: { anyOf: [{ type: "integer" }, { type: "null" }] } },
    });
  });

  it("stand alone: every reference replaced by what it names", () => {
    const derived = derive(OPERATIONS_DIR);
    const body = standalone(derived.bodies.get("environment_snapshot")!.schema, derived.components) as Json;
    expect(JSON.stringify(body)).not.toContain("$ref");
    expect(body.properties.items.items.properties.realtime.properties.aqi_status.enum).toContain("Unhealthy for Sensitive Groups");
    expect(() => standalone({ $ref: "#/components/schemas/Nothing" }, {})).toThrow("unresolved reference");
    expect(FAILURE_SCHEMA.required).toEqual(["success", "error"]);
  });
});

describe("the REST parameters and the GraphQL variables they feed", () => {
  it("agree for every route: integers are Int, texts String, choices the same enum values, optional ones nullable", () => {
    const operations = loadOperations(schema);
    const problems: string[] = [];
    for (const route of ROUTES) {
      const operation = operations.get(route.operation)!.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION)!;
      const declared = new Map(operation.variableDefinitions?.map((v) => [v.variable.name.value, typeFromAST(schema, v.type as never)!]));
      // Each parameter as a value of its own, to see which variable it becomes.
      const names = [...Object.keys(route.pathParams), ...Object.keys(route.query)];
      const marks = Object.fromEntries(names.map((name) => [name, Symbol(name)]));
      const variables = route.variables(marks as never);
      for (const name of names) {
        const variable = Object.keys(variables).find((v) => variables[v] === marks[name]);
        const type = variable === undefined ? undefined : declared.get(variable);
        const where = `${route.path} ${name}`;
        if (!type) {
          problems.push(`${where}: feeds no declared variable`);
          continue;
        }
        const named = getNamedType(type);
        const rule = route.query[name];
        const kind = rule ? rule.schema.type : route.pathParams[name];
        const values = rule?.schema.enum as string[] | undefined;
        if (kind === "integer" && named.name !== "Int") problems.push(`${where}: an integer fed to ${type}`);
        if (kind === "string" && !values && named.name !== "String") problems.push(`${where}: a text fed to ${type}`);
        if (values) {
          const graphql = isEnumType(named) ? named.getValues().map((v) => v.name) : [];
          if ([...values].sort().join() !== graphql.sort().join()) problems.push(`${where}: ${values} against ${type} (${graphql})`);
        }
        // A parameter that may be absent (no default) must feed a nullable variable.
        const absentable = rule !== undefined && rule.schema.default === undefined;
        if (absentable && isNonNullType(type)) problems.push(`${where}: optional, but ${type} is required`);
      }
    }
    expect(problems).toEqual([]);
  });
});
