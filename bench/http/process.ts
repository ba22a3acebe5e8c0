/**
 * A server under measurement in a child process of its own: started, waited
 * for, and read from `/proc` (CPU time, and resident memory with its peak,
 * which can be reset between cases).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";

export interface Measured {
  child: ChildProcess;
  pid: number;
  /** Everything it printed, for the error when it fails. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `node <script>` with `env` (through tsx when the script is TypeScript),
 * and resolves when `ready(output)` holds. `node`: another Node binary than this one.
 */
export async function startNode(
  script: string,
  env: Record<string, string>,
  ready: (output: string) => boolean,
  node = process.execPath,
): Promise<Measured> {
  const child = spawn(node, [...(script.endsWith(".ts") ? ["--import", "tsx"] : []), script], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    // Only the start is kept: the access log would fill memory over a run.
    if (output.length < 20_000) output += chunk;
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + 120_000;
  while (!ready(output)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${script} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    pid: child.pid!,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const TICKS_PER_SECOND = 100;

/** A process's command name, or "" once it is gone. */
const commOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
};

/**
 * The process and its descendants (the workers of WEB_CONCURRENCY); with
 * `servers` false, without the embedded PostgreSQL a gateway started (it is
 * measured on its own: `serverMiB`), as a server named by DATABASE_URL is not
 * counted in the gateway's figures either.
 */
function tree(pid: number, servers = false): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // gone
  }
  if (!servers) children = children.filter((child) => commOf(child) !== "postgres");
  return [pid, ...children.flatMap((child) => tree(child, servers))];
}

/**
 * A PostgreSQL server's memory now, in MiB: the proportional set size (PSS)
 * of the postmaster and every backend, so that the shared buffers each of
 * them maps are counted once.
 */
export function serverMiB(postmasterPid: number): number {
  let kb = 0;
  for (const p of tree(postmasterPid, true)) {
    try {
      kb += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/smaps_rollup`, "utf8"))?.[1] ?? 0);
    } catch {
      // ended meanwhile, or not readable
    }
  }
  return kb / 1024;
}

/**
 * CPU time (user + system) a PostgreSQL server's backends have used, in ms:
 * the processes under its postmaster now, and those it has reaped (its
 * children's times), so that a backend that ends between two readings is
 * counted once in both.
 */
export function serverCpuMs(postmasterPid: number): number {
  let reaped = 0;
  try {
    const stat = readFileSync(`/proc/${postmasterPid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    reaped = ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
  } catch {
    // gone
  }
  return tree(postmasterPid, true)
    .slice(1)
    .reduce((sum, pid) => sum + cpuMs(pid, false), reaped);
}

/** CPU time (user + system) the process and its descendants have used, in ms; `descendants` false: the process alone. */
export function cpuMs(pid: number, descendants = true): number {
  let ticks = 0;
  for (const p of descendants ? tree(pid) : [pid]) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // ended meanwhile
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** Resident memory now and its peak since start or the last reset, in MiB, summed over the process and its descendants. */
export function memoryMiB(pid: number): { rss: number; peak: number } {
  let rss = 0;
  let peak = 0;
  for (const p of tree(pid)) {
    try {
      const status = readFileSync(`/proc/${p}/status`, "utf8");
      const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
      rss += kb("VmRSS") / 1024;
      peak += kb("VmHWM") / 1024;
    } catch {
      // ended meanwhile
    }
  }
  return { rss, peak };
}

/** Starts the peaks (VmHWM) again from the current resident sizes. */
export function resetPeak(pid: number): void {
  for (const p of tree(pid)) {
    try {
      writeFileSync(`/proc/${p}/clear_refs`, "5");
    } catch {
      // Not permitted here: the peak then runs from the process's start.
    }
  }
}

/** `count` free TCP ports on loopback. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<import("node:net").Server>((resolve) => {
          const s = createServer();
          s.listen(0, "127.0.0.1", () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as import("node:net").AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}
