/**
 * A Relay app, compiled by relay-compiler from test/clients/relay-app/ over
 * the committed schema and run by relay-runtime's network and store against
 * the gateway, unmodified, three ways: by text, by persisted id
 * (`documentId`, as relay-compiler's `persistConfig` names each document),
 * and with the compiler's `persisted.json` as the gateway's trusted
 * documents. Each page is a query composed of fragments, as Relay writes it:
 * a list inside a list through `edges { node }`, a pagination fragment whose
 * pages the connection handler merges, refetches through `node(id:)`, and a
 * search connection on `Query`.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parse } from "graphql";
import {
  type ConcreteRequest,
  createOperationDescriptor,
  Environment,
  fetchQuery,
  getSelector,
  Network,
  RecordSource,
  type ReaderFragment,
  Store,
} from "relay-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTrustedDocuments } from "../../src/plugins/persisted-documents.js";
import { DOCUMENT_BOUNDS, countTokens, measureOperations } from "../../src/schema/document-limits.js";
import { schema } from "../../src/schema/index.js";
import { sha256Hex } from "../../src/sha256.js";
import { tempDir } from "../support/temp.js";
import { type DemoService, demoService, type Exchange } from "./served.js";

const ROOT = join(import.meta.dirname, "../..");

/** The compiled app: its artifacts by name, and the compiler's persisted.json. */
interface CompiledApp {
  dir: string;
  artifact<T = ConcreteRequest>(name: string): Promise<T>;
  persistedFile: string;
  persisted: Record<string, string>;
}

/** Runs relay-compiler over the app as a team's project would, into a folder of its own. */
function compileApp(): CompiledApp {
  const dir = tempDir("relay-app-");
  cpSync(join(import.meta.dirname, "relay-app"), join(dir, "src"), { recursive: true });
  mkdirSync(join(dir, "__generated__"));
  const persistedFile = join(dir, "persisted.json");
  writeFileSync(persistedFile, "{}");
  const config = {
    src: "./src",
    schema: join(ROOT, "graphql/schema.graphql"),
    language: "javascript",
    eagerEsModules: true,
    artifactDirectory: "./__generated__",
    persistConfig: { file: "./persisted.json", algorithm: "SHA256", include_query_text: true },
  };
  writeFileSync(join(dir, "relay.config.json"), JSON.stringify(config));
  const run = spawnSync(process.execPath, [createRequire(import.meta.url).resolve("relay-compiler/cli.js")], {
    cwd: dir,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`relay-compiler failed: ${run.stdout}${run.stderr}`);
  return {
    dir,
    artifact: async (name) => (await import(pathToFileURL(join(dir, "__generated__", `${name}.graphql.js`)).href)).default,
    persistedFile,
    persisted: JSON.parse(readFileSync(persistedFile, "utf8")) as Record<string, string>,
  };
}

type Mode = "text" | "documentId" | "trusted";

/** A Relay environment whose network sends each operation as `mode` says; every exchange is recorded. */
function relayEnvironment(base: string, service: DemoService, mode: Mode, exchanges: Exchange[]): Environment {
  const send = service.fetch(exchanges);
  const network = Network.create(async (params, variables) => {
    let response: Response;
    if (mode === "text") {
      response = await send(`${base}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: params.text, operationName: params.name, variables }),
      });
    } else if (mode === "documentId") {
      // A persisted query by GET, which a CDN can keep; a gateway that does not know it yet (404
      // PersistedQueryNotFound) is sent the text once with its hash, as automatic persisted queries do.
      const query = new URLSearchParams({
        documentId: `sha256:${params.id}`,
        operationName: params.name,
        variables: JSON.stringify(variables),
      });
      response = await send(`${base}/graphql?${query}`, { method: "GET" });
      if (response.status === 404) {
        response = await send(`${base}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            query: params.text,
            operationName: params.name,
            variables,
            extensions: { persistedQuery: { version: 1, sha256Hash: params.id } },
          }),
        });
      }
    } else {
      response = await send(`${base}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ documentId: `sha256:${params.id}`, operationName: params.name, variables }),
      });
    }
    return await response.json();
  });
  const store = new Store(new RecordSource());
  store.holdGC();
  return new Environment({ network, store });
}

/** Reads a fragment's data from the store, as a component given `ref` would. */
function readFragment(environment: Environment, fragment: ReaderFragment, ref: unknown): any {
  const selector = getSelector(fragment, ref as never);
  if (selector?.kind !== "SingularReaderSelector") throw new Error(`no selector for ${fragment.name}`);
  return environment.lookup(selector).data;
}

let service: DemoService;
let app: CompiledApp;
/** A public course of the demo data. */
let courseId: number;
beforeAll(async () => {
  app = compileApp();
  service = await demoService();
  const gateway = await service.serve();
  const answer = await service.fetch([])(`${gateway.base}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: "{ courses(first: 1) { nodes { databaseId } } }" }),
  });
  courseId = ((await answer.json()) as any).data.courses.nodes[0].databaseId;
}, 120_000);
afterAll(async () => {
  await service?.close();
  if (app) rmSync(app.dir, { recursive: true, force: true });
});

describe("relay-compiler's output", () => {
  it("is a persisted.json of SHA-256 → text, one document per operation, each well within every document bound", () => {
    const entries = Object.entries(app.persisted);
    expect(entries.map(([, text]) => /query (\w+)/.exec(text)?.[1]).sort()).toEqual([
      "CourseDetailsRefetchQuery",
      "CoursePageQuery",
      "HomePageQuery",
      "PacksPageQuery",
      "SchoolCoursesPaginationQuery",
      "SchoolPageQuery",
      "SearchPageQuery",
      "SearchResultsPaginationQuery",
    ]);
    for (const [hash, text] of entries) {
      expect(sha256Hex(text)).toBe(hash);
      const [shape] = [...measureOperations(schema, parse(text)).values()];
      // Room to spare: half of each bound at most (the README lists the measures).
      expect(shape!.depth).toBeLessThanOrEqual(DOCUMENT_BOUNDS.maxDepth / 2 + 1);
      expect(shape!.aliases).toBeLessThanOrEqual(DOCUMENT_BOUNDS.maxAliases / 2);
      expect(shape!.directives).toBeLessThanOrEqual(DOCUMENT_BOUNDS.maxDirectives / 2);
      expect(countTokens(text)).toBeLessThanOrEqual(DOCUMENT_BOUNDS.maxTokens / 2);
    }
    // The home page is the list inside a list: edges { node { … courses { edges { node { … university } } } } }.
    const home = entries.find(([, text]) => text.startsWith("query HomePageQuery"))![1];
    expect(home).toMatch(/edges \{\s+node \{[\s\S]*courses\(first: \$courses\) \{[\s\S]*edges \{\s+node \{/);
    expect([...measureOperations(schema, parse(home)).values()][0]!.depth).toBe(4);
  });

  it("is accepted as TRUSTED_DOCUMENTS", () => {
    expect([...readTrustedDocuments(app.persistedFile, schema).keys()].sort()).toEqual(Object.keys(app.persisted).sort());
  });
});

describe.each<Mode>(["text", "documentId", "trusted"])("the Relay app, sending its operations by %s", (mode) => {
  let environment: Environment;
  const exchanges: Exchange[] = [];
  beforeAll(async () => {
    const gateway = await service.serve(mode === "trusted" ? readTrustedDocuments(app.persistedFile, schema) : undefined);
    environment = relayEnvironment(gateway.base, service, mode, exchanges);
  });

  /** Fetches a page's query into the store; its data, with fragment references. */
  async function page(name: string, variables: Record<string, unknown>): Promise<any> {
    const query = await app.artifact(name);
    environment.retain(createOperationDescriptor(query, variables));
    return await fetchQuery(environment, query, variables).toPromise();
  }

  it("the home page: schools, each with its first courses and each course's school, in one request", async () => {
    exchanges.length = 0;
    const data = await page("HomePageQuery", { schools: 3, courses: 3 });
    const card = await app.artifact<ReaderFragment>("UniversityCard_university");
    const row = await app.artifact<ReaderFragment>("CourseRow_course");
    expect(data.universities.edges).toHaveLength(3);
    for (const edge of data.universities.edges) {
      const school = readFragment(environment, card, edge.node);
      expect(school.courses.edges.length).toBeGreaterThan(0);
      for (const courseEdge of school.courses.edges) {
        const course = readFragment(environment, row, courseEdge.node);
        expect(course.university.code).toBe(school.code);
        expect(course.university.id).toBe(school.id);
      }
    }
    if (mode === "documentId") {
      // Unknown at first: the id, then the text with its hash once; from then on the id alone.
      expect(exchanges.map((e) => [e.method, e.status])).toEqual([
        ["GET", 404],
        ["POST", 200],
      ]);
      exchanges.length = 0;
      await page("HomePageQuery", { schools: 3, courses: 3 });
    }
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]!.status).toBe(200);
    if (mode !== "text") expect(exchanges[0]!.sent?.query ?? new URL(exchanges[0]!.url).searchParams.get("query")).toBeFalsy();
    exchanges.length = 0;
  });

  it("the school page: two pages of its courses merged by the connection handler, through node(id:)", async () => {
    const data = await page("SchoolPageQuery", { ref: "NTU" });
    const fragment = await app.artifact<ReaderFragment>("SchoolCourses_university");
    const first = readFragment(environment, fragment, data.university);
    expect(first.courses.edges).toHaveLength(3);
    // Relay adds pageInfo to a connection's fragment: what usePaginationFragment's loadNext reads.
    expect(first.courses.pageInfo.hasNextPage).toBe(true);
    const refetch = (fragment.metadata as any).refetch;
    expect(refetch.operation.params.name).toBe("SchoolCoursesPaginationQuery");
    await fetchQuery(environment, refetch.operation, {
      count: 3,
      cursor: first.courses.pageInfo.endCursor,
      semester: null,
      id: data.university.id,
    }).toPromise();
    const both = readFragment(environment, fragment, data.university);
    expect(both.courses.edges).toHaveLength(6);
    const ids = both.courses.edges.map((e: any) => e.node.__id);
    expect(new Set(ids).size).toBe(6);
    // The same six, in the same order, as one page of six asked for directly.
    const direct = await fetch(`${exchanges.at(-1)!.url.split("/graphql")[0]}/graphql`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.key}`, "content-type": "application/json" },
      body: JSON.stringify({ query: `{ university(ref: "NTU") { courses(first: 6) { edges { node { id } } } } }` }),
    });
    if (mode !== "trusted") expect(((await direct.json()) as any).data.university.courses.edges.map((e: any) => e.node.id)).toEqual(ids);
    const weather = readFragment(environment, await app.artifact<ReaderFragment>("SchoolWeather_university"), data.university);
    expect(weather.environment.dayBoundary).toBeTruthy();
  });

  it("the course page: refetched by its global id through node(id:)", async () => {
    const data = await page("CoursePageQuery", { id: courseId });
    const fragment = await app.artifact<ReaderFragment>("CourseDetails_course");
    const before = readFragment(environment, fragment, data.course);
    const refetch = (fragment.metadata as any).refetch.operation as ConcreteRequest;
    expect(refetch.params.name).toBe("CourseDetailsRefetchQuery");
    const again = await fetchQuery(environment, refetch, { id: before.id }).toPromise();
    // The same course, read through the refetch query's owner (the fragment references inside name their owner).
    const fields = (data: Record<string, unknown>) => Object.fromEntries(Object.entries(data).filter(([name]) => !name.startsWith("__")));
    expect(fields(readFragment(environment, fragment, (again as any).node))).toEqual(fields(before));
    expect(fields(before).courseNameChinese).toBeTruthy();
    expect(Buffer.from(before.id, "base64").toString()).toBe(`Course:${courseId}`);
  });

  it("course search: a connection on Query, one per term, whose pages merge", async () => {
    const fragment = await app.artifact<ReaderFragment>("SearchResults_query");
    const data = await page("SearchPageQuery", { q: "程式" });
    const first = readFragment(environment, fragment, data);
    expect(first.courses.edges).toHaveLength(5);
    expect(first.courses.totalCount).toBeGreaterThan(10);
    const refetch = (fragment.metadata as any).refetch.operation as ConcreteRequest;
    await fetchQuery(environment, refetch, { q: "程式", count: 5, cursor: first.courses.pageInfo.endCursor }).toPromise();
    const merged = readFragment(environment, fragment, data);
    expect(merged.courses.edges).toHaveLength(10);
    // Another term is another connection: the first term's stays as it was.
    const other = await page("SearchPageQuery", { q: "learning" });
    const learning = readFragment(environment, fragment, other);
    expect(learning.courses.edges.length).toBeGreaterThan(0);
    expect(readFragment(environment, fragment, data).courses.edges).toHaveLength(10);
  });

  it("Packs by stars, most starred first", async () => {
    const data = await page("PacksPageQuery", { first: 5 });
    const stars = data.hubPacks.edges.map((e: any) => e.node.starCount);
    expect(stars.length).toBe(5);
    expect([...stars].sort((a: number, b: number) => b - a)).toEqual(stars);
  });

  it("every global id in the store is one object of the type it names, and every request was answered 200 without errors", () => {
    const source = environment.getStore().getSource();
    const globals = source
      .getRecordIDs()
      .filter((id) => /^[A-Za-z0-9+/=]+$/.test(id) && /^[A-Z]\w+:/.test(Buffer.from(id, "base64").toString()));
    expect(globals.length).toBeGreaterThan(20);
    for (const id of globals) expect(Buffer.from(id, "base64").toString().split(":")[0]).toBe((source.get(id) as any).__typename);
    expect(exchanges.length).toBeGreaterThan(0);
    for (const exchange of exchanges) {
      // The documentId mode's first request of each page is a 404, after which the text is sent once.
      if (mode === "documentId" && exchange.status === 404) continue;
      expect(exchange.status).toBe(200);
      expect((exchange.answer as any).errors).toBeUndefined();
    }
  });
});

describe("the Relay app's documents as TRUSTED_DOCUMENTS", () => {
  it("refuses any other document, by text or by id", async () => {
    const gateway = await service.serve(readTrustedDocuments(app.persistedFile, schema));
    const send = service.fetch([]);
    const other = "{ universities(first: 1) { edges { node { code } } } }";
    for (const body of [{ query: other }, { documentId: `sha256:${sha256Hex(other)}` }]) {
      const answer = await send(`${gateway.base}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as any).errors[0].extensions.code).toBe("PERSISTED_QUERY_NOT_IN_LIST");
    }
  });
});
