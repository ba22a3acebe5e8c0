/**
 * Documents answered as one SQL statement (src/sql-plans/plan.ts) give the
 * bytes graphql-js gives: generated documents over the fields with SQL forms
 * (aliases, fragments, repeated fields, `__typename`, every part of a
 * connection), with their arguments as literals and as variables, in range
 * and out of it, on a database with private courses; what the plan does not
 * cover it leaves to the compiled operation, and the guards hold in its SQL.
 */
import fc from "fast-check";
import { parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReadClient, type QueryEvent, type ReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { schema } from "../../src/schema/index.js";
import { createGateway, type Gateway } from "../../src/server.js";
import { planSql } from "../../src/sql-plans/plan.js";
import { canaryExport, pack, version } from "../support/canary.js";
import { freshDatabase, importObject } from "../support/databases.js";

let db: Database;
let prisma: ReadClient;
let gateway: Gateway;
const statements: string[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  await importObject(db, canaryExport());
  prisma = createReadClient(db, { onQuery: (event: QueryEvent) => statements.push(event.query) });
  gateway = createGateway({ db, prisma, auth: false, now: () => new Date("2026-11-20T04:00:00Z"), compile: false });
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.close();
});

/** graphql-js's answer to a document, as the gateway writes it. */
async function graphqlJs(query: string, variables: Record<string, unknown>, by = gateway): Promise<string> {
  const response = await by.fetch("http://gateway.test/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  return response.text();
}

/** The plan's answer, written as the lean path writes it; undefined when it leaves the request to the compiled operation. */
async function planned(query: string, variables: Record<string, unknown>, client = prisma): Promise<string | undefined> {
  const plan = planSql(schema, parse(query), undefined);
  expect(plan, query).toBeDefined();
  const result = await plan!.run(client, variables);
  return result && JSON.stringify(result);
}

/**
 * Compares the plan's answer to `query` with graphql-js's: "refused" when the
 * gateway refuses the document whole (its limits: it is never planned),
 * "left" when the plan leaves it to the compiled operation (which
 * `leftAlone`, given graphql-js's answer, must expect), else "answered", with
 * the same bytes.
 */
async function compare(
  query: string,
  variables: Record<string, unknown>,
  leftAlone: (theirs: { errors?: unknown }) => boolean,
  on: { gateway?: Gateway; client?: ReadClient } = {},
): Promise<"refused" | "left" | "answered"> {
  const theirs = await graphqlJs(query, variables, on.gateway);
  if (!("data" in JSON.parse(theirs))) return "refused";
  const ours = await planned(query, variables, on.client);
  if (ours === undefined) {
    expect(leftAlone(JSON.parse(theirs)), `${query} ${JSON.stringify(variables)} ${theirs}`).toBe(true);
    return "left";
  }
  expect(ours, `${query}\n${JSON.stringify(variables)}`).toBe(theirs);
  return "answered";
}

/** A document of one root field with `given` arguments (of GraphQL `types`), written as literals or as variables. */
function documentOf(
  field: string,
  selection: string,
  given: Record<string, unknown>,
  types: Readonly<Record<string, string>>,
  asVariables: boolean,
): { query: string; variables: Record<string, unknown> } {
  const used = Object.entries(given).filter(([, value]) => value !== undefined);
  // An enum's literal is its bare name.
  const literal = (name: string, value: unknown) =>
    value !== null && !/^(String|Int|ID)!?$/.test(types[name]!) ? String(value) : JSON.stringify(value);
  const args = used.map(([name, value]) => `${name}: ${asVariables ? `$${name}` : literal(name, value)}`).join(", ");
  const header = asVariables && used.length ? `query (${used.map(([name]) => `$${name}: ${types[name]}`).join(", ")})` : "";
  return {
    query: `${header} { ${field}${args ? `(${args})` : ""} { ${selection} } }`,
    variables: asVariables ? Object.fromEntries(used) : {},
  };
}

const pick = <T>(items: readonly T[]) =>
  fc.subarray([...items], { minLength: 1 }).chain((chosen) => fc.shuffledSubarray(chosen, { minLength: 1 }));
/** A field, sometimes under an alias (rarely enough that a document stays within the gateway's 15 aliases). */
const aliased = (field: string) =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(field) }, { weight: 1, arbitrary: fc.constant(`a_${field}: ${field}`) });

const SCHOOL = [
  "databaseId",
  "code",
  "nameZh",
  "nameEn",
  "shortName",
  "region",
  "country",
  "timezone",
  "latitude",
  "longitude",
  "id",
  "__typename",
];
const COURSE = [
  "databaseId",
  "className",
  "courseNumber",
  "courseClass",
  "courseNameChinese",
  "courseNameEnglish",
  "instructor",
  "instructorEnglish",
  "department",
  "departmentEnglish",
  "semester",
  "startDate",
  "endDate",
  "teachingGoal",
  "classMemo",
  "school",
  "id",
  "__typename",
];

const PAGE_INFO_FIELDS = ["hasNextPage", "hasPreviousPage", "startCursor", "endCursor", "__typename"];

/** A selection of a school's fields, some aliased, some in a fragment. */
const plainSchoolSelection = pick(SCHOOL).chain((fields) =>
  fc
    .tuple(fc.array(fc.boolean(), { minLength: fields.length, maxLength: fields.length }), ...fields.map(aliased))
    .map(([inFragment, ...written]) => {
      const plain = written.filter((_, i) => !inFragment[i]);
      const fragment = written.filter((_, i) => inFragment[i]);
      return `${plain.join(" ")}${fragment.length ? ` ... on University { ${fragment.join(" ")} }` : ""}`;
    }),
);

/** A school's page of its courses: literal arguments, and the parts of a page. */
const schoolCourses = fc
  .tuple(
    fc.constantFrom(
      "",
      "first: 0",
      "first: 1",
      "first: 2",
      "first: 101",
      'semester: "113-1"',
      'first: 1, semester: "112-2"',
      'semester: " "',
      'q: "x"',
    ),
    pick(["databaseId", "courseNameChinese", "semester", "startDate", "id"]),
    fc.constantFrom("nodes", "edges", "both"),
    fc.boolean(),
    fc.option(pick(PAGE_INFO_FIELDS), { nil: undefined }),
  )
  .map(([args, fields, shape, total, info]) => {
    const selection = fields.join(" ");
    const parts = [
      shape !== "edges" && `nodes { ${selection} }`,
      shape !== "nodes" && `edges { cursor node { ${selection} } }`,
      total && "totalCount",
      info && `pageInfo { ${info.join(" ")} }`,
    ].filter(Boolean);
    return `courses${args ? `(${args})` : ""} { ${parts.join(" ")} }`;
  });

/** A school's fields, with a page of its courses or without. */
const schoolSelection = fc
  .tuple(plainSchoolSelection, fc.option(schoolCourses, { nil: undefined }))
  .map(([fields, courses]) => (courses ? `${fields} ${courses}` : fields));

const courseSelection = fc
  .tuple(
    pick(COURSE).chain((fields) => fc.tuple(...fields.map(aliased))),
    fc.option(schoolSelection, { nil: undefined }),
  )
  .map(([fields, school]) => `${fields.join(" ")}${school ? ` university { ${school} }` : ""}`);

/** A page of `node`s: its parts, in any order and number. */
const connectionOf = (node: fc.Arbitrary<string>) =>
  fc
    .tuple(
      fc.option(node, { nil: undefined }),
      fc.option(fc.tuple(fc.boolean(), fc.option(node, { nil: undefined })), { nil: undefined }),
      fc.option(pick(PAGE_INFO_FIELDS), { nil: undefined }),
      fc.boolean(),
      fc.boolean(),
    )
    .map(([nodes, edges, pageInfo, total, typename]) => {
      const parts = [
        nodes && `nodes { ${nodes} }`,
        edges && (edges[0] || edges[1]) && `edges { ${edges[0] ? "cursor " : ""}${edges[1] ? `node { ${edges[1]} }` : ""} }`,
        pageInfo && `pageInfo { ${pageInfo.join(" ")} }`,
        total && "totalCount",
        typename && "__typename",
      ].filter(Boolean);
      return parts.length ? parts.join(" ") : "totalCount";
    });

const connectionSelection = connectionOf(schoolSelection);
const courseConnection = connectionOf(courseSelection);

/** `first` as a page of schools takes it: none, small, zero, past the largest page, negative. */
const first = fc.constantFrom<number | null | undefined>(undefined, null, 0, 1, 2, 3, 500, 501, 10_000, -1);
const region = fc.constantFrom<string | null | undefined>(undefined, null, "", "  ", "Taipei", "Seattle", "Nowhere", "taipei");
/** Course ids: public, private (2, 5), absent, out of range. */
const courseId = fc.constantFrom(1, 2, 3, 4, 5, 6, 7, 0, -1);
/** A cursor: of a row (a school's or a course's id), of none, or no cursor at all. */
const cursor = (id: number | string) => Buffer.from(`GPC:${typeof id === "number" ? "N" : "S"}:${id}`).toString("base64");
const after = fc.oneof(
  { weight: 5, arbitrary: fc.constant(undefined) },
  { weight: 3, arbitrary: fc.constantFrom(cursor(1), cursor(2), cursor(3), cursor(4), cursor(9), cursor("x"), "x") },
);
/** The filters of a list of courses: a school by code in any case or by name, or none that exists; a semester; a title term of each kind the search tells apart. */
const courseFilters = fc.record({
  university: fc.constantFrom<string | undefined>(undefined, "NTU", "ntu", "國立清華大學", "UW", "nope", " "),
  semester: fc.constantFrom<string | undefined>(undefined, "113-1", "112-2", "113-2", "999-9", ""),
  q: fc.constantFrom<string | undefined>(
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    "xyz",
    "course",
    "COURSE 3",
    "課程",
    "公",
    "程4",
    "%",
    "_",
    "CANARY",
    "public course",
    "lic cou",
    "c 1",
    " ",
  ),
});

describe("a document as one SQL statement", () => {
  it("gives graphql-js's bytes for generated documents over the fields with SQL forms", async () => {
    let answered = 0;
    let left = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        connectionSelection,
        courseSelection,
        first,
        region,
        courseId,
        fc.boolean(),
        fc.subarray(["schools", "course", "courses"] as const, { minLength: 1 }),
        courseConnection,
        courseFilters,
        after,
        after,
        async (page, course, size, where, id, asVariables, roots, coursePage, filters, schoolsAfter, coursesAfter) => {
          const args = (pairs: [string, unknown, string][]) => {
            const given = pairs.filter(([, value]) => value !== undefined);
            return given.length
              ? `(${given.map(([name, value]) => `${name}: ${asVariables ? `$${name}` : JSON.stringify(value)}`).join(", ")})`
              : "";
          };
          const schoolArgs: [string, unknown, string][] = [
            ["first", size, "Int"],
            ["region", where, "String"],
            ["after", schoolsAfter, "String"],
          ];
          const idArgs: [string, unknown, string][] = [["id", id, "Int!"]];
          const listArgs: [string, unknown, string][] = [
            ["n", size, "Int"],
            ["university", filters.university, "String"],
            ["semester", filters.semester, "String"],
            ["q", filters.q, "String"],
            ["a", coursesAfter, "String"],
          ];
          const listArgsText = args(listArgs)
            .replace("(n:", "(first:")
            .replace(/([(,] )a:/, "$1after:");
          const fields = [
            roots.includes("schools") && `universities${args(schoolArgs)} { ${page} }`,
            roots.includes("course") && `course${args(idArgs)} { ${course} }`,
            roots.includes("courses") && `courses${listArgsText} { ${coursePage} }`,
          ].filter(Boolean);
          const used = [
            ...(roots.includes("schools") ? schoolArgs : []),
            ...(roots.includes("course") ? idArgs : []),
            ...(roots.includes("courses") ? listArgs : []),
          ].filter(([, value]) => value !== undefined);
          const header = asVariables && used.length ? `query (${used.map(([name, , type]) => `$${name}: ${type}`).join(", ")})` : "";
          const query = `${header} { ${fields.join(" ")} }`;
          const variables = asVariables ? Object.fromEntries(used) : {};
          // Left to the compiled operation: a page that is not one from the start, or an answer with an error
          // (or after a cursor the list does not hold, which Prisma pages its own way). A school's title search
          // (`q: "x"`) is its resolver's.
          const outcome = await compare(
            query,
            variables,
            (theirs) => size === -1 || query.includes('q: "x"') || query.includes("after:") || theirs.errors !== undefined,
          );
          if (outcome === "refused") refused++;
          else if (outcome === "left") left++;
          else answered++;
        },
      ),
      { numRuns: Number(process.env.SQL_PLAN_RUNS ?? 150) },
    );
    // Many documents have a filter, a cursor or an argument it leaves alone somewhere; about two in five are its own.
    expect(answered, `left ${left}, refused ${refused}`).toBeGreaterThan((answered + left + refused) / 5);
  });

  it("gives graphql-js's bytes for generated pages by number (coursePage), with every filter", async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(
        pick(["page", "pageSize", "total", "items", "__typename"]).chain((parts) =>
          fc.tuple(...parts.map((part) => (part === "items" ? courseSelection.map((c) => `items { ${c} }`) : aliased(part)))),
        ),
        courseFilters,
        fc.constantFrom<number | undefined>(undefined, 1, 2, 3, 4, 0, -1, 2_147_483_647, 30_000_000),
        fc.constantFrom<number | undefined>(undefined, 1, 2, 3, 20, 100, 101, 0),
        fc.boolean(),
        async (parts, filters, page, pageSize, asVariables) => {
          const types = { university: "String", semester: "String", q: "String", page: "Int!", pageSize: "Int!" };
          const { query, variables } = documentOf("coursePage", parts.join(" "), { ...filters, page, pageSize }, types, asVariables);
          // Left to the compiled operation: a page or size out of range (its error), past every list, or a school's
          // title search under it (`q: "x"`).
          const pastEveryList = ((page ?? 1) - 1) * (pageSize ?? 20) > 2_000_000_000;
          const outcome = await compare(
            query,
            variables,
            (theirs) => theirs.errors !== undefined || pastEveryList || query.includes('q: "x"'),
          );
          if (outcome === "answered") answered++;
        },
      ),
      { numRuns: Number(process.env.SQL_PLAN_RUNS ?? 150) },
    );
    expect(answered).toBeGreaterThan(50);
  });

  it("gives graphql-js's bytes for node(id:), and leaves every id it does not plan to the compiled operation", async () => {
    const base64 = (text: string) => Buffer.from(text).toString("base64");
    const plannedIds = ["Course:1", "Course:2", "Course:4", "Course:7", "University:1", "University:3", "University:9"];
    const others = ["Course:01", "Course:2147483648", "Course:x", "Paper:p-2025-a", "Nope:1", "Course:", ":1"];
    const ids = [...plannedIds, ...others].map(base64).concat(["x", "", "Q291cnNlOjE"]);
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ids),
        courseSelection,
        plainSchoolSelection,
        fc.subarray(["id", "__typename"]),
        async (id, course, school, extra) => {
          const query = `query ($id: ID!) { node(id: $id) { ${extra.join(" ")} ... on Course { ${course} } ... on University { ${school} } } }`;
          // Left alone: an id of a type it does not plan, or a title search under it.
          const outcome = await compare(query, { id }, () => query.includes("q:") || !plannedIds.map(base64).includes(id));
          if (outcome === "answered") answered++;
        },
      ),
      { numRuns: Number(process.env.SQL_PLAN_RUNS ?? 150) / 2 },
    );
    expect(answered).toBeGreaterThan(10);
  });

  it("reads no private course and no guarded column, and answers a private course's id with null", async () => {
    statements.length = 0;
    const query = "{ private: course(id: 2) { databaseId courseNameChinese } public: course(id: 1) { databaseId } }";
    expect(await planned(query, {})).toBe(await graphqlJs(query, {}));
    expect(JSON.parse((await planned(query, {}))!)).toEqual({ data: { private: null, public: { databaseId: 1 } } });
    // A school's page of its courses reads them by place, and with the rule too.
    const nested = "{ universities { nodes { courses(first: 5) { totalCount nodes { databaseId courseNameChinese } } } } }";
    expect(await planned(nested, {})).toBe(await graphqlJs(nested, {}));
    const ours = statements.filter((sql) => sql.startsWith("SELECT json_build_array"));
    expect(ours).toHaveLength(3);
    for (const sql of ours) {
      expect(sql).toMatch(/t\d+\."is_public" = TRUE/);
      expect(sql).not.toContain("join_code");
    }
  });

  it("is one statement for every root field and relation of a document", async () => {
    statements.length = 0;
    await planned("{ universities(first: 2) { totalCount nodes { code } } course(id: 1) { university { code } } }", {});
    expect(statements).toHaveLength(1);
  });

  it("plans no document with a field that has no SQL form, or a directive", () => {
    for (const query of [
      '{ university(ref: "ntu") { code } }',
      "{ universities { nodes { courses(first: 1) { totalCount nodes { university { environment { __typename } } } } } } }",
      "{ papers { totalCount } }",
      "query ($x: Boolean!) { universities { nodes { code @include(if: $x) } } }",
      "{ universities(first: 1) { edges { node { code } } } papers { totalCount } }",
      "mutation { __typename }",
    ]) {
      let plan: unknown;
      try {
        plan = planSql(schema, parse(query), undefined);
      } catch {
        plan = undefined;
      }
      expect(plan, query).toBeUndefined();
    }
  });

  it("leaves the courses of a school name two schools share to the compiled operation", async () => {
    const data = canaryExport();
    data.universities[1]!.name_zh = data.universities[0]!.name_zh;
    const shared = await freshDatabase();
    const client = createReadClient(shared);
    try {
      await importObject(shared, data);
      const plan = planSql(schema, parse("query ($u: String) { courses(university: $u) { totalCount nodes { databaseId } } }"), undefined)!;
      expect(await plan.run(client, { u: data.universities[0]!.name_zh })).toBeUndefined();
      // One school's code is still one school's list.
      expect(await plan.run(client, { u: "NTU" })).toEqual({
        data: { courses: { totalCount: 2, nodes: [{ databaseId: 1 }, { databaseId: 3 }] } },
      });
    } finally {
      await client.$disconnect();
      await shared.close();
    }
  });

  it("answers a page after a cursor of a row the list holds, and leaves a page from the end and any other cursor to the compiled operation", async () => {
    const query = "query ($a: String, $l: Int) { universities(after: $a, last: $l) { nodes { code } pageInfo { hasPreviousPage } } }";
    const plan = planSql(schema, parse(query), undefined)!;
    expect(plan).toBeDefined();
    const afterFirst = await plan.run(prisma, { a: cursor(1) });
    expect(JSON.stringify(afterFirst)).toBe(await graphqlJs(query, { a: cursor(1) }));
    expect(afterFirst).toEqual({
      data: { universities: { nodes: [{ code: "NTHU" }, { code: "UW" }], pageInfo: { hasPreviousPage: true } } },
    });
    expect(await plan.run(prisma, { a: cursor(9) })).toBeUndefined();
    expect(await plan.run(prisma, { l: 1 })).toBeUndefined();
    // Courses after a private course's cursor: not in the list.
    const courses = planSql(schema, parse("query ($a: String) { courses(after: $a) { nodes { databaseId } } }"), undefined)!;
    expect(await courses.run(prisma, { a: cursor(2) })).toBeUndefined();
    expect(JSON.stringify(await courses.run(prisma, { a: cursor(1) }))).toBe(
      await graphqlJs("query ($a: String) { courses(after: $a) { nodes { databaseId } } }", { a: cursor(1) }),
    );
  });
});

describe("a document without variables", () => {
  it("sends the one statement it wrote, to the database each time, and what it leaves alone it leaves every time", async () => {
    const query = "{ universities(first: 2) { nodes { code } } courses(first: 3) { totalCount nodes { databaseId } } }";
    const plan = planSql(schema, parse(query), undefined)!;
    const sent = statements.length;
    const answers = [await plan.run(prisma, {}), await plan.run(prisma, {})].map((a) => JSON.stringify(a));
    expect(answers).toEqual([await graphqlJs(query, {}), await graphqlJs(query, {})]);
    const mine = statements.slice(sent).filter((s) => s.startsWith("SELECT json_build_array("));
    expect(mine).toHaveLength(2);
    expect(mine[1]).toBe(mine[0]);
    // A backward page is the compiled operation's, on every request.
    const backward = planSql(schema, parse("{ courses(last: 2) { nodes { databaseId } } }"), undefined)!;
    expect([await backward.run(prisma, {}), await backward.run(prisma, {})]).toEqual([undefined, undefined]);
  });
});

describe("a list of Packs as one SQL statement", () => {
  let packDb: Database;
  let packClient: ReadClient;
  let packGateway: Gateway;

  beforeAll(async () => {
    const data = canaryExport();
    // Ties in every order (stars, installs, the newest version's day), Packs without a passed version (last in `recent`),
    // LIKE's wildcards and its escape in names, empty and absent Teaching Card fields, every asset type.
    data.hub_packs.push(
      pack("pk_a", "public", "passed", "100% Fractions", [version("1.0.0", "2026-01-01T00:00:00Z")], { star_count: 5, install_count: 1 }),
      pack("pk_b", "public", "passed", "Under_score Survey", [], {
        asset_type: "survey_bank",
        education_level: "high_school",
        star_count: 5,
        install_count: 9,
      }),
      pack("pk_c", "public", "passed", "Back\\slash skill", [version("0.1.0", "2026-01-01T00:00:00Z")], {
        asset_type: "skill",
        education_level: null,
        bloom_levels: [],
        star_count: 0,
        install_count: 9,
      }),
      pack("pk_d", "public", "passed", "Channel Template", [version("2.0.0", "2026-05-01T00:00:00Z")], {
        asset_type: "channel_template",
        education_level: "general",
        summary: null,
        subject: null,
        difficulty: null,
        owner_name: null,
        star_count: 2,
      }),
      pack("pk_e", "public", "passed", "AI task", [version("1.0.0", "2026-02-01T00:00:00Z", "rejected")], {
        asset_type: "ai_task",
        education_level: "elementary",
        subject: "Physics quiz",
        bloom_levels: ["create"],
      }),
    );
    packDb = await freshDatabase();
    await importObject(packDb, data);
    packClient = createReadClient(packDb);
    packGateway = createGateway({
      db: packDb,
      prisma: packClient,
      auth: false,
      now: () => new Date("2026-11-20T04:00:00Z"),
      compile: false,
    });
  });

  afterAll(async () => {
    await packClient?.$disconnect();
    await packDb?.close();
  });

  const PACK = [
    "databaseId",
    "name",
    "summary",
    "readmeMd",
    "assetType",
    "latestVersion",
    "subject",
    "educationLevel",
    "bloomLevels",
    "difficulty",
    "starCount",
    "installCount",
    "ownerName",
    "id",
    "__typename",
  ];
  const packSelection = pick(PACK).chain((fields) => fc.tuple(...fields.map(aliased)).map((written) => written.join(" ")));

  it("gives graphql-js's bytes for generated lists of Packs, with every filter and order", async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(
        connectionOf(packSelection),
        fc.record({
          first,
          q: fc.constantFrom<string | null | undefined>(
            undefined,
            null,
            "",
            " ",
            "quiz",
            "QUIZ",
            "%",
            "_",
            "\\",
            "frac",
            "physics",
            "CANARY",
            "nope",
          ),
          assetType: fc.constantFrom<string | null | undefined>(undefined, null, "quiz_bank", "skill", "survey_bank", "ai_task"),
          educationLevel: fc.constantFrom<string | null | undefined>(undefined, null, "university", "high_school", "general"),
          sort: fc.constantFrom<string | undefined>(undefined, "recent", "stars", "installs"),
          after: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant(cursor("pk_a")) }),
        }),
        fc.boolean(),
        async (selection, given, asVariables) => {
          const types = {
            first: "Int",
            q: "String",
            assetType: "AssetType",
            educationLevel: "EducationLevel",
            sort: "PackSort!",
            after: "String",
          };
          const { query, variables } = documentOf("hubPacks", selection, given, types, asVariables);
          // Left to the compiled operation: a page after a cursor, or one with an error.
          const outcome = await compare(
            query,
            variables,
            (theirs) => given.after !== undefined || given.first === -1 || theirs.errors !== undefined,
            { gateway: packGateway, client: packClient },
          );
          if (outcome === "answered") answered++;
        },
      ),
      { numRuns: Number(process.env.SQL_PLAN_RUNS ?? 150) },
    );
    expect(answered).toBeGreaterThan(50);
  });

  it("reads only public, passed Packs and never a payload", async () => {
    statements.length = 0;
    const reading = createReadClient(packDb, { onQuery: (event: QueryEvent) => statements.push(event.query) });
    try {
      const query = '{ hubPacks(first: 100, q: "CANARY") { totalCount nodes { databaseId } } }';
      expect(await planned(query, {}, reading)).toBe('{"data":{"hubPacks":{"totalCount":0,"nodes":[]}}}');
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatch(/t\d+\."visibility" = 'public' AND t\d+\."safety_status" = 'passed'/);
      expect(statements[0]).not.toContain("payload");
    } finally {
      await reading.$disconnect();
    }
  });
});
