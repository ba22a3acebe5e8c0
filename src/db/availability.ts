/**
 * Telling a dependency's failure from a bug: a database that is unreachable,
 * restarting, frozen or too slow gives 503 with `Retry-After` on every surface
 * (docs/contract.md §2), never a 500 and never the end of the process.
 */

/** What a client is told while the database cannot answer. */
export const UNAVAILABLE_MESSAGE = "service unavailable: the database is unreachable or too slow; retry shortly";

/** Seconds a client is asked to wait (`Retry-After`) after a 503. */
export const RETRY_AFTER_SECONDS = 2;

/** A wait for a dependency that ran out of time. */
class Unavailable extends Error {
  override name = "Unavailable";
}

/** Node's socket errors: the server is not there (ENOENT: no Unix socket), or went away. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ENOENT",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs of an unavailable server: connection exceptions (class 08),
 * shutdown and start-up (57P01-57P03), a statement cancelled by
 * `statement_timeout` (57014), and no connection slot left (53300).
 */
const unavailableState = (code: string) => /^08/.test(code) || ["57P01", "57P02", "57P03", "57014", "53300"].includes(code);

/** Prisma's codes for the same: unreachable, timed out, closed, pool timeout, too many connections. */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2037"]);

/** The driver adapter's kinds for the same. */
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);

/** node-postgres's own messages for a lost or unobtainable connection. */
const PG_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Cannot use a pool after calling end)/;

/**
 * Whether `error` (or anything it wraps: `cause`, `originalError`, the
 * errors of an AggregateError, a driver adapter's cause) says the database
 * could not answer, rather than that the request or the code was wrong.
 */
export function isUnavailable(error: unknown, seen = new Set<unknown>()): boolean {
  if (error === null || typeof error !== "object" || seen.has(error)) return false;
  seen.add(error);
  const e = error as Record<string, unknown>;
  if (error instanceof Unavailable) return true;
  const code = typeof e.code === "string" ? e.code : typeof e.originalCode === "string" ? e.originalCode : undefined;
  if (code && (SOCKET_CODES.has(code) || PRISMA_CODES.has(code) || unavailableState(code))) return true;
  if (typeof e.kind === "string" && ADAPTER_KINDS.has(e.kind)) return true;
  if (typeof e.message === "string" && PG_MESSAGES.test(e.message)) return true;
  const inner = [e.cause, e.originalError, (e.meta as Record<string, unknown> | undefined)?.driverAdapterError];
  if (Array.isArray(e.errors)) inner.push(...e.errors);
  return inner.some((next) => isUnavailable(next, seen));
}

/**
 * `work`, or an `Unavailable` rejection once `ms` have passed. The work itself
 * goes on (the database's own limits end it); the caller stops waiting.
 *
 * A deadline that passes while the event loop is busy (a long synchronous
 * stretch of this process) is judged only after the loop has read what
 * arrived meanwhile: timers run before the loop polls for I/O, so an answer
 * that came in time would otherwise be refused as late. The rejection waits
 * for `setImmediate`, which runs after that poll.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // Once `work` has settled, this rejection does nothing.
    const late = () => reject(new Unavailable(`${what} took longer than ${ms} ms`));
    const timer = setTimeout(() => setImmediate(late), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
