/**
 * The breaking-change guard (./guard.ts): the current contracts against the
 * released ones, as `npm test` must find them; then the guard itself, on
 * changes made to throwaway copies of the real documents, so that each rule
 * is seen to refuse what it must and to let through what it may.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { trustedEntries } from "../../src/plugins/persisted-documents.js";
import { sha256Hex } from "../../src/sha256.js";
import { coordinatesUsed, daysBefore } from "../../src/usage/report.js";
import { freshDatabase } from "../support/databases.js";
import { tempDir } from "../support/temp.js";
import { putUsage } from "../support/usage.js";
import {
  type ContractChange,
  coordinateOf,
  graphqlChanges,
  openapiChanges,
  recentUse,
  refusals,
  releasedVersion,
  trustedDocumentRefusals,
  usageRefusals,
} from "../../scripts/contracts/guard.js";

const read = (path: string) => readFileSync(path, "utf8");
const RELEASED_SDL = read("graphql/schema.released.graphql");
const CURRENT_SDL = read("graphql/schema.graphql");
const RELEASED_API = JSON.parse(read("rest/openapi.released.json")) as Record<string, unknown>;
const CURRENT_API = JSON.parse(read("rest/openapi.json")) as Record<string, unknown>;
const CHANGELOG = read("CHANGELOG.md");

describe("the published contracts", () => {
  it("change only as CHANGELOG.md records, breaking ones after a deprecation", async () => {
    const changes = [...(await graphqlChanges(RELEASED_SDL, CURRENT_SDL)), ...openapiChanges(RELEASED_API, CURRENT_API)];
    expect(refusals(changes, CHANGELOG, releasedVersion(RELEASED_SDL))).toEqual([]);
  });

  it("npm run contracts:release refuses to release a version twice, and changes nothing", () => {
    let failed: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, ["scripts/release-contracts.mjs"], { stdio: "pipe" });
    } catch (error) {
      failed = { status: (error as { status: number }).status, stderr: String((error as { stderr: Buffer }).stderr) };
    }
    expect(failed).toEqual({
      status: 1,
      stderr: `contracts:release: ${releasedVersion(RELEASED_SDL)} is released already; add a newer section to CHANGELOG.md first\n`,
    });
    expect(read("graphql/schema.released.graphql")).toBe(RELEASED_SDL);
  });
});

const copy = <T>(value: T): T => structuredClone(value);
type Doc = Record<string, any>;
const schemas = (doc: Doc) => doc.components.schemas as Doc;
const papers = (doc: Doc) => doc.paths["/api/v1/papers"].get as Doc;
const only = (changes: ContractChange[]) => changes.map(({ path, message, breaking }) => ({ path, message, breaking }));
const NEXT = (lines: string[]) => `# Changelog\n\n## 0.2.0\n\n${lines.join("\n")}\n\n## 0.1.0\n\n- First.\n`;

/** The current schema without `EnvironmentDay.dateTaipei`, which it deprecates. */
const WITHOUT_DATE_TAIPEI = CURRENT_SDL.replace(
  /\n {2}"""The same date as the local date; kept for compatibility\."""\n {2}dateTaipei: Date! @deprecated\(reason: "Use dateLocal\."\)\n/,
  "\n",
);

describe("the guard with usage", () => {
  const since = "2026-10-31";
  const use = (coordinate: string, lastUsed: string, keys = 2) => ({ coordinate, requests: 9, keys, lastUsed });

  it("refuses the removal of a deprecated field a key used in the window, naming its last use and its keys; one unused passes", async () => {
    expect(WITHOUT_DATE_TAIPEI).not.toBe(CURRENT_SDL);
    const changes = await graphqlChanges(CURRENT_SDL, WITHOUT_DATE_TAIPEI);
    expect(changes.map((c) => [c.path, c.breaking, c.deprecated])).toEqual([["EnvironmentDay.dateTaipei", true, true]]);
    expect(
      refusals(changes, NEXT(["- **Breaking**: `EnvironmentDay.dateTaipei` removed: every school has its own time zone."]), "0.1.0"),
    ).toEqual([]);
    expect(usageRefusals(changes, [use("EnvironmentDay.dateTaipei", "2026-11-28T09:30:00.000Z")], since)).toEqual([
      "graphql EnvironmentDay.dateTaipei: Field 'dateTaipei' (deprecated) was removed from object type 'EnvironmentDay': EnvironmentDay.dateTaipei is still used: last 2026-11-28T09:30:00.000Z, by 2 keys (9 requests since 2026-10-31); see npm run usage -- --coordinate 'EnvironmentDay.dateTaipei'",
    ]);
    // Used before the window, or not at all, or only other coordinates: it passes.
    expect(usageRefusals(changes, [use("EnvironmentDay.dateTaipei", "2026-10-30T23:59:59.000Z")], since)).toEqual([]);
    expect(usageRefusals(changes, [use("EnvironmentDay.dateLocal", "2026-11-28T09:30:00.000Z")], since)).toEqual([]);
    expect(usageRefusals(changes, [], since)).toEqual([]);
  });

  it("names the coordinates of arguments, enum values, REST routes and parameters as npm run usage does", () => {
    const change = (contract: "graphql" | "openapi", path: string): ContractChange => ({
      contract,
      path,
      message: "",
      breaking: true,
      deprecated: true,
    });
    expect(
      [
        change("graphql", "Query.courses.q"),
        change("graphql", "PackSort.stars"),
        change("graphql", "EnvironmentDay"),
        change("openapi", "GET /api/v1/courses/{course_id}"),
        change("openapi", "GET /api/v1/courses query parameter semester"),
        change("openapi", "GET /api/v1/papers 200 items[].award"),
      ].map(coordinateOf),
    ).toEqual(["Query.courses(q:)", "PackSort.stars", undefined, "/api/v1/courses/{course_id}", "/api/v1/courses?semester", undefined]);
  });

  it("reads the use from a database (USAGE_DATABASE_URL) or from npm run usage's --json (USAGE_FILE)", async () => {
    const db = await freshDatabase();
    try {
      const [today, longAgo] = [daysBefore(new Date(), 0), daysBefore(new Date(), 40)];
      await putUsage(db, [
        { day: today, keyId: 1, coordinate: "EnvironmentDay.dateTaipei", requests: 4, lastAt: new Date().toISOString() },
        { day: today, keyId: 2, coordinate: "EnvironmentDay.dateTaipei", requests: 1, lastAt: new Date().toISOString() },
        { day: longAgo, keyId: 3, coordinate: "Query.papers", requests: 1, lastAt: `${longAgo}T12:00:00.000Z` },
      ]);
      const window = daysBefore(new Date(), 29);
      const fromDatabase = await recentUse({ USAGE_DATABASE_URL: db.url }, window);
      expect(fromDatabase?.map((u) => [u.coordinate, u.requests, u.keys])).toEqual([["EnvironmentDay.dateTaipei", 5, 2]]);
      const file = join(tempDir("usage-file-"), "usage.json");
      writeFileSync(file, JSON.stringify({ since: window, coordinates: await coordinatesUsed(db, { since: window }) }));
      expect(await recentUse({ USAGE_FILE: file }, window)).toEqual(fromDatabase);
      await expect(recentUse({ USAGE_FILE: file }, daysBefore(new Date(), 60))).rejects.toThrow(/export it with --since/);
      expect(await recentUse({}, window)).toBeUndefined();
    } finally {
      await db.close();
    }
  });

  it("refuses a change that makes a trusted document invalid, naming its hash and operation", () => {
    const days = "query Days { universities { nodes { environmentHistory { daily { dateLocal dateTaipei } } } } }";
    const names = "query Names { universities { nodes { code } } }";
    const file = join(tempDir("trusted-"), "persisted.json");
    writeFileSync(file, JSON.stringify({ [sha256Hex(days)]: days, [`sha256:${sha256Hex(names)}`]: names }));
    const documents = trustedEntries(file);
    expect(trustedDocumentRefusals(CURRENT_SDL, documents)).toEqual([]);
    expect(trustedDocumentRefusals(WITHOUT_DATE_TAIPEI, documents)).toEqual([
      `trusted document ${sha256Hex(days)} (query Days): Cannot query field "dateTaipei" on type "EnvironmentDay".`,
    ]);
  });
});

describe("the guard on GraphQL", () => {
  it("finds nothing between a schema and itself", async () => {
    expect(await graphqlChanges(CURRENT_SDL, CURRENT_SDL)).toEqual([]);
  });

  it("refuses a removed field that was not deprecated, and one that is not in the changelog", async () => {
    const changes = await graphqlChanges(
      CURRENT_SDL,
      CURRENT_SDL.replace(/\n {2}"""Award received, if any\."""\n {2}award: String\n/, "\n"),
    );
    expect(only(changes)).toEqual([{ path: "Paper.award", message: "Field 'award' was removed from object type 'Paper'", breaking: true }]);
    expect(refusals(changes, NEXT([]), "0.1.0")).toEqual([
      "graphql Paper.award: Field 'award' was removed from object type 'Paper': not listed under ## 0.2.0 in CHANGELOG.md (a line with `Paper.award`)",
    ]);
    expect(refusals(changes, NEXT(["- **Breaking**: `Paper.award` removed: nobody awards papers any more."]), "0.1.0")).toEqual([
      "graphql Paper.award: Field 'award' was removed from object type 'Paper': breaking, and the released contract did not deprecate it first (GraphQL @deprecated, OpenAPI deprecated: true)",
    ]);
  });

  it("lets a removal through once the released schema deprecated it and the changelog says why", async () => {
    const released = CURRENT_SDL.replace("  award: String\n", '  award: String @deprecated(reason: "Use `category`.")\n');
    const changes = await graphqlChanges(released, CURRENT_SDL.replace(/\n {2}"""Award received, if any\."""\n {2}award: String\n/, "\n"));
    expect(changes.map((c) => [c.path, c.breaking, c.deprecated])).toEqual([["Paper.award", true, true]]);
    expect(refusals(changes, NEXT(["- **Breaking**: `Paper.award` removed: nobody awards papers any more."]), "0.1.0")).toEqual([]);
    expect(refusals(changes, NEXT(["- `Paper.award` removed."]), "0.1.0")).toEqual([
      "graphql Paper.award: Field 'award' (deprecated) was removed from object type 'Paper': breaking; its changelog line must begin with **Breaking** and say why",
    ]);
  });

  it("a type may go once only deprecated fields led to it", async () => {
    const sdl = "type Query {\n  old: Old\n  kept: String\n}\n\ntype Old {\n  x: String\n}\n";
    const removed = "type Query {\n  kept: String\n}\n";
    const withReason = NEXT([
      "- **Breaking**: `Query.old` removed: nothing reads it any more.",
      "- **Breaking**: `Old` removed: only `Query.old` returned it.",
    ]);
    expect(refusals(await graphqlChanges(sdl, removed), withReason, "0.1.0")).toHaveLength(2);
    const deprecated = sdl.replace("old: Old", 'old: Old @deprecated(reason: "Gone soon.")');
    const changes = await graphqlChanges(deprecated, removed);
    expect(changes.map((c) => [c.path, c.breaking, c.deprecated])).toEqual([
      ["Old", true, true],
      ["Query.old", true, true],
    ]);
    expect(refusals(changes, withReason, "0.1.0")).toEqual([]);
  });

  it("lets an addition through once the changelog lists it under a newer version", async () => {
    const changes = await graphqlChanges(CURRENT_SDL, CURRENT_SDL.replace("  award: String\n", "  award: String\n  awardYear: Int\n"));
    expect(only(changes)).toEqual([
      { path: "Paper.awardYear", message: "Field 'awardYear' was added to object type 'Paper'", breaking: false },
    ]);
    expect(refusals(changes, NEXT(["- `Paper.awardYear`: the year of the award."]), "0.1.0")).toEqual([]);
    expect(refusals(changes, NEXT(["- `Paper.awardYear`: the year of the award."]), "0.2.0")[0]).toMatch(
      /^1 change\(s\) to the published contracts, and CHANGELOG.md has no version newer than the released 0\.2\.0 to list them under: Paper\.awardYear/,
    );
  });
});

describe("the guard on OpenAPI", () => {
  it("finds nothing between a document and itself", () => {
    expect(openapiChanges(CURRENT_API, CURRENT_API)).toEqual([]);
  });

  it("a response field removed or its type changed is breaking; one added is not", () => {
    const now = copy(CURRENT_API) as Doc;
    const paper = schemas(now).Paper;
    delete paper.properties.award;
    paper.properties.category = { type: "integer" };
    paper.properties.award_year = { type: ["integer", "null"] };
    expect(only(openapiChanges(CURRENT_API, now))).toEqual([
      { path: "GET /api/v1/papers 200 items[].category", message: "type changed from string|null to integer", breaking: true },
      { path: "GET /api/v1/papers 200 items[].award", message: "response field removed", breaking: true },
      { path: "GET /api/v1/papers 200 items[].award_year", message: "response field added", breaking: false },
    ]);
  });

  it("any field added to or removed from a v1 envelope is breaking, by the contract", () => {
    const now = copy(CURRENT_API) as Doc;
    schemas(now).PaperList.properties.next = { type: ["string", "null"] };
    delete schemas(now).PaperList.properties.total;
    expect(only(openapiChanges(CURRENT_API, now))).toEqual([
      {
        path: "GET /api/v1/papers 200 total",
        message: "envelope field removed (a v1 envelope's fields are fixed by the contract)",
        breaking: true,
      },
      {
        path: "GET /api/v1/papers 200 next",
        message: "envelope field added (a v1 envelope's fields are fixed by the contract)",
        breaking: true,
      },
    ]);
  });

  it("an operation or parameter removed, a parameter required or narrowed, an enum value removed: breaking; an optional parameter or an operation added: not", () => {
    const now = copy(CURRENT_API) as Doc;
    delete now.paths["/api/v1/conferences"];
    now.paths["/api/v1/awards"] = { get: papers(CURRENT_API) };
    const courses = now.paths["/api/v1/courses"].get;
    const byName = (name: string) => courses.parameters.find((p: Doc) => p.name === name);
    byName("university").schema.maxLength = 50;
    byName("university").required = true;
    courses.parameters = courses.parameters.filter((p: Doc) => p.name !== "semester");
    courses.parameters.push({ name: "year", in: "query", required: false, schema: { type: "integer" } });
    const stats = now.paths["/api/v1/course_stats"].get.parameters.find((p: Doc) => p.name === "group_by");
    stats.schema.enum = stats.schema.enum.slice(1);
    const found = only(openapiChanges(CURRENT_API, now));
    expect(found).toEqual(
      expect.arrayContaining([
        { path: "GET /api/v1/conferences", message: "operation removed", breaking: true },
        { path: "GET /api/v1/awards", message: "operation added", breaking: false },
        { path: "GET /api/v1/courses query parameter university", message: "parameter became required", breaking: true },
        { path: "GET /api/v1/courses query parameter university", message: "maxLength narrowed from 200 to 50", breaking: true },
        { path: "GET /api/v1/courses query parameter semester", message: "parameter removed", breaking: true },
        { path: "GET /api/v1/courses query parameter year", message: "parameter added", breaking: false },
        { path: "GET /api/v1/course_stats query parameter group_by", message: 'enum value "semester" removed', breaking: true },
      ]),
    );
    expect(found).toHaveLength(7);
  });

  it("a removal passes once the released document deprecated it", () => {
    const released = copy(CURRENT_API) as Doc;
    released.paths["/api/v1/conferences"].get.deprecated = true;
    const now = copy(CURRENT_API) as Doc;
    delete now.paths["/api/v1/conferences"];
    const changes = openapiChanges(released, now);
    expect(changes.map((c) => [c.path, c.breaking, c.deprecated])).toEqual([["GET /api/v1/conferences", true, true]]);
    expect(refusals(changes, NEXT(["- **Breaking**: `GET /api/v1/conferences` removed: conferences moved to papers."]), "0.1.0")).toEqual(
      [],
    );
  });
});
