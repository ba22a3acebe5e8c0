/**
 * The gateway and its commands as this run's tests start them: bundled once
 * by the global setup (`npm run build -- --out …`, the same build as
 * `npm start` runs from dist/) and run with plain `node`. Under tsx, as the
 * commands run, each process spends about a second of CPU more loading its
 * modules, and unbundled some 0.8 s more; the suite starts some 400 of them. The tests of `npm start`
 * itself (test/newcomer.test.ts, test/operations/shutdown.test.ts) run it
 * as written.
 */
import { join } from "node:path";
import { inject } from "vitest";

/**
 * The command that runs `entry` (a path of the repository under src/ or
 * rest/, as `src/main.ts`) from the run's build; outside a test run (a
 * benchmark that starts the gateway as the tests do), with tsx as `npm start`
 * runs it.
 */
export function builtCommand(entry: string): [string, ...string[]] {
  if (!process.env.VITEST) return [process.execPath, "--import", "tsx", entry];
  return [process.execPath, join(inject("built"), entry.replace(/\.ts$/, ".js"))];
}

/**
 * The base of an environment of its own, for a process a test starts without
 * the run's variables (a built entry started from another folder, an MCP
 * client's server, which gets only what it is given): PATH, and the run's
 * module compile cache (test/support/temp-root.ts) when there is one.
 */
export function childEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "" };
  for (const name of ["NODE_COMPILE_CACHE", "NODE_DISABLE_COMPILE_CACHE"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}
