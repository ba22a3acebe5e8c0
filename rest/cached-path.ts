/**
 * The cached path: a v1 `GET` whose answer is kept (src/cache/answers.ts) is
 * answered on Node's own request and response, without a Fetch request,
 * yoga's plugin chain or a fresh `ETag` hash. It does what every answer needs,
 * each through the very function the gateway's plugins use:
 *
 * - the request id (`requestIdFrom`), the key check and the limits
 *   (`ApiKeyGuard.check`, which refuses in the REST shape, 401/429/503);
 * - the security and CORS headers (`securityHeaders`, `answerCorsHeaders`);
 * - the `ETag` kept with the answer, and 304 for a matching `If-None-Match`
 *   (`matches`), with `PUBLIC_CACHE_CONTROL`;
 * - the access log line and the metrics (`recordAccess`).
 *
 * A kept answer goes out in the encoding the compression middleware would
 * choose (`encodingFor`), compressed once and kept with it. The shutdown's
 * `Connection: close` stays with the HTTP server (src/http.ts). Anything else (another method or
 * path, a target that is not origin-form, parameters that would be refused,
 * an answer not kept) returns `false` at once, before the key is looked at,
 * and the gateway answers it as usual: so both paths keep docs/contract.md
 * §2's order (404/405, then 401/429, then 400).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Encoding, encode, encodingFor } from "../src/http.js";
import type { Logger } from "pino";
import type { KeptAnswer, RestApi } from "./api.js";
import { recordAccess, requestIdFrom } from "../src/plugins/access-log.js";
import type { ApiKeyGuard, KeyCheck } from "../src/plugins/api-keys.js";
import { matches, notModifiedHeaders, PUBLIC_CACHE_CONTROL } from "../src/plugins/conditional.js";
import { answerCorsHeaders, type CorsPolicy, securityHeaders } from "../src/plugins/cors.js";
import { refusalBody } from "../src/plugins/error-shapes.js";

export interface CachedPathOptions {
  /** The v1 operations, whose kept answers are served. */
  api: RestApi;
  /** The key check and limits; none: answers go out without keys (tests of other concerns only, as the gateway's `auth: false`). */
  guard?: Pick<ApiKeyGuard, "check"> | undefined;
  /** Which origins may read the answers. */
  cors: CorsPolicy;
  /** Where the access log lines go. */
  log?: Pick<Logger, "info" | "error"> | undefined;
}

/** What is known of a request taken: when it arrived, its id, its route's template and its path. */
interface Served {
  started: number;
  requestId: string;
  route: string;
  path: string;
}

/** Takes a request and answers it (`true`), or leaves it to the gateway (`false`, decided at once). */
export type CachedPath = (request: IncomingMessage, response: ServerResponse) => boolean;

const JSON_TYPE = "application/json; charset=utf-8";

export function cachedPath(options: CachedPathOptions): CachedPath {
  const { api, guard, cors, log } = options;
  const rest = "rest" as const;

  /** Writes one answer with the headers every answer has, and records it. */
  function write(
    request: IncomingMessage,
    response: ServerResponse,
    served: Served,
    status: number,
    body: Uint8Array | string,
    headers: Readonly<Record<string, string>>,
    checked: KeyCheck | undefined,
    encoded?: (encoding: Encoding) => Buffer,
  ): void {
    const all: Record<string, string> = { "content-type": JSON_TYPE, ...headers, ...securityHeaders(JSON_TYPE), ...checked?.headers };
    answerCorsHeaders(cors, request.headers.origin, rest, status, (name, value) => {
      all[name] = name === "vary" && all.vary ? `${all.vary}, ${value}` : value;
    });
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
      all.vary = all.vary ? `${all.vary}, Accept-Encoding` : "Accept-Encoding";
      const encoding = encodingFor(request, bytes);
      const sent = encoding ? (encoded?.(encoding) ?? encode(raw, encoding)) : raw;
      if (encoding) all["content-encoding"] = encoding;
      all["content-length"] = String(sent.length);
      response.writeHead(status, all).end(sent);
    }
    recordAccess(log, {
      requestId: served.requestId,
      method: "GET",
      route: served.route,
      path: served.path,
      status,
      seconds: (performance.now() - served.started) / 1000,
      bytes,
      surface: rest,
      outcome: checked?.outcome,
      address: request.socket.remoteAddress,
    });
  }

  /** Checks the key and writes the kept answer, or the check's refusal. */
  async function answer(request: IncomingMessage, response: ServerResponse, kept: KeptAnswer, served: Served): Promise<void> {
    const checked = await guard?.check(
      {
        authorization: request.headers.authorization,
        // The address asked, read as the gateway reads it (the server checked the Host is plain: src/request-target.ts).
        origin: () => `${(request.socket as { encrypted?: boolean }).encrypted ? "https" : "http"}://${request.headers.host}`,
        address: request.socket.remoteAddress,
        requestId: served.requestId,
      },
      rest,
    );
    if (checked?.refusal) {
      const { status, body, headers } = checked.refusal;
      return write(request, response, served, status, body, headers, checked);
    }
    const headers = kept.etag ? { ...kept.headers, etag: kept.etag, "cache-control": PUBLIC_CACHE_CONTROL } : { ...kept.headers };
    write(request, response, served, kept.status, kept.bytes, headers, checked, (encoding) => {
      // Compressed once, the first time a client asks for this encoding, and kept with the answer.
      kept.encoded ??= {};
      const bytes = kept.encoded[encoding] ?? encode(kept.bytes, encoding);
      kept.encoded[encoding] = bytes;
      return bytes;
    });
  }

  return (request, response) => {
    const target = request.url;
    if (request.method !== "GET" || !target?.startsWith("/api/v1/")) return false;
    // The server read the target and Host before offering the request (src/request-target.ts,
    // createHttpServer): the target is in origin form and the Host, when there is one, a plain host[:port].
    if (!request.headers.host) return false;
    const started = performance.now();
    const url = new URL(target, "http://gateway");
    const match = api.match(url.pathname);
    const kept = match && api.cached(match, url.searchParams);
    if (!match || !kept) return false;
    const served: Served = {
      started,
      requestId: requestIdFrom(header(request.headers["x-request-id"])),
      route: match.route.path,
      path: url.pathname,
    };
    answer(request, response, kept, served).catch((error: unknown) => {
      log?.error({ err: error, requestId: served.requestId }, "answering a kept answer failed");
      if (response.headersSent) response.destroy();
      else
        write(
          request,
          response,
          served,
          500,
          refusalBody(rest, "internal error", { graphql: "INTERNAL_SERVER_ERROR", rpc: -32603 }),
          {},
          undefined,
        );
    });
    return true;
  };
}

/** One value of a header Node may have joined or listed. */
const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
