/**
 * A command's input fetched over HTTP(S) instead of read from a file: each
 * attempt has a time limit (answer included), a failed one is tried again
 * after 0.5 s, 1 s, 2 s, … when trying again can help (no answer, a refused
 * connection, 429 or 5xx), and the error says in one line what happened. The
 * URL is named without its query, where an API key may travel.
 */
import { Readable } from "node:stream";
import { type CommandInput, guarded } from "./command.js";

export interface FetchOptions {
  /** Longest one attempt may take, answer included. */
  timeoutMs: number;
  /** Attempts after the first. */
  retries: number;
  /** Wait before the first retry; doubled for each next one (default 500 ms). */
  backoffMs?: number;
  /** Told before each retry, with why and how long it waits. */
  onRetry?: (message: string) => void;
}

/** The URL without its query or credentials: what messages may show. */
export const shownUrl = (url: string): string => {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
};

const NETWORK: Record<string, string> = {
  ECONNREFUSED: "the connection was refused",
  ECONNRESET: "the connection was reset",
  ENOTFOUND: "the host name is not known (is the network reachable?)",
  EAI_AGAIN: "the host name could not be looked up (is the network reachable?)",
  ENETUNREACH: "the network is unreachable",
  EHOSTUNREACH: "the host is unreachable",
  ETIMEDOUT: "the connection timed out",
};

/** Why an attempt failed, and whether another may do better. */
function failure(error: unknown, timeoutMs: number): { why: string; again: boolean } {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return { why: `no answer within ${timeoutMs} ms`, again: true };
  }
  const code = (error as { cause?: { code?: string } })?.cause?.code;
  if (code && NETWORK[code]) return { why: NETWORK[code], again: true };
  return {
    why: error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error),
    again: true,
  };
}

export async function fetchInput(url: string, options: FetchOptions): Promise<CommandInput> {
  const shown = shownUrl(url);
  const backoff = options.backoffMs ?? 500;
  let last = "";
  let attempts = 0;
  for (let attempt = 0; attempt <= options.retries; attempt++) {
    attempts = attempt + 1;
    if (attempt > 0) {
      const wait = backoff * 2 ** (attempt - 1);
      options.onRetry?.(
        `fetch: ${last}; trying again in ${(wait / 1000).toFixed(1)} s (attempt ${attempt + 1} of ${options.retries + 1})\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    let again: boolean;
    try {
      const signal = AbortSignal.timeout(options.timeoutMs);
      const response = await fetch(url, {
        signal,
        headers: { accept: "application/json, application/geo+json", "user-agent": "uedu-public-data-gateway (npm run ingest)" },
      });
      if (response.ok) {
        const body = Buffer.from(await response.arrayBuffer());
        return guarded(Readable.from([body]), shown, body.length);
      }
      await response.body?.cancel();
      last = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
      again = response.status === 429 || response.status >= 500;
    } catch (error) {
      ({ why: last, again } = failure(error, options.timeoutMs));
    }
    if (!again) break;
  }
  throw new Error(`cannot fetch ${shown}: ${last} (${attempts} attempt${attempts === 1 ? "" : "s"})`);
}
