/**
 * Where the embedded PostgreSQL's cluster lives, and creating it.
 *
 * It is `DATA_DIR/postgres`. As root, PostgreSQL runs as an unprivileged user
 * (src/db/postgres-programs.ts), who must be able to enter DATA_DIR and run
 * the binaries. Where it cannot (a clone in root's home, mode 0700, as on a
 * new cloud machine), nothing above DATA_DIR is loosened; instead:
 *
 * - the binaries are copied, once per version, to `ROOT_HOME/programs-<hash>`;
 * - the cluster is created in `ROOT_HOME/<DATA_DIR's real path>-<hash>-<stamp>`,
 *   persistent (never the temporary folder, which a reboot empties), and
 *   `DATA_DIR/postgres` is a symbolic link to it: `psql`, `db:backup`,
 *   `db:restore`, the carry-over and the README hold unchanged. Removing
 *   DATA_DIR removes the link; the next start then creates a fresh cluster
 *   and deletes the one it replaces (unless a server still runs on it).
 *
 * Every failure is an {@link EmbeddedServerError} of one line that names its
 * cause: the error's code and message when a program wrote nothing, else the
 * last meaningful line it wrote.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { initCluster, isRunning, type PostgresBinaries, type ServerUser } from "./postgres-programs.js";

/** The cluster's directory (or the link to it) inside DATA_DIR. */
export const CLUSTER_DIR = "postgres";
/**
 * As root, where the clusters and binaries go that the server's user could not
 * reach where they are. Persistent, and readable by that user.
 */
export const ROOT_HOME = "/var/lib/uedu-gateway";
/** How many characters of a DATA_DIR's path name its cluster in ROOT_HOME (the socket's path must stay under 108). */
const NAME_CHARS = 40;

/** A readable, one-line reason why the embedded server cannot be used. */
export class EmbeddedServerError extends Error {}

/** Where the cluster is, once it exists. */
export interface ClusterPlace {
  /** The cluster's real directory: the server's `-D`, and its socket's. */
  clusterDir: string;
  /** The programs the server's user can run (a copy in ROOT_HOME when the originals are out of its reach). */
  programs: PostgresBinaries;
  /** Where the cluster is and why, when it is not in DATA_DIR itself (one line, for the start's log). */
  note?: string;
}

/**
 * The last meaningful line of what a program wrote: its last line that says
 * FATAL, ERROR, PANIC or `error:` (PostgreSQL's and initdb's own words for a
 * cause; the lines after it, a HINT or initdb's "removing data directory",
 * are not one), or else its last line, without PostgreSQL's time stamp and
 * pid prefix; undefined when it wrote nothing.
 */
export function lastMeaningfulLine(text: string): string | undefined {
  const lines = text
    .split("\n")
    .map((l) => l.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \w+ \[\d+\] /, "").trim())
    .filter(Boolean);
  return lines.findLast((l) => /\b(FATAL|ERROR|PANIC):|^[\w-]+: error:/.test(l)) ?? lines.at(-1);
}

/**
 * Why a program failed, in one line: the last meaningful line it wrote on
 * standard error; when it wrote nothing, the error's code and message (a
 * spawn refused: `EACCES`, `ENOENT`) or its exit code or signal.
 */
export function causeOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { stderr?: unknown; signal?: string | null };
  const said = typeof e?.stderr === "string" ? lastMeaningfulLine(e.stderr) : undefined;
  if (said) return said;
  if (typeof e?.code === "string") return e.message.startsWith(e.code) ? e.message : `${e.code}: ${e.message}`;
  if (typeof e?.code === "number") return `it exited with code ${e.code} and wrote nothing on standard error`;
  if (e?.signal) return `it was ended by ${e.signal} and wrote nothing on standard error`;
  return String(error);
}

/** Whether `program` with `args`, run as `user`, succeeds: the kernel's own answer (every directory on the way, ACLs included). */
function succeedsAs(user: ServerUser, program: string, args: string[]): boolean {
  const tried = spawnSync(program, args, { uid: user.uid, gid: user.gid, cwd: "/", stdio: "ignore", timeout: 10_000 });
  return tried.error === undefined && tried.status === 0;
}

/** Whether `user` may enter `dir`. (A spawn's `cwd` would not tell: libuv enters it before it drops privileges.) */
const canEnter = (user: ServerUser, dir: string) => succeedsAs(user, "/bin/sh", ["-c", 'cd -- "$1"', "sh", dir]);

/** Whether `user` can run `postgres` (its path, its libraries). */
const canRun = (user: ServerUser, postgres: string) => succeedsAs(user, postgres, ["--version"]);

/** Moves a directory made at `from` to `to`; false if `to` was made meanwhile by another process. */
function renameInto(from: string, to: string): boolean {
  try {
    renameSync(from, to);
    return true;
  } catch (error) {
    if (!["EEXIST", "ENOTEMPTY"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
    return false;
  }
}

/** ROOT_HOME, made readable by the server's user (it enters it, and nothing in it is secret but the clusters, 0700 each). */
function rootHome(): string {
  try {
    mkdirSync(ROOT_HOME, { recursive: true, mode: 0o755 });
  } catch (error) {
    throw new EmbeddedServerError(`cannot create ${ROOT_HOME} for the embedded PostgreSQL: ${causeOf(error)}`);
  }
  return ROOT_HOME;
}

/**
 * The programs, where `user` can run them: the originals, or (the embedded
 * package's, in a directory the user cannot enter) a copy of the package's
 * binaries, libraries and shared files in ROOT_HOME, made once per version.
 */
function programsFor(programs: PostgresBinaries, user: ServerUser): PostgresBinaries {
  if (canRun(user, programs.postgres)) return programs;
  const why = `PostgreSQL refuses to run as root, so it runs as the user ${user.name}, who cannot run ${programs.postgres}`;
  if (programs.source !== "embedded") throw new EmbeddedServerError(`${why}: let that user reach it, or set DATABASE_URL`);
  // bin/, lib/ and share/ side by side: the programs find the rest relative to themselves.
  const installed = dirname(dirname(programs.postgres));
  const version = createHash("sha256").update(readFileSync(programs.postgres)).digest("hex").slice(0, 12);
  const copy = join(rootHome(), `programs-${version}`);
  const at = (program: string) => join(copy, "bin", basename(program));
  if (!canRun(user, at(programs.postgres))) {
    const making = join(ROOT_HOME, `.programs-${version}.creating-${process.pid}`);
    rmSync(making, { recursive: true, force: true });
    try {
      cpSync(installed, making, { recursive: true, verbatimSymlinks: true });
      // false: another process's copy is there first (whole: the rename comes last).
      renameInto(making, copy);
    } catch (error) {
      throw new EmbeddedServerError(`${why}, and copying them to ${copy} failed: ${causeOf(error)}`);
    } finally {
      rmSync(making, { recursive: true, force: true });
    }
  }
  const copied: PostgresBinaries = { initdb: at(programs.initdb), postgres: at(programs.postgres), source: programs.source };
  if (!canRun(user, copied.postgres)) throw new EmbeddedServerError(`${why}, nor its copy in ${copy}: set DATABASE_URL`);
  return copied;
}

/**
 * Runs initdb into `creating` (made here, owned by `user`), turning its
 * failure into one line that names the cause.
 */
async function initInto(programs: PostgresBinaries, creating: string, user: ServerUser | undefined): Promise<void> {
  rmSync(creating, { recursive: true, force: true });
  mkdirSync(creating, { mode: 0o700 });
  if (user) chownSync(creating, user.uid, user.gid);
  try {
    await initCluster(programs, creating, user, { cwd: creating, auth: ["--auth-local=trust", "--auth-host=scram-sha-256"] });
  } catch (error) {
    throw new EmbeddedServerError(`initdb failed: ${causeOf(error)}`);
  }
}

const damaged = (clusterDir: string) =>
  new EmbeddedServerError(
    `${clusterDir} is not a PostgreSQL cluster (it has no PG_VERSION): it is damaged. Restore a copy with npm run db:restore -- <file>, or move DATA_DIR away to start with an empty one`,
  );

/**
 * Creates the cluster in `clusterDir` if it does not exist: in a directory
 * beside it, renamed into place once whole, so that of two processes
 * creating it at once one wins and a crash leaves no half cluster behind.
 */
async function ensureInPlace(programs: PostgresBinaries, dataDir: string, clusterDir: string, user: ServerUser | undefined): Promise<void> {
  if (existsSync(join(clusterDir, "PG_VERSION"))) return;
  if (existsSync(clusterDir)) throw damaged(clusterDir);
  const creating = join(dataDir, `.${CLUSTER_DIR}-creating-${process.pid}`);
  try {
    await initInto(programs, creating, user);
    // false: another process created it meanwhile; use theirs.
    renameInto(creating, clusterDir);
  } finally {
    rmSync(creating, { recursive: true, force: true });
  }
}

/** The postmaster's pid from `clusterDir`'s lock file (`postmaster.pid`), if that file is there. */
export function postmasterPid(clusterDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(clusterDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The postmaster's pid, if a server runs on `clusterDir`. */
export function serverOn(clusterDir: string): number | undefined {
  const pid = postmasterPid(clusterDir);
  return pid !== undefined && isRunning(pid) ? pid : undefined;
}

/** ROOT_HOME's name stem for the clusters of the DATA_DIR at real path `real`: readable, and unique to that path. */
function stemOf(real: string): string {
  const readable = real.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "");
  return `${readable.slice(-NAME_CHARS).replace(/^[-.]+/, "") || "root"}-${createHash("sha256").update(real).digest("hex").slice(0, 12)}`;
}

/**
 * As root, with a DATA_DIR the server's user cannot enter: the cluster in
 * ROOT_HOME, `link` (DATA_DIR/postgres) pointing at it. The link is made last
 * and only if absent, so of two processes creating at once one wins and the
 * other drops its own.
 */
async function ensureLinked(programs: PostgresBinaries, dataDir: string, link: string, user: ServerUser): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const found = lstatSync(link, { throwIfNoEntry: false });
    if (found?.isSymbolicLink()) {
      if (existsSync(join(link, "PG_VERSION"))) return;
      throw new EmbeddedServerError(
        `${link} links to ${readlinkSync(link)}, which holds no PostgreSQL cluster: it was removed or damaged. Restore a copy with npm run db:restore -- <file>, or remove the link to start with an empty database`,
      );
    }
    if (found) {
      if (!existsSync(join(link, "PG_VERSION"))) throw damaged(link);
      // A cluster inside DATA_DIR, made while its user could reach it.
      throw new EmbeddedServerError(
        `PostgreSQL refuses to run as root, so the gateway runs it as the user ${user.name}, who cannot reach ${dataDir} where its cluster is: ` +
          `let that user enter every directory above it (chmod o+x), or move DATA_DIR where it can, or set DATABASE_URL`,
      );
    }
    if (attempt > 0) throw new EmbeddedServerError(`${link} was removed while this process created it: start again`);
    const home = rootHome();
    const stem = stemOf(realpathSync(dataDir));
    const creating = join(home, `.${stem}.creating-${process.pid}`);
    const cluster = join(home, `${stem}-${Date.now().toString(36)}${process.pid.toString(36)}`);
    try {
      await initInto(programs, creating, user);
      renameSync(creating, cluster);
    } finally {
      rmSync(creating, { recursive: true, force: true });
    }
    try {
      symlinkSync(cluster, link, "dir");
    } catch (error) {
      rmSync(cluster, { recursive: true, force: true });
      // Another process linked its own first: use that one (next turn).
      if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
      throw new EmbeddedServerError(`cannot link ${link} to ${cluster}: ${causeOf(error)}`);
    }
    removeReplaced(home, stem, cluster);
    return;
  }
}

/**
 * Deletes this DATA_DIR's earlier clusters in ROOT_HOME (their link went with
 * a removed DATA_DIR), except one a server still runs on, and what a crashed
 * creation left.
 */
function removeReplaced(home: string, stem: string, kept: string): void {
  for (const name of readdirSync(home)) {
    const path = join(home, name);
    const creation = new RegExp(`^\\.${stem.replace(/[.]/g, "\\.")}\\.creating-(\\d+)$`).exec(name);
    const replaced = name.startsWith(`${stem}-`) && path !== kept && serverOn(path) === undefined;
    if (replaced || (creation && !isRunning(Number(creation[1])))) rmSync(path, { recursive: true, force: true });
  }
}

/**
 * Makes sure the cluster of `dataDir` (absolute) exists, creating it if need
 * be, where `user` (the server's, as root) can run it; says where it is.
 */
export async function placeCluster(programs: PostgresBinaries, dataDir: string, user: ServerUser | undefined): Promise<ClusterPlace> {
  const link = join(dataDir, CLUSTER_DIR);
  const reachable = user ? programsFor(programs, user) : programs;
  if (!user || canEnter(user, dataDir)) {
    await ensureInPlace(reachable, dataDir, link, user);
    const clusterDir = realpathSync(link);
    if (user && !canEnter(user, clusterDir)) {
      throw new EmbeddedServerError(`the user ${user.name}, who runs PostgreSQL, cannot reach ${clusterDir}: let it, or set DATABASE_URL`);
    }
    return { clusterDir, programs: reachable };
  }
  await ensureLinked(reachable, dataDir, link, user);
  const clusterDir = realpathSync(link);
  return {
    clusterDir,
    programs: reachable,
    note: `the embedded PostgreSQL's cluster is ${clusterDir} (linked from ${link}): PostgreSQL refuses to run as root, so it runs as the user ${user.name}, who cannot reach ${dataDir}`,
  };
}
