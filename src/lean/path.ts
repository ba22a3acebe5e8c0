/**
 * The lean path: a request whose answer is kept as bytes (src/cache/answers.ts)
 * is answered on Node's own request and response, without a Fetch request,
 * yoga's plugin chain, serialization, compression or a fresh `ETag` hash;
 * and so is every v1 `GET` whose answer is not kept: its operation runs here
 * (rest/api.ts, as yoga's REST plugin runs it), after the key check, and its
 * answer goes out with the headers the gateway gives it; and so is a `POST
 * /graphql` of a document the gateway has answered before ({@link planned},
 * src/plugins/planned-documents.ts). It takes:
 *
 * - a v1 `GET` (its route and validated parameters name it, rest/api.ts), kept or not;
 * - a `GET /graphql` (its query string names it: a document's text or a
 *   persisted hash, with its variables);
 * - a `POST /graphql` (its body, byte for byte);
 * - an MCP `tools/call` in either protocol era (its message but the id, and
 *   the headers the MCP SDK reads); only the JSON-RPC `id` differs from one
 *   call to the next, so the answer is kept without it and each call's id is
 *   written in.
 *
 * A GraphQL or MCP answer becomes one the lean path serves when the gateway
 * made it for a request the lean path had named (src/cache/keep.ts); it is kept under
 * the conditions of the gateway's own cache (useGraphQLCache: a result without
 * errors; an MCP tool: the REST answers that are kept, 200 and 404), and not
 * when the data changed while it was being made.
 *
 * It does what every answer needs, each through the very function the
 * gateway's plugins use:
 *
 * - the request id (`requestIdFrom`), the key check and the limits
 *   (`ApiKeyGuard.check`, which refuses in the surface's shape, 401/429/503);
 * - the security and CORS headers (`securityHeaders`, `answerCorsHeaders`);
 * - a GET's `ETag` kept with the answer, and 304 for a matching
 *   `If-None-Match` (`matches`), with `PUBLIC_CACHE_CONTROL`;
 * - the access log line and the metrics (`recordAccess`), with the trace of
 *   the request's HTTP span.
 *
 * Everything else that guards a request held when its answer was kept, and
 * holds for every request of the same name while the process runs: the
 * document's limits and `TRUSTED_DOCUMENTS` (only a document that passed
 * them has an answer), MCP's origin check (`mcpOriginCheck`, asked here
 * again, since it depends on headers outside the name).
 *
 * A kept answer goes out in the encoding the compression middleware would
 * choose (`encodingFor`), compressed once and kept with it (an MCP answer,
 * whose bytes hold each call's id, is compressed per call). The shutdown's
 * `Connection: close` stays with the HTTP server (src/http.ts). Anything
 * else (another method or path, a target that is not origin-form, a GraphQL
 * or MCP request it cannot name, a body of unknown or large size, a GraphQL
 * or MCP answer not kept) goes to the gateway as it is: so both paths keep docs/contract.md
 * §2's order (404/405, then 401/429, then 400). A `POST /graphql` of a small
 * declared length is read here even when nothing is kept, and handed on with
 * its body read ({@link handOn}).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { Answer, RestApi, RouteMatch } from "../../rest/api.js";
import type { Context } from "../context.js";
import { type AnswerCache, type Encoding, hasBytes, type KeptBytes } from "../cache/answers.js";
import { encode, encodingFor } from "../http.js";
import { type McpOriginOptions, mcpOriginCheck } from "../mcp/plugin.js";
import { recordAccess, requestIdFrom } from "../plugins/access-log.js";
import { type ApiKeyGuard, type KeyCheck, keyCheckedBefore } from "../plugins/api-keys.js";
import { countCompiled, countSql, runCompiled } from "../plugins/compiled-execution.js";
import { variablesProblem } from "../plugins/input-limits.js";
import { type PlannedDocuments, planKey, planRequest } from "../plugins/planned-documents.js";
import { costProblems } from "../plugins/query-limits.js";
import { withDeadline } from "../db/availability.js";
import { getVariableValues } from "graphql";
import { etagOf } from "../cache/etag.js";
import { matches, notModifiedHeaders, PUBLIC_CACHE_CONTROL } from "../plugins/conditional.js";
import { answerCorsHeaders, type CorsPolicy, securityHeaders } from "../plugins/cors.js";
import { refusalBody, type Surface } from "../refusal.js";
import { restUses } from "../usage/coordinates.js";
import type { UsageRecorder } from "../usage/recorder.js";
import { keepGraphQL, type LeanName, nameRequest } from "../cache/keep.js";
import { documentHashOf } from "../keys/restrictions.js";
import { sha256Hex } from "../sha256.js";

export interface LeanPathOptions {
  /** The v1 operations: their kept answers are served, and the others run here too. */
  api: RestApi;
  /**
   * The per-request context a v1 operation runs with (the gateway's own,
   * as `/graphql` has it). Unset: only kept answers are served.
   */
  context?: (() => Context) | undefined;
  /** Where GraphQL and MCP answers are kept as bytes (the v1 ones are found through `api`); unset or off: none are. */
  answers?: AnswerCache | undefined;
  /** The key check and limits; none: answers go out without keys (tests of other concerns only, as the gateway's `auth: false`). */
  guard?: Pick<ApiKeyGuard, "check"> | undefined;
  /** Which origins may read the answers. */
  cors: CorsPolicy;
  /** Which pages may call `/mcp` (the gateway's useMcpOrigins). */
  mcpOrigins?: McpOriginOptions;
  /** Where the access log lines go. */
  log?: Pick<Logger, "info" | "error"> | undefined;
  /** Where the uses of each request of an accepted key are counted (src/usage/recorder.ts). */
  usage?: Pick<UsageRecorder, "record"> | undefined;
  /**
   * The GraphQL documents the gateway has answered, which a `POST /graphql`
   * of the same document runs here (src/plugins/planned-documents.ts), with
   * the limits the gateway's execution has: unset, every one that is not
   * kept goes to the gateway.
   */
  graphql?: { plans: PlannedDocuments; maxCost: number; timeoutMs: number } | undefined;
}

/** A `POST /graphql` body the lean path may run: a document, its variables and operation name, nothing else. */
interface GraphQLBody {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** What is known of a request taken: when it arrived, its id, its surface, its route's template and its path. */
interface Served {
  started: number;
  requestId: string;
  surface: Surface;
  route: string;
  path: string;
  /** What the request used, when its name says it (a v1 GET's route and parameters); otherwise its kept answer's. */
  uses: readonly string[] | undefined;
  /** The SHA-256 of a GraphQL request's document (its text's or the id it sends), read only for a documents-only key. */
  document: (() => string | undefined) | undefined;
}

/**
 * Offered each request first: `true` if it took the request, which it then
 * answers, or hands on whole to `next` (the gateway) once it has read its
 * body and found no kept answer; `false`, decided at once, leaves it to the
 * gateway.
 */
export type LeanPath = (request: IncomingMessage, response: ServerResponse, next: () => void) => boolean;

const JSON_TYPE = "application/json; charset=utf-8";
/** The largest body read to name a POST; a larger one goes to the gateway as it is. */
const MAX_KEYED_BODY = 32 * 1024;

export function leanPath(options: LeanPathOptions): LeanPath {
  const { api, answers, context, guard, cors, log, usage, graphql } = options;
  const originProblem = mcpOriginCheck(options.mcpOrigins);

  /** Writes one answer with the headers every answer has, and records it. */
  function write(
    request: IncomingMessage,
    response: ServerResponse,
    served: Served,
    status: number,
    body: Uint8Array | string,
    own: Readonly<Record<string, string>>,
    checked: KeyCheck | undefined,
    uses: readonly string[] | undefined,
    encoded?: (encoding: Encoding) => Buffer,
  ): void {
    const contentType = own["content-type"] ?? JSON_TYPE;
    const all: Record<string, string> = { "content-type": contentType, ...securityHeaders(contentType), ...checked?.headers };
    const add = (name: string, value: string) => {
      all[name] = name === "vary" && all.vary ? `${all.vary}, ${value}` : value;
    };
    // In the gateway's order: CORS first, then the answer's own Vary (useConditionalGet's), then Accept-Encoding.
    answerCorsHeaders(cors, request.headers.origin, served.surface, status, add);
    for (const [name, value] of Object.entries(own)) add(name, value);
    all["x-request-id"] = served.requestId;
    const ifNoneMatch = request.headers["if-none-match"];
    let bytes = 0;
    if (status === 200 && all.etag && ifNoneMatch && matches(ifNoneMatch, all.etag)) {
      response.writeHead(304, Object.fromEntries(notModifiedHeaders(Object.entries(all)))).end();
      status = 304;
    } else {
      const raw = typeof body === "string" ? Buffer.from(body) : body;
      bytes = raw.length;
      // As the middleware does for every JSON answer.
      add("vary", "Accept-Encoding");
      const encoding = encodingFor(request, bytes);
      const sent = encoding ? (encoded?.(encoding) ?? encode(raw, encoding)) : raw;
      if (encoding) all["content-encoding"] = encoding;
      all["content-length"] = String(sent.length);
      response.writeHead(status, all).end(sent);
    }
    recordAccess(
      { log, usage },
      {
        requestId: served.requestId,
        method: request.method ?? "GET",
        route: served.route,
        path: served.path,
        status,
        seconds: (performance.now() - served.started) / 1000,
        bytes,
        surface: served.surface,
        outcome: checked?.outcome,
        address: request.socket.remoteAddress,
        uses,
      },
    );
  }

  /** Checks the key (and limits) of a request; its refusal, if any, is written. */
  async function checkKey(request: IncomingMessage, response: ServerResponse, served: Served): Promise<KeyCheck | undefined | false> {
    const checked = await guard?.check(
      {
        authorization: request.headers.authorization,
        // The address asked, read as the gateway reads it (the server checked the Host is plain: src/request-target.ts).
        origin: () => `${(request.socket as { encrypted?: boolean }).encrypted ? "https" : "http"}://${request.headers.host}`,
        address: request.socket.remoteAddress,
        originHeader: request.headers.origin,
        referer: request.headers.referer,
        forwardedFor: request.headers["x-forwarded-for"] as string | undefined,
        requestId: served.requestId,
        document: served.document,
      },
      served.surface,
    );
    if (!checked?.refusal) return checked;
    const { status, body, headers } = checked.refusal;
    write(request, response, served, status, body, headers, checked, undefined);
    return false;
  }

  /** Checks the key and writes the kept answer (with the call's id, for an MCP one), or the check's refusal. */
  async function answer(request: IncomingMessage, response: ServerResponse, kept: KeptBytes, served: Served, id?: string): Promise<void> {
    const checked = await checkKey(request, response, served);
    if (checked === false) return;
    writeKept(request, response, kept, served, checked, id);
  }

  /** Writes a kept answer (with the call's id, for an MCP one) to a request whose key was accepted. */
  function writeKept(
    request: IncomingMessage,
    response: ServerResponse,
    kept: KeptBytes,
    served: Served,
    checked: KeyCheck | undefined,
    id?: string,
  ): void {
    const uses = served.uses ?? kept.uses;
    const own = kept.etag ? { ...kept.headers, etag: kept.etag, "cache-control": PUBLIC_CACHE_CONTROL } : (kept.headers ?? {});
    if (kept.idAt !== undefined && id !== undefined) {
      const body = Buffer.concat([kept.bytes.subarray(0, kept.idAt), Buffer.from(id), kept.bytes.subarray(kept.idAt)]);
      write(request, response, served, kept.status, body, own, checked, uses);
      return;
    }
    write(request, response, served, kept.status, kept.bytes, own, checked, uses, (encoding) => {
      // Compressed once, the first time a client asks for this encoding, and kept with the answer.
      kept.encoded ??= {};
      const bytes = kept.encoded[encoding] ?? encode(kept.bytes, encoding);
      kept.encoded[encoding] = bytes;
      return bytes;
    });
  }

  /**
   * Runs a v1 operation no answer is kept for, once the key is accepted, and
   * writes its answer as the gateway would (docs/contract.md §2's order: the
   * key, then the parameters, then the resource): the `ETag` and
   * `Cache-Control` of a 200 as useConditionalGet adds them, a deprecated
   * route's headers, a 503's `Retry-After`.
   */
  async function execute(request: IncomingMessage, response: ServerResponse, match: RouteMatch, query: URLSearchParams, served: Served) {
    const checked = await checkKey(request, response, served);
    if (checked === false) return;
    const onError = (error: unknown) =>
      log?.error({ err: error, path: match.route.path, requestId: served.requestId }, "REST operation failed");
    const done: Answer = await api.call(match, query, context!(), onError);
    const bytes = Buffer.from(done.text ?? JSON.stringify(done.body));
    const ran: KeptBytes = { status: done.status, bytes, headers: done.headers };
    if (done.status === 200) ran.etag = etagOf(bytes);
    writeKept(request, response, ran, served, checked);
  }

  /**
   * A `POST /graphql` of a planned document: run here (the key checked, then
   * the variables' limits, coercion and cost as the gateway checks them),
   * and its answer written as the gateway writes it, and kept when the
   * request was named; handed on to the gateway, its key marked as checked,
   * whenever a check refuses it or the answer has an error, so that the
   * refusal or error is the gateway's own. A document not planned yet is
   * marked, to be planned once the gateway has answered it.
   */
  function planned(
    request: IncomingMessage,
    response: ServerResponse,
    body: Buffer,
    started: number,
    name: LeanName | undefined,
    next: () => void,
  ): void {
    const parsed = graphql && context ? graphqlBody(request, body) : undefined;
    if (!parsed || !graphql) {
      handOn(request, body, next);
      return;
    }
    const key = planKey(
      request.headers.accept ?? "",
      request.headers["content-type"] ?? "",
      parsed.operationName ?? undefined,
      parsed.query,
    );
    const plan = graphql.plans.get(key);
    if (!plan) {
      planRequest(request, key);
      handOn(request, body, next, parsed);
      return;
    }
    const served = servedAs(request, started, "graphql", "/graphql", "/graphql");
    served.document = () => sha256Hex(parsed.query);
    const run = async () => {
      const checked = await checkKey(request, response, served);
      if (checked === false) return;
      const handOver = () => {
        if (checked) keyCheckedBefore(request, checked);
        handOn(request, body, next, parsed);
      };
      const variables = parsed.variables ?? {};
      if (variablesProblem(variables)) return handOver();
      const coerced = getVariableValues(plan.schema, plan.operation.variables, variables);
      if (coerced.errors) return handOver();
      const ctx = context!();
      const call = { schema: plan.schema, document: plan.document, operationName: plan.operationName, variableValues: variables };
      if (costProblems({ ...call, contextValue: ctx }, graphql.maxCost).length > 0) return handOver();
      let result: { data?: unknown; errors?: readonly unknown[] } | undefined;
      try {
        // The document as one statement when its plan has one and covers these variables; else its compiled operation.
        result = plan.sql && (await withDeadline(plan.sql.run(ctx.prisma, coerced.coerced), graphql.timeoutMs, "GraphQL execution"));
        if (result) countSql();
        else {
          const running = runCompiled(plan.operation, ctx, variables);
          result = await withDeadline(Promise.resolve(running), graphql.timeoutMs, "GraphQL execution");
          if (result.errors?.length) return handOver();
          countCompiled();
        }
      } catch {
        return handOver();
      }
      const bytes = Buffer.from(JSON.stringify({ data: result.data }));
      const headers = { "content-type": plan.contentType };
      if (name && answers?.enabled) keepGraphQL(answers, name, bytes, plan.contentType, ctx.validForMs(), plan.uses);
      writeKept(request, response, { status: 200, bytes, headers, uses: plan.uses }, served, checked);
    };
    guarded(request, response, served, run());
  }

  /** Runs `work` (which writes an answer), and writes a 500 in the surface's shape if it fails. */
  function guarded(request: IncomingMessage, response: ServerResponse, served: Served, work: Promise<void>): void {
    work.catch((error: unknown) => {
      log?.error({ err: error, requestId: served.requestId }, "answering on the lean path failed");
      if (response.headersSent) response.destroy();
      else
        write(
          request,
          response,
          served,
          500,
          refusalBody(served.surface, "internal error", { graphql: "INTERNAL_SERVER_ERROR", rpc: -32603 }),
          {},
          undefined,
          undefined,
        );
    });
  }

  /** Answers a kept answer, and writes a 500 in the surface's shape if that fails. */
  function serve(request: IncomingMessage, response: ServerResponse, kept: KeptBytes, served: Served, id?: string): void {
    guarded(request, response, served, answer(request, response, kept, served, id));
  }

  const servedAs = (
    request: IncomingMessage,
    started: number,
    surface: Surface,
    route: string,
    path: string,
    uses?: readonly string[],
  ): Served => ({
    started,
    requestId: requestIdFrom(header(request.headers["x-request-id"])),
    surface,
    route,
    path,
    uses,
    // Set on every one, so that every Served has one shape.
    document: undefined,
  });

  /**
   * A v1 GET: its kept answer, found through its route and validated
   * parameters, or (with a context to run it in) its operation's.
   */
  function rest(request: IncomingMessage, response: ServerResponse, target: string, started: number, next: () => void): boolean {
    const url = new URL(target, "http://gateway");
    const match = api.match(url.pathname);
    if (!match) return false;
    const served = () => servedAs(request, started, "rest", match.route.path, url.pathname, restUses(match.route.path, url.searchParams));
    const run = context ? () => executed(request, response, match, url.searchParams, served()) : next;
    // The route's arguments are read once: for this process's kept answer, then for Redis's.
    const key = api.keyOf(match, url.searchParams);
    if (key === undefined) {
      if (!context) return false;
      run();
      return true;
    }
    const kept = api.cachedAt(key);
    if (kept) {
      serve(request, response, kept, served());
      return true;
    }
    if (answers?.sharing) return fromShared(key, (found) => serve(request, response, found, served()), run);
    if (!context) return false;
    run();
    return true;
  }

  /** Runs a v1 operation on the lean path ({@link execute}), a 500 in REST's shape if that fails. */
  function executed(request: IncomingMessage, response: ServerResponse, match: RouteMatch, query: URLSearchParams, served: Served) {
    guarded(request, response, served, execute(request, response, match, query, served));
  }

  /**
   * Looks `key` up in Redis (another process's answer) and serves it with
   * `hit`, or hands the request on with `miss`; a failed lookup is a miss.
   */
  function fromShared(key: string, hit: (kept: KeptBytes) => void, miss: () => void): true {
    answers!.fromShared(key).then(
      (found) => (found && hasBytes(found) ? hit(found) : miss()),
      () => miss(),
    );
    return true;
  }

  /** A GET /graphql, named by its query string and the media type it accepts. */
  function graphqlGet(
    answers: AnswerCache,
    request: IncomingMessage,
    response: ServerResponse,
    target: string,
    started: number,
    next: () => void,
  ): boolean {
    const key = `graphql GET ${request.headers.accept ?? ""} ${target}`;
    const kept = answers.bytes(key);
    const served = () => {
      const named = servedAs(request, started, "graphql", "/graphql", "/graphql");
      named.document = () => documentHashOf(Object.fromEntries(new URLSearchParams(target.slice(target.indexOf("?") + 1))), sha256Hex);
      return named;
    };
    if (kept) {
      serve(request, response, kept, served());
      return true;
    }
    const compute = () => nameRequest(request, { key, since: answers.generation, get: true });
    if (!answers.sharing) {
      compute();
      return false;
    }
    return fromShared(
      key,
      (found) => serve(request, response, found, served()),
      () => {
        compute();
        next();
      },
    );
  }

  /** A POST to /graphql or /mcp: named once its body is read, and answered, or handed on to the gateway with it. */
  function post(
    answers: AnswerCache | undefined,
    request: IncomingMessage,
    response: ServerResponse,
    surface: "graphql" | "mcp",
    started: number,
    next: () => void,
  ) {
    readBody(request).then(
      (body) => {
        if (body === undefined) return response.destroy();
        if (!answers) return planned(request, response, body, started, undefined, next);
        const name = surface === "graphql" ? graphqlPostName(request, body) : mcpName(request, body);
        const servable = () =>
          name !== undefined &&
          (surface === "graphql" || !originProblem(new URL(`http://${request.headers.host}`), header(request.headers.origin)));
        const answerWith = (kept: KeptBytes) => {
          const id = name?.id === undefined ? undefined : JSON.stringify(name.id);
          const served = servedAs(request, started, surface, `/${surface}`, `/${surface}`);
          if (surface === "graphql") served.document = () => documentHashOf(jsonObject(body) ?? {}, sha256Hex);
          serve(request, response, kept, served, id);
        };
        const compute = () => {
          const named = name && { ...name, since: answers.generation };
          if (named) nameRequest(request, named);
          if (surface === "graphql") planned(request, response, body, started, named, next);
          else handOn(request, body, next);
        };
        const kept = name && answers.bytes(name.key);
        if (kept && servable()) return answerWith(kept);
        if (name && !kept && answers.sharing && servable()) return void fromShared(name.key, answerWith, compute);
        compute();
      },
      () => response.destroy(),
    );
  }

  const keeping = answers?.enabled ? answers : undefined;
  if (!keeping && !context) return () => false;
  return (request, response, next) => {
    const target = request.url;
    // The server read the target and Host before offering the request (src/request-target.ts,
    // createHttpServer): the target is in origin form and the Host, when there is one, a plain host[:port].
    if (!target || !request.headers.host) return false;
    const started = performance.now();
    if (request.method === "GET") {
      if (target.startsWith("/api/v1/")) return rest(request, response, target, started, next);
      if (target.startsWith("/graphql?") && keeping) return graphqlGet(keeping, request, response, target, started, next);
      return false;
    }
    if (request.method !== "POST" || !(target === "/graphql" || (target === "/mcp" && keeping))) return false;
    const length = Number(request.headers["content-length"]);
    // A body of unknown length (chunked) or a large one goes to the gateway unread.
    if (!(length > 0 && length <= MAX_KEYED_BODY) || request.headers["transfer-encoding"] !== undefined) return false;
    post(keeping, request, response, target === "/graphql" ? "graphql" : "mcp", started, next);
    return true;
  };
}

/** A POST /graphql's name: its body as it is, with the media types it is in and accepts. */
function graphqlPostName(request: IncomingMessage, body: Buffer): Omit<LeanName, "since"> | undefined {
  const type = request.headers["content-type"];
  if (!type?.startsWith("application/json")) return undefined;
  return { key: `graphql POST ${request.headers.accept ?? ""} ${type} ${body.toString("latin1")}`, get: false };
}

/** A body that is a JSON object (UTF-8), parsed; undefined for any other. */
function jsonObject(body: Buffer): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
}

/**
 * An MCP `tools/call`'s name: the message as parsed (the SDK reads it so)
 * with its id set aside, and every header the SDK reads (`Accept`,
 * `Content-Type` and the `Mcp-*` ones, of either era). Any other message,
 * or one whose id is not a string or an integer, has none.
 */
function mcpName(request: IncomingMessage, body: Buffer): Omit<LeanName, "since"> | undefined {
  const message = jsonObject(body);
  if (!message) return undefined;
  const { id, method } = message;
  if (method !== "tools/call" || !(typeof id === "string" || Number.isSafeInteger(id))) return undefined;
  const headers = Object.entries(request.headers)
    .filter(([name]) => name === "accept" || name === "content-type" || name.startsWith("mcp-"))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return { key: `mcp ${JSON.stringify(headers)} ${JSON.stringify({ ...message, id: 0 })}`, get: false, id: id as string | number };
}

/**
 * Hands a request whose body was read here on to the gateway, which reads it
 * from `request.body` (@whatwg-node/server's normalizeNodeRequest). A GraphQL
 * request's JSON object goes parsed: the gateway's Request then has no body
 * stream, which yoga would pipe through a stream of its own to bound its
 * size (a third of the CPU of the request's HTTP layer), and its parser takes
 * the object as it is. Anything else, or a body that is not a JSON object
 * with members, goes as its bytes, and yoga reads it as it reads any body.
 * `parsed`: the body as the lean path has parsed it already, handed on as it is.
 */
function handOn(request: IncomingMessage, body: Buffer, next: () => void, parsed?: GraphQLBody): void {
  let value: unknown = parsed ?? body;
  if (parsed === undefined && request.url === "/graphql" && request.headers["content-type"]?.startsWith("application/json")) {
    // Not a JSON object with members: yoga answers it as it answers any such body.
    const object = jsonObject(body);
    if (object && Object.keys(object).length > 0) value = object;
  }
  (request as IncomingMessage & { body?: unknown }).body = value;
  next();
}

/**
 * A `POST /graphql` body that names a document by its text, as JSON with
 * nothing but `query`, `variables` and `operationName`; undefined for any
 * other (a persisted query's hash, extensions, a batch), which only the
 * gateway answers.
 */
function graphqlBody(request: IncomingMessage, body: Buffer): GraphQLBody | undefined {
  if (!request.headers["content-type"]?.startsWith("application/json")) return undefined;
  const parsed = jsonObject(body);
  if (!parsed) return undefined;
  const { query, variables, operationName, ...rest } = parsed;
  if (Object.keys(rest).length > 0 || typeof query !== "string") return undefined;
  if (!(variables === undefined || variables === null || (typeof variables === "object" && !Array.isArray(variables)))) return undefined;
  if (!(operationName === undefined || operationName === null || typeof operationName === "string")) return undefined;
  // Each member was checked above.
  return parsed as unknown as GraphQLBody;
}

/** The whole body of a request whose declared length is small; undefined when it ends short or fails. */
function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_KEYED_BODY) request.destroy();
      else chunks.push(chunk);
    });
    request.on("end", () => resolve(size > MAX_KEYED_BODY ? undefined : Buffer.concat(chunks)));
    request.on("error", reject);
    request.on("close", () => resolve(undefined));
  });
}

/** One value of a header Node may have joined or listed. */
const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
