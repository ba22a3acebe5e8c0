/**
 * The v1 operations as plain calls: match a path to a route, validate its
 * parameters, run its fixed GraphQL operation in-process and shape the body.
 * The HTTP plugin (plugin.ts) and the MCP tools (src/mcp) both answer
 * through this, so every surface gives the same body for the same call.
 */
import { type DocumentNode, type ExecutionResult, execute, type GraphQLSchema, getOperationAST, getVariableValues } from "graphql";
import { compileQuery, isCompiledQuery } from "graphql-jit";
import type { Context } from "../src/context.js";
import { isUnavailable, RETRY_AFTER_SECONDS, UNAVAILABLE_MESSAGE, withDeadline } from "../src/db/availability.js";
import { INT32_MAX, textProblem } from "../src/input-limits.js";
import { type Body, envelope, failure } from "./envelope.js";
import { loadOperations } from "./operations.js";
import { type RawArgs, readParams } from "./params.js";
import { ROUTES, type Route } from "./routes.js";
import { type DerivedSchemas, deriveSchemas } from "./schemas.js";
import { type AnswerCache, type CachedAnswer, KeptText } from "../src/cache/answers.js";
import { etagOf } from "../src/cache/etag.js";
import { inSpan } from "../src/observe/tracing.js";
import { planSql } from "../src/sql-plans/plan.js";

/** An answer: its HTTP status and v1 body. */
export interface Answer {
  status: number;
  body: Body;
  /** Headers the status calls for (`Retry-After` on a 503). */
  headers?: Record<string, string>;
  /** The body as JSON text, when it is already written (an answer from the cache). */
  text?: string;
}

/**
 * A kept answer: its text, and its bytes as the lean path writes them
 * (src/lean/path.ts), with (a 200's) their `ETag`; its body is parsed from
 * the text when a caller asks for it (src/cache/answers.ts says why).
 */
export type KeptAnswer = KeptText;

/**
 * Every answer of a deprecated route says so, the kept ones included
 * (src/lean/path.ts serves those): `Deprecation` (RFC 9745: `@` and the
 * Unix time it began) and `Sunset` (RFC 8594: an HTTP date).
 */
function markDeprecated(route: Route, answer: Answer): Answer {
  if (!route.deprecated) return answer;
  const at = (date: string) => new Date(`${date}T00:00:00Z`);
  const { since, sunset } = route.deprecated;
  return { ...answer, headers: { ...answer.headers, deprecation: `@${at(since).getTime() / 1000}`, sunset: at(sunset).toUTCString() } };
}

/** What of an answer is kept, to serve as it is (src/lean/path.ts); the answer itself gains its text. */
function keep(answer: Answer): KeptAnswer {
  const text = JSON.stringify(answer.body);
  const bytes = Buffer.from(text);
  answer.text = text;
  return new KeptText(answer.status, bytes, answer.headers, answer.status === 200 ? etagOf(bytes) : undefined);
}

/** A kept answer as an answer: its body parsed from its text when asked for (an MCP tool's structured content). */
function fromKept({ status, headers, text }: CachedAnswer): Answer {
  let body: Body | undefined;
  return {
    status,
    ...(headers ? { headers } : {}),
    text,
    get body() {
      body ??= JSON.parse(text) as Body;
      return body;
    },
  };
}

/** The arguments of an HTTP request by REST name (path values decoded; of repeated query parameters the first counts), or its 404. */
function argsOf(match: RouteMatch, query: URLSearchParams): { args: RawArgs } | { refused: Answer } {
  const args: Record<string, string | undefined> = {};
  for (const name of Object.keys(match.route.query)) args[name] = query.get(name) ?? undefined;
  for (const [name, encoded] of Object.entries(match.segments)) {
    try {
      args[name] = decodeURIComponent(encoded);
    } catch {
      return { refused: { status: 404, body: failure(`${name} not found`) } };
    }
  }
  return { args };
}

export interface RestApiOptions {
  /** The routes served; all of docs/contract.md §3 by default. */
  routes?: readonly Route[];
  /** Longest one operation's execution may take before it is a 503. Default 5,000 ms. */
  timeoutMs?: number;
  /** Where answers (200 and 404) are kept for a short while; none: every call executes. */
  cache?: AnswerCache;
  /**
   * Run each fixed operation compiled by graphql-jit (default): the same
   * result as graphql-js's `execute`, for 10-25% less CPU per call. `false`
   * executes with graphql-js (tests compare the two).
   */
  compile?: boolean;
  /** Where the operation documents are read from; graphql/operations by default. */
  operationsDir?: string;
}

/** Runs one fixed operation with its variables and a request's context. */
type Runner = (variables: Record<string, unknown>, context: Context) => Promise<ExecutionResult> | ExecutionResult;

export interface RouteMatch {
  route: Route;
  /** Raw (still encoded) path segments, by parameter name. */
  segments: Record<string, string>;
}

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .split("/")
    .map((part) => {
      const param = /^\{(\w+)\}$/.exec(part);
      if (!param) return part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
      names.push(param[1]!);
      return "([^/]+)";
    })
    .join("/");
  return { route, pattern: new RegExp(`^${source}$`), names };
}

/**
 * How an operation runs: as one SQL statement when every field of it has a
 * SQL form and its variables are covered (src/sql-plans/plan.ts), otherwise
 * compiled by graphql-jit; or with graphql-js's `execute`. A fixed operation
 * that does not compile stops the start, like one that does not validate.
 */
function runner(schema: GraphQLSchema, name: string, document: DocumentNode, compiled: boolean): Runner {
  if (!compiled) return (variables, context) => execute({ schema, document, variableValues: variables, contextValue: context });
  const jit = compileQuery(schema, document);
  if (!isCompiledQuery(jit)) throw new Error(`REST operation ${name} does not compile: ${jit.errors?.map((e) => e.message).join("; ")}`);
  // No shared paths (src/schema/shared-paths.ts): test/rest/compiled.test.ts holds each operation's
  // statements to graphql-js's without them, and they would cost every call.
  const run: Runner = (variables, context) => jit.query(undefined, context, variables);
  const sql = planSql(schema, document, undefined);
  const definitions = getOperationAST(document)?.variableDefinitions ?? [];
  if (!sql) return run;
  return async (variables, context) => {
    const coerced = getVariableValues(schema, definitions, variables);
    const answered = coerced.errors ? undefined : await sql.run(context.prisma, coerced.coerced);
    return answered ?? run(variables, context);
  };
}

export class RestApi {
  readonly routes: readonly Route[];
  private readonly compiled: CompiledRoute[];
  private readonly runners = new Map<string, Runner>();
  private readonly timeoutMs: number;
  private readonly cache: AnswerCache | undefined;
  /** The JSON Schemas of the answers, derived from the same operation documents. */
  readonly schemas: DerivedSchemas;

  constructor(schema: GraphQLSchema, options: RestApiOptions = {}) {
    const routes = options.routes ?? ROUTES;
    this.routes = routes;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.cache = options.cache;
    this.compiled = routes.map(compile);
    const operations = loadOperations(schema, options.operationsDir);
    this.schemas = deriveSchemas(schema, operations, routes);
    for (const route of routes) {
      const document = operations.get(route.operation);
      if (!document) throw new Error(`route ${route.path} names a missing operation ${route.operation}`);
      this.runners.set(route.operation, runner(schema, route.operation, document, options.compile ?? true));
    }
  }

  /** The route serving `path`, if any. */
  match(path: string): RouteMatch | undefined {
    for (const { route, pattern, names } of this.compiled) {
      const m = pattern.exec(path);
      if (m) return { route, segments: Object.fromEntries(names.map((n, i) => [n, m[i + 1] ?? ""])) };
    }
    return undefined;
  }

  /**
   * Answers an HTTP request matched to a route: its path segments are still
   * percent-encoded; of repeated query parameters the first counts.
   */
  async call(match: RouteMatch, query: URLSearchParams, context: Context, onError?: (error: unknown) => void): Promise<Answer> {
    const read = argsOf(match, query);
    return "refused" in read ? markDeprecated(match.route, read.refused) : this.answer(match.route, read.args, context, onError);
  }

  /**
   * The kept answer under a cache key from {@link keyOf}, if there is one
   * (counted as a cache hit; a miss is counted by the call that follows).
   * src/lean/path.ts serves it without running the gateway.
   */
  cachedAt(key: string): KeptAnswer | undefined {
    return this.cache?.get(key, { countMiss: false }) as KeptAnswer | undefined;
  }

  /** The cache key of an HTTP request matched to a route; undefined when the cache is off or its arguments are refused. */
  keyOf(match: RouteMatch, query: URLSearchParams): string | undefined {
    if (!this.cache?.enabled) return undefined;
    const read = argsOf(match, query);
    if ("refused" in read) return undefined;
    const prepared = this.prepare(match.route, read.args);
    return "key" in prepared ? prepared.key : undefined;
  }

  /** A call's variables and cache key, or its answer when its arguments refuse it (400, 404) before anything runs. */
  private prepare(route: Route, args: RawArgs): { key: string; values: Record<string, unknown> } | Answer {
    const params = readParams(route.query, args);
    if (!params.ok) return { status: 400, body: failure(params.message) };
    const values: Record<string, unknown> = { ...params.value };
    for (const name of Object.keys(route.pathParams)) {
      const raw = args[name] ?? "";
      if (route.pathParams[name] === "integer") {
        const id = typeof raw === "number" ? raw : /^\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
        if (!Number.isInteger(id) || id < 0 || id > INT32_MAX) return { status: 404, body: failure(`${name} ${raw} not found`) };
        values[name] = id;
      } else {
        const problem = textProblem(String(raw));
        if (problem) return { status: 400, body: failure(`${name} ${problem}`) };
        values[name] = String(raw);
      }
    }
    return { key: `${route.path} ${JSON.stringify(values)}`, values };
  }

  /**
   * Answers one call given its arguments by REST name (path values decoded):
   * 400 for
   * a bad parameter, 404 for a missing resource, 503 when the database cannot
   * answer in time, 500 (`internal error`) for anything else; the cause of a
   * 503 or 500 is passed to `onError`. MCP tools call this directly.
   */
  async answer(route: Route, args: RawArgs, context: Context, onError?: (error: unknown) => void): Promise<Answer> {
    const marked = (answer: Answer) => markDeprecated(route, answer);
    const prepared = this.prepare(route, args);
    if ("status" in prepared) return marked(prepared);
    const { key, values } = prepared;
    const cached = this.cache?.get(key);
    if (cached) return fromKept(cached);
    // An answer begun before the data changes and finished after is not kept (src/cache/answers.ts).
    const since = this.cache?.generation ?? 0;
    try {
      const run = this.runners.get(route.operation)!;
      const attributes = { "graphql.operation.type": "query", "graphql.operation.name": route.operation };
      const result = await inSpan(`query ${route.operation}`, attributes, async (span) => {
        const done = await withDeadline(
          Promise.resolve(run(route.variables(values as never), context)),
          this.timeoutMs,
          `operation ${route.operation}`,
        );
        if (done.errors?.length) span.fail(`${done.errors.length} error(s)`);
        return done;
      });
      if (result.errors?.length) throw new AggregateError(result.errors, `operation ${route.operation} failed`);
      const body = envelope(route.envelope, (result.data as { result?: unknown } | null | undefined)?.result);
      const what = Object.keys(route.pathParams)
        .map((n) => `${n} ${String(values[n])}`)
        .join(", ");
      const answer = marked(body ? { status: 200, body } : { status: 404, body: failure(`${what || "resource"} not found`) });
      if (this.cache?.enabled) this.cache.set(key, keep(answer), context.validForMs(), since);
      return answer;
    } catch (error) {
      onError?.(error);
      if (isUnavailable(error)) {
        return marked({ status: 503, body: failure(UNAVAILABLE_MESSAGE), headers: { "retry-after": String(RETRY_AFTER_SECONDS) } });
      }
      return marked({ status: 500, body: failure("internal error") });
    }
  }
}
