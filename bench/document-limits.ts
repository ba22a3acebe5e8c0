/**
 * What the GraphQL document limits cost (src/schema/document-limits.ts):
 * the time to parse, validate, measure and price one document, and then
 * to compile it with graphql-jit as `/graphql` executes it, for
 * documents at each bound and for the shapes those bounds refuse, beside the
 * time a request within the cost bound may take (100,000 points of about
 * 10 µs: 1 s). yoga does this once per document text and keeps the result;
 * these are the times of a document the process has not seen.
 *
 *   npm run bench:limits
 *   npm run bench:limits -- --iterations 200
 */
import { type CommandLine, commandLine, integerOption } from "../src/cli/args.js";
import { benchReport } from "./report.js";
import type { DocumentNode } from "graphql";

const LINE = {
  name: "bench:limits",
  usage: `usage: npm run bench:limits -- [--iterations N]

Times parsing, validation, the document bounds and the cost of documents at
and over each bound, in this process, N times each (default 100), and prints
each one's median beside the 1 s a request within the cost bound may take.`,
  options: { iterations: { type: "string", default: "100" } },
} satisfies CommandLine;
const { values } = commandLine(LINE);

// Loaded once the command line is read: --help and a wrong option answer without them.
const { createComplexityRule } = await import("@pothos/plugin-complexity");
const { compileQuery } = await import("graphql-jit");
const { GraphQLError, getIntrospectionQuery, specifiedRules, validate } = await import("graphql");
const { MAX_COST } = await import("../src/input-limits.js");
const { DOCUMENT_BOUNDS, documentShapeRule, parseWithinTokens } = await import("../src/schema/document-limits.js");
const { schema } = await import("../src/schema/index.js");
const ITERATIONS = integerOption(LINE, "iterations", values.iterations, 1);

const ROW = "id courseNameChinese courseNameEnglish semester instructor university { id code shortName }";
const DOCUMENTS: [string, string][] = [
  [
    "a Relay-style page: a list inside a list",
    `query Home { universities(first: 10) { edges { cursor node { id code nameZh courses(first: 3) { totalCount edges { cursor node { ...Row } } pageInfo { endCursor hasNextPage } } } } pageInfo { endCursor hasNextPage } } } fragment Row on Course { ${ROW} }`,
  ],
  [
    "1,000 tokens (the bound): 490 spreads",
    `{ universities(first: 1) { totalCount } ${"...F ".repeat(490)}} fragment F on Query { __typename }`,
  ],
  [
    "1,001 tokens and more: 50,000 (refused)",
    `{ universities { totalCount } ${"...F ".repeat(25_000)}} fragment F on Query { __typename }`,
  ],
  [
    "depth 7 (the bound)",
    "{ universities(first: 1) { nodes { courses(first: 1) { nodes { university { courses(first: 1) { nodes { university { environment { dayBoundary } } } } } } } } } }",
  ],
  [
    "15 aliases of a page (the alias bound)",
    `{ ${Array.from({ length: 15 }, (_, i) => `a${i}: courses(first: 5, semester: "11${i % 4}-1") { nodes { ...Row } }`).join(" ")} } fragment Row on Course { ${ROW} }`,
  ],
  ["1,986 fields written out (under the bound): 5 fragments doubling", fanOut(5, 62)],
  ["2^30 fields written out (refused): 30 fragments doubling, 300 tokens", fanOut(30, 1)],
  ["GraphiQL's schema query", getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true })],
];

/** `levels` fragments, each spreading the one before twice, over a fragment of `width` fields. */
function fanOut(levels: number, width: number): string {
  const base = `fragment F0 on Course { ${Array.from({ length: width }, () => "databaseId").join(" ")} }`;
  const more = Array.from({ length: levels }, (_, i) => `fragment F${i + 1} on Course { ...F${i} ...F${i} }`);
  return `{ courses(first: 1) { nodes { ...F${levels} } } } ${base} ${more.join(" ")}`;
}

const shape = documentShapeRule(DOCUMENT_BOUNDS);

/** One document through what the gateway does before it executes; the first refusal's code, if any. */
function check(text: string): string | undefined {
  let document: DocumentNode;
  try {
    document = parseWithinTokens(text, DOCUMENT_BOUNDS.maxTokens);
  } catch (error) {
    return error instanceof GraphQLError ? String(error.extensions.code ?? "GRAPHQL_PARSE_FAILED") : "error";
  }
  const invalid = validate(schema, document, [...specifiedRules, shape]);
  if (invalid.length) return String(invalid[0]!.extensions.code ?? "GRAPHQL_VALIDATION_FAILED");
  let code: string | undefined;
  const cost = createComplexityRule({
    context: {},
    variableValues: {},
    validate: (result) => {
      if (result.complexity > MAX_COST) code = "QUERY_TOO_COSTLY";
    },
  });
  validate(schema, document, [cost]);
  return code;
}

/** graphql-jit's compilation of a document that runs (src/plugins/compiled-execution.ts), in milliseconds. */
function compileMs(text: string): number {
  const document = parseWithinTokens(text, DOCUMENT_BOUNDS.maxTokens);
  const started = process.hrtime.bigint();
  compileQuery(schema, document);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function middle(times: number[]): number {
  return [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const report = benchReport("bench:limits");
report.say(`bounds: ${JSON.stringify(DOCUMENT_BOUNDS)}, cost ${MAX_COST} (1 s); ${ITERATIONS} runs each, median`);
report.say("| document | outcome | parse + validate + bounds + cost | ÷ 1 s | then graphql-jit's compile |");
report.say("| --- | --- | --- | --- | --- |");
report.progress.phase("documents", { total: DOCUMENTS.length, unit: "steps" });
for (const [n, [name, text]] of DOCUMENTS.entries()) {
  const times: number[] = [];
  let outcome: string | undefined;
  for (let i = 0; i < ITERATIONS; i++) {
    const started = process.hrtime.bigint();
    outcome = check(text);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  const median = middle(times);
  const compiled =
    outcome === undefined ? `${middle(Array.from({ length: Math.min(ITERATIONS, 20) }, () => compileMs(text))).toFixed(3)} ms` : "—";
  report.say(`| ${name} | ${outcome ?? "runs"} | ${median.toFixed(3)} ms | ${(median / 1000).toExponential(1)} | ${compiled} |`);
  report.progress.set(n + 1);
}
await report.finish();
