/**
 * The load generator: wrk (Debian's package), over loopback, one thread so
 * that it stays on little CPU on a two-core machine. Its Lua `done` hook
 * prints the round's figures as one JSON line, so nothing is scraped from
 * its text report.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One request, repeated by every connection. */
export interface Load {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
}

/** One round's figures. */
export interface Round {
  requests: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Socket errors, timeouts and answers other than 2xx/3xx. */
  errors: number;
}

/** Whether wrk is on the PATH. */
export function haveWrk(): boolean {
  try {
    execFileSync("wrk", ["--version"], { stdio: "ignore" });
    return true;
  } catch (error) {
    // wrk --version exits 1 after printing its version.
    return (error as { status?: number }).status === 1;
  }
}

const lua = (load: Load) => `
wrk.method = ${JSON.stringify(load.method ?? "GET")}
${load.body === undefined ? "" : `wrk.body = ${luaString(load.body)}`}
${Object.entries(load.headers ?? {})
  .map(([k, v]) => `wrk.headers[ ${luaString(k)} ] = ${luaString(v)}`)
  .join("\n")}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"duration_us":%.0f,"p50_us":%.0f,"p99_us":%.0f,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.status + e.timeout))
end
`;

/** A Lua long string cannot be broken by any content: its level is chosen to not occur in it. */
function luaString(text: string): string {
  let level = "";
  while (text.includes(`]${level}]`)) level += "=";
  return `[${level}[${text}]${level}]`;
}

/** Runs wrk for `seconds` with `connections` connections and returns its figures. */
export async function wrk(load: Load, connections: number, seconds: number): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), "uedu-wrk-"));
  const script = join(dir, "load.lua");
  writeFileSync(script, lua(load));
  try {
    const args = ["-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", script, load.url];
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn("wrk", args, { stdio: ["ignore", "pipe", "pipe"] });
      let text = "";
      let errText = "";
      child.stdout.on("data", (chunk: Buffer) => {
        text += chunk;
      });
      child.stderr.on("data", (chunk: Buffer) => {
        errText += chunk;
      });
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${errText.trim()}`))));
    });
    const line = out.split("\n").find((l) => l.startsWith('{"requests"'));
    if (!line) throw new Error(`wrk printed no figures:\n${out}`);
    const r = JSON.parse(line) as { requests: number; duration_us: number; p50_us: number; p99_us: number; errors: number };
    const secondsTaken = r.duration_us / 1e6;
    return {
      requests: r.requests,
      seconds: secondsTaken,
      perSecond: r.requests / secondsTaken,
      p50Ms: r.p50_us / 1000,
      p99Ms: r.p99_us / 1000,
      errors: r.errors,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
