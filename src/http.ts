/**
 * The Node HTTP server around the gateway. Node's own parser refuses some
 * requests before the gateway sees them (a raw non-ASCII byte in the URL, a
 * malformed or oversized header, garbage); those refusals are answered here,
 * in JSON like every other answer, instead of an empty 400, with a request id
 * and a log line of their own.
 *
 * Answers of 1 KB or more are compressed (gzip, deflate or brotli, as the
 * client's `Accept-Encoding` prefers), by the `compression` middleware; a
 * kept answer taken by the lean path (src/lean/path.ts) goes out in the
 * encoding the same rules choose ({@link encodingFor}), compressed once.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import { Server as NetServer, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { brotliCompressSync, constants, deflateSync, gzipSync } from "node:zlib";
import compression from "compression";
import Negotiator from "negotiator";
import type { Logger } from "pino";
import { newRequestId } from "./plugins/access-log.js";
import type { Encoding } from "./cache/answers.js";
import { requests } from "./observe/metrics.js";
import { failure } from "./refusal.js";
import { NOT_A_PATH, readTarget } from "./request-target.js";

/** Node's parser error codes, and what the client is told. */
function refusal(code: string | undefined): { status: number; message: string } {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, message: "request headers too large" };
    case "HPE_INVALID_URL":
      return { status: 400, message: NOT_A_PATH };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, message: "request not received in time" };
    default:
      return { status: 400, message: "malformed HTTP request" };
  }
}

/** How long a draining server waits for the first request of a connection it accepted before the signal. */
const FIRST_REQUEST_GRACE_MS = 1_000;
/**
 * How long a draining server with no answer in flight must go without a new
 * connection before it closes its listener. Node accepts one queued
 * connection per turn of its event loop, and under load a turn takes tens of
 * milliseconds: 30 connections queued at the signal took more than a second
 * to accept, and closing the listener sooner reset them.
 */
const QUIET_MS = 100;
/** Servers being drained: every answer they write closes its connection. */
const draining = new WeakSet<Server>();

const REASONS: Record<number, string> = {
  400: "Bad Request",
  404: "Not Found",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

/**
 * Each server's connections that are idle between two requests of their
 * own: a drain may close these at once. A connection not yet in it has not
 * sent (or Node has not yet read) its first request, or is being answered.
 */
const idleAfterAnswer = new WeakMap<Server, Set<Socket>>();
/** The answers being written by each server, so that a drain can close their connections after them. */
const inFlight = new WeakMap<Server, Set<ServerResponse>>();

export interface HttpServerOptions {
  /** Where the parser's refusals are logged (the gateway logs every other answer). */
  log?: Pick<Logger, "info">;
  /**
   * Offered each request first: `true` if it took the request, whose answer
   * it writes whole and encoded itself (the lean path), or hands on to
   * `next` (the middleware and `handler`) later; `false`, decided at once,
   * leaves it to them. Offered after the request target and Host were read
   * (src/request-target.ts): the target is in origin form and the Host, if
   * any, a plain host[:port].
   */
  first?: ((request: IncomingMessage, response: ServerResponse, next: () => void) => boolean) | undefined;
}

/** Bodies shorter than this go out as they are. */
const THRESHOLD = 1024;
/** Brotli's quality (the middleware's default): fast, and smaller than gzip's best. */
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };
/** The encodings offered, and which win when the client accepts several equally (the middleware's own lists). */
const ENCODINGS = ["br", "gzip", "deflate", "identity"] as const;
const PREFERRED = ["br", "gzip"] as const;

/**
 * The encoding in which a body of `length` bytes goes to `request`, as the
 * middleware chooses it (a test holds the two to the same choices);
 * undefined: as it is.
 */
export function encodingFor(request: IncomingMessage, length: number): Encoding | undefined {
  if (length < THRESHOLD || !request.headers["accept-encoding"]) return undefined;
  const chosen = new Negotiator(request).encoding(ENCODINGS, { preferred: PREFERRED });
  return chosen === "identity" ? undefined : (chosen as Encoding | undefined);
}

/** `body` compressed with `encoding`, with the middleware's settings. */
export function encode(body: Uint8Array, encoding: Encoding): Buffer {
  return encoding === "br" ? brotliCompressSync(body, BROTLI) : encoding === "gzip" ? gzipSync(body) : deflateSync(body);
}

/** Compresses what is worth it; never an event stream, which must reach the client event by event. */
const compress = compression({
  threshold: THRESHOLD,
  brotli: BROTLI,
  filter: (request, response) =>
    !String(response.getHeader("content-type") ?? "").startsWith("text/event-stream") && compression.filter(request, response),
});

/**
 * A request refused before any route saw it, in JSON like every other
 * answer: the head and body to write, counted and logged with a request id.
 */
function refused(status: number, message: string, socket: Socket, reason: string, log: HttpServerOptions["log"], by = "the HTTP parser") {
  const body = JSON.stringify(failure(message));
  const requestId = newRequestId();
  requests.inc({ surface: "page", route: "(unparsed)", method: "(unparsed)", status });
  log?.info(
    { requestId, route: "(unparsed)", status, bytes: Buffer.byteLength(body), surface: "page", address: socket.remoteAddress, reason },
    `request refused by ${by}`,
  );
  const head = {
    "content-type": "application/json; charset=utf-8",
    "x-content-type-options": "nosniff",
    "x-request-id": requestId,
    "content-length": String(Buffer.byteLength(body)),
    connection: "close",
  };
  return { head, body };
}

/** A server answering with `handler`, its parser's refusals in JSON. */
export function createHttpServer(handler: RequestListener, options: HttpServerOptions = {}): Server {
  const answers = new Set<ServerResponse>();
  const idle = new Set<Socket>();
  const server = createServer((request, response) => {
    answers.add(response);
    const socket = request.socket;
    idle.delete(socket);
    response.once("close", () => {
      answers.delete(response);
      if (!socket.destroyed && server.listening && !draining.has(server)) idle.add(socket);
    });
    if (!server.listening || draining.has(server)) response.setHeader("connection", "close");
    const read = readTarget(request.url ?? "", request.headers.host);
    if ("refused" in read) {
      const { head, body } = refused(read.status, read.refused, socket, "request target", options.log, "its request target");
      response.writeHead(read.status, REASONS[read.status], head).end(request.method === "HEAD" ? undefined : body);
      return;
    }
    request.url = read.target;
    if (read.host !== undefined) request.headers.host = read.host;
    // The middleware's types are Express'; it uses only what Node's own objects have.
    const next = () =>
      compress(request as Parameters<typeof compress>[0], response as Parameters<typeof compress>[1], () => handler(request, response));
    if (!options.first?.(request, response, next)) next();
  });
  inFlight.set(server, answers);
  idleAfterAnswer.set(server, idle);
  server.on("connection", (socket: Socket) => socket.once("close", () => idle.delete(socket)));
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, message } = refusal(error.code);
    const { head, body } = refused(status, message, socket, error.code ?? "parser", options.log);
    socket.end(
      `HTTP/1.1 ${status} ${REASONS[status]}\r\n${Object.entries(head)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("")}\r\n${body}`,
    );
  });
  return server;
}

/**
 * Stops `server` gracefully: keep-alive connections idle after an answer are
 * closed, and each answer in flight is written whole and then closes its
 * connection (`Connection: close`). The listener stays open, and what it
 * accepts is answered the same way, until no answer is in flight and no
 * connection came for {@link QUIET_MS} (or half of `timeoutMs` passed): the
 * connections clients opened before the signal wait in the kernel's queue
 * until Node accepts them, and closing the listener would reset them. A
 * connection accepted whose first request has not been read yet (Node calls
 * it idle too, but its client is waiting for an answer) is answered the same
 * way; one that sends nothing within {@link FIRST_REQUEST_GRACE_MS} of the
 * listener's close is closed. Resolves `true` when the last connection is
 * done, or `false` after `timeoutMs`, having cut the rest.
 */
export async function drain(server: Server, timeoutMs: number): Promise<boolean> {
  const started = performance.now();
  draining.add(server);
  const answers = inFlight.get(server) ?? new Set();
  for (const response of answers) if (!response.headersSent) response.setHeader("connection", "close");
  const idle = idleAfterAnswer.get(server);
  for (const socket of idle ?? []) socket.destroy();
  idle?.clear();
  let accepted = 0;
  const count = () => accepted++;
  server.on("connection", count);
  for (let before = -1; before !== accepted || answers.size > 0; ) {
    if (performance.now() - started > timeoutMs / 2) break;
    before = accepted;
    await sleep(QUIET_MS);
  }
  server.off("connection", count);
  // net.Server's close, not http.Server's: the latter also closes every connection Node calls idle,
  // the accepted ones whose request it has not read yet included.
  const closed = new Promise<boolean>((resolve) => NetServer.prototype.close.call(server, () => resolve(true)));
  // Connections that never sent a request: closed after the grace, as Node's own check would.
  setTimeout(() => server.closeIdleConnections(), FIRST_REQUEST_GRACE_MS).unref();
  const left = Math.max(0, timeoutMs - (performance.now() - started));
  const inTime = await Promise.race([closed, sleep(left, false, { ref: false })]);
  if (!inTime) server.closeAllConnections();
  return inTime;
}
