/**
 * GraphQL Codegen's client preset with persisted documents, as a team sets
 * it up for this gateway (`hashAlgorithm: "sha256"`): its
 * `persisted-documents.json` is given to the gateway as TRUSTED_DOCUMENTS
 * as it is written, and each document runs by the hash the preset embedded
 * in it, sent as `documentId`. The preset runs as `graphql-codegen` runs it
 * (its `buildGeneratesSection`, then `codegen` for each file), on documents
 * read from the page's `graphql()` calls; the CLI itself, whose loaders pull
 * in packages that ask for Node 22, is not installed.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { preset } from "@graphql-codegen/client-preset";
import { codegen } from "@graphql-codegen/core";
import { parse, printSchema } from "graphql";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readTrustedDocuments } from "../../src/plugins/persisted-documents.js";
import { schema } from "../../src/schema/index.js";
import { tempDir } from "../support/temp.js";
import { COURSE_ROW, HOME } from "./documents.js";
import { type DemoService, demoService, type Exchange } from "./served.js";

/** A page of a Codegen app: the fragment and the home page that spreads it, one `graphql()` call each. */
const PAGE = `import { graphql } from "../gql";

export const CourseRow = graphql(\`${COURSE_ROW}\`);

export const Home = graphql(\`${HOME}\`);
`;

let dir: string;
let service: DemoService;
beforeAll(async () => {
  dir = tempDir("codegen-app-");
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src/page.ts"), PAGE);
  // The documents of the page's graphql() calls, as the CLI's loader plucks them.
  const documents = [...PAGE.matchAll(/graphql\(`([\s\S]*?)`\)/g)].map((m) => ({
    location: join(dir, "src/page.ts"),
    document: parse(m[1]!),
    rawSDL: m[1]!,
  }));
  const outputs = await preset.buildGeneratesSection({
    baseOutputDir: `${join(dir, "gql")}/`,
    presetConfig: { persistedDocuments: { hashAlgorithm: "sha256" } },
    plugins: [],
    pluginMap: {},
    schema: parse(printSchema(schema)),
    schemaAst: schema,
    documents,
    config: {},
    documentTransforms: [],
  });
  mkdirSync(join(dir, "gql"));
  for (const output of outputs) writeFileSync(output.filename, await codegen(output));
  service = await demoService();
}, 120_000);
afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("runs the client preset's persisted-documents.json as TRUSTED_DOCUMENTS, each document by the hash embedded in it", async () => {
  const file = join(dir, "gql/persisted-documents.json");
  const written = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
  expect(Object.keys(written)).toHaveLength(1);
  const trusted = readTrustedDocuments(file, schema);
  const [hash] = [...trusted.keys()];
  // The hash the preset embedded in the document the app imports.
  expect(Object.keys(written)).toEqual([`sha256:${hash}`]);
  expect(readFileSync(join(dir, "gql/graphql.ts"), "utf8")).toContain(`"hash":"sha256:${hash}"`);
  const gateway = await service.serve(trusted);
  const exchanges: Exchange[] = [];
  const answer = await service.fetch(exchanges)(`${gateway.base}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ documentId: Object.keys(written)[0], variables: { schools: 2, courses: 2 } }),
  });
  expect(answer.status).toBe(200);
  const { data, errors } = (await answer.json()) as any;
  expect(errors).toBeUndefined();
  for (const { node } of data.universities.edges) {
    for (const { node: course } of node.courses.edges) expect(course.university.code).toBe(node.code);
  }
});
