/**
 * The gateway as operators run it: `npm start`'s entry (`src/main.ts`) in a
 * child process of its own, on a free port, for the tests in which the
 * process itself is under test (several processes sharing limits, a process
 * that must outlive its database).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { FLUSH_MS } from "../../src/logger.js";
import { builtCommand } from "./built.js";
import { freePorts } from "./servers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface GatewayProcess {
  name: string;
  child: ChildProcess;
  /** Its address; with PORT=0 in its variables, the one its start announced ("" until then). */
  readonly base: string;
  /** Standard output and error so far. */
  output(): string;
  /** Its WEB_CONCURRENCY (1 when unset). */
  workers: number;
  /** Whether the process is still running. */
  readonly alive: boolean;
  /** Resolves with the exit code when the process ends. */
  exited: Promise<number | null>;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
  /** Milliseconds from sending to the whole body. */
  ms: number;
}

const running: GatewayProcess[] = [];

export interface StartOptions {
  /** The program and its arguments, run in the repository (default: `src/main.ts` from the run's build, `built.ts`). */
  command?: readonly [string, ...string[]];
}

/** Starts `src/main.ts` (or `command`) with `env`, on a free port; `LOG_LEVEL` is silent unless given. */
export async function startGateway(name: string, env: Record<string, string>, options: StartOptions = {}): Promise<GatewayProcess> {
  const listen = (await freePorts(1))[0]!;
  const [program, ...args] = options.command ?? builtCommand("src/main.ts");
  const child = spawn(program, args, {
    cwd: ROOT,
    env: { ...process.env, HOST: "127.0.0.1", PORT: String(listen), LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: its workers (WEB_CONCURRENCY) go with it
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const fixed = `http://127.0.0.1:${listen}`;
  const gateway: GatewayProcess = {
    name,
    child,
    // With PORT=0, the address the start announces (empty until it does).
    get base() {
      return env.PORT === "0" ? (/^REST root: (\S+)\/api\/v1$/m.exec(output)?.[1] ?? "") : fixed;
    },
    workers: Number(env.WEB_CONCURRENCY ?? 1),
    output: () => output,
    get alive() {
      return child.exitCode === null && child.signalCode === null;
    },
    exited,
  };
  running.push(gateway);
  return gateway;
}

/**
 * Waits until `/readyz` answers 200 and, with WEB_CONCURRENCY above 1, every
 * worker listens (the primary's "Workers:" line: one worker's 200 says
 * nothing of the others); fails early, with its output, if the process ends.
 */
export async function waitReady(gateway: GatewayProcess, within = 90_000): Promise<void> {
  const deadline = Date.now() + within;
  let ready = false;
  while (Date.now() < deadline) {
    if (!gateway.alive) throw new Error(`${gateway.name} exited before it was ready:\n${gateway.output()}`);
    if (!ready && gateway.base) {
      try {
        const response = await fetch(`${gateway.base}/readyz`, { signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        ready = response.status === 200;
      } catch {
        // not listening yet
      }
    }
    if (ready && (gateway.workers <= 1 || /^Workers: +\d+$/m.test(gateway.output()))) return;
    await sleep(ready ? 50 : 200);
  }
  throw new Error(`${gateway.name} not ready within ${within} ms:\n${gateway.output()}`);
}

/**
 * The output so far, once it holds each of `texts` (or after `within` ms):
 * the logger writes its lines in batches, within FLUSH_MS (src/logger.ts)
 * of being logged, so a line may reach the pipe after the answer it is
 * about has reached the test.
 */
export async function outputWith(gateway: GatewayProcess, texts: readonly string[], within = 5_000): Promise<string> {
  const deadline = Date.now() + within;
  while (!texts.every((text) => gateway.output().includes(text)) && Date.now() < deadline) await sleep(25);
  return gateway.output();
}

/**
 * The output once what was logged so far has been written (the logger's
 * batches go out within FLUSH_MS, src/logger.ts): for a check that the log
 * holds no secret, which must read every line.
 */
export async function settledOutput(gateway: GatewayProcess): Promise<string> {
  await sleep(FLUSH_MS * 3);
  return gateway.output();
}

/** SIGTERM to the process group, SIGKILL after 5 s. */
export async function stopGateway(gateway: GatewayProcess): Promise<void> {
  if (!gateway.alive) return;
  const group = -gateway.child.pid!;
  try {
    process.kill(group, "SIGTERM");
  } catch {
    return;
  }
  const done = await Promise.race([gateway.exited.then(() => true), sleep(5_000).then(() => false)]);
  if (!done) {
    try {
      process.kill(group, "SIGKILL");
    } catch {
      // already gone
    }
    await Promise.race([gateway.exited, sleep(2_000)]);
  }
}

/** Stops every gateway this process started. */
export async function stopAllGateways(): Promise<void> {
  await Promise.all(running.splice(0).map(stopGateway));
}

/** One request; the body parsed as JSON where it is JSON. */
export async function request(
  gateway: GatewayProcess,
  path: string,
  init: { key?: string; method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${gateway.base}${path}`, {
    method: init.method ?? "GET",
    headers: { ...(init.key ? { authorization: `Bearer ${init.key}` } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: init.body } : {}),
    signal: AbortSignal.timeout(init.timeoutMs ?? 20_000),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json, ms: performance.now() - started };
}
