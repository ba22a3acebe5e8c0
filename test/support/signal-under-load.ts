/**
 * A shutdown signal under load, counted on raw sockets: `count` connections
 * are opened and each sends one slow GraphQL request, the signal follows
 * `afterMs` later, and each connection's bytes are read to its end. Also, a
 * connection opened before the signal asks `/readyz` once the gateway has
 * logged that it is stopping, and a few clients connect after the signal.
 *
 * The gateway must log at `info` (each serving process's "stopping" line is awaited).
 */
import { connect, type Socket } from "node:net";
import { expect } from "vitest";
import { parseResponse, type RawAnswer } from "./socket.js";

/** Every school with its first 20 courses: one of the slowest answers (the bench's nested GraphQL case). */
const NESTED = JSON.stringify({
  query: "{ universities { nodes { code courses(first: 20) { nodes { databaseId courseNameChinese instructor semester } } } } }",
});

export interface Ending {
  /** The answer, where one came whole. */
  answer?: RawAnswer;
  /** The socket's error code (ECONNRESET, ECONNREFUSED), or "incomplete" for bytes that are no whole answer. */
  error?: string;
}

export interface SignalOutcome {
  /** One per connection opened before the signal. */
  before: Ending[];
  /** `/readyz`, asked after the signal on a connection opened before it. */
  readiness: Ending;
  /** Connections opened after the signal. */
  after: Ending[];
  /** Milliseconds from the signal to the process's exit, and its exit code. */
  exitMs: number;
  code: number | null;
}

export interface SignalOptions {
  port: number;
  key: string;
  /** Sends the signal. */
  signal: () => void;
  /** The process's exit code when it ends. */
  exited: Promise<number | null>;
  /** The process's output so far. */
  output: () => string;
  /** How many serving processes log that they stop (the workers of WEB_CONCURRENCY; the primary's own line is not one). */
  stoppers: number;
  count?: number;
  afterMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A connection to `port` on loopback, once it is open. */
export function opened(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Everything `socket` receives until it closes, read as one answer. */
export function ending(socket: Socket): Promise<Ending> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? String(e)));
    socket.on("close", () => {
      if (error) return resolve({ error });
      try {
        resolve({ answer: parseResponse(Buffer.concat(chunks)) });
      } catch {
        resolve({ error: "incomplete" });
      }
    });
  });
}

function post(socket: Socket, key: string): void {
  socket.write(
    `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(NESTED)}\r\n\r\n${NESTED}`,
  );
}

export async function signalUnderLoad(options: SignalOptions): Promise<SignalOutcome> {
  const { port, key, count = 30, afterMs = 30 } = options;
  const sockets = await Promise.all(Array.from({ length: count + 1 }, () => opened(port)));
  const asker = sockets.pop()!;
  const before = sockets.map(ending);
  const readinessEnding = ending(asker);
  for (const socket of sockets) post(socket, key);
  await sleep(afterMs);
  const signalled = performance.now();
  const exited = options.exited.then((code) => ({ code, exitMs: performance.now() - signalled }));
  options.signal();

  // New clients for a while after the signal: each is answered whole or refused, never left hanging.
  const after: Promise<Ending>[] = [];
  const late = (async () => {
    for (let i = 0; i < 5; i++) {
      await sleep(40);
      const socket = connect(port, "127.0.0.1");
      after.push(ending(socket));
      socket.once("connect", () => post(socket, key));
    }
  })();

  const stopping = () =>
    options
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"stopping: answering')).length;
  while (stopping() < options.stoppers && performance.now() - signalled < 10_000) await sleep(5);
  asker.write("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");

  await late;
  return {
    before: await Promise.all(before),
    readiness: await readinessEnding,
    after: await Promise.all(after),
    ...(await exited),
  };
}

/** Whether `ending` is a whole GraphQL answer with data and no errors. */
function wholeData(ending: Ending): boolean {
  if (ending.answer?.status !== 200) return false;
  try {
    const result = JSON.parse(ending.answer.body) as { data?: { universities?: { nodes: unknown[] } }; errors?: unknown };
    return result.errors === undefined && (result.data?.universities?.nodes.length ?? 0) > 0;
  } catch {
    return false;
  }
}

/**
 * What a drained shutdown is: every request sent before the signal answered
 * whole with its data; `/readyz` 503 "stopping", closing its connection;
 * each client that came after the signal answered whole or refused (or,
 * racing the listener's close, reset), never answered in part; the process
 * gone with 0 within `timeoutMs`.
 */
export function expectDrained(outcome: SignalOutcome, timeoutMs: number, output: string): void {
  // Each answer that is not whole with its body, and the gateway's errors, so that a failure says why.
  const summary = (endings: Ending[]) =>
    endings.map((e) => e.error ?? (wholeData(e) ? e.answer?.status : `${e.answer?.status} ${e.answer?.body.slice(0, 300)}`));
  const errors = output.split("\n").filter((line) => /"level":(50|60)/.test(line));
  expect(
    outcome.before.filter(wholeData).length,
    `answers to the requests sent before the signal: ${summary(outcome.before)}\n${errors.join("\n")}`,
  ).toBe(outcome.before.length);
  expect(outcome.readiness.answer, `/readyz after the signal: ${outcome.readiness.error}`).toMatchObject({
    status: 503,
    headers: { connection: "close", "retry-after": expect.any(String) },
  });
  expect(JSON.parse(outcome.readiness.answer!.body)).toEqual({ status: "stopping" });
  for (const late of outcome.after) {
    if (late.answer)
      expect(wholeData(late), `a client after the signal: ${late.answer.status} ${late.answer.body.slice(0, 200)}`).toBe(true);
    else expect(["ECONNREFUSED", "ECONNRESET"]).toContain(late.error);
  }
  expect(outcome.code, output).toBe(0);
  expect(outcome.exitMs).toBeLessThan(timeoutMs);
}
