/**
 * Vitest global setup: the servers the whole run shares.
 *
 * - PostgreSQL: `TEST_DATABASE_URL` when set; otherwise a private server
 *   started here (see `servers.ts`). Tests create their own databases on it.
 * - Redis: `TEST_REDIS_URL` when set; otherwise a private `redis-server` when
 *   the program is installed; otherwise none, and the tests that need it are
 *   skipped with the reason printed here and in their title.
 *
 * - A migrated template database on that server and a migrated DATA_DIR,
 *   which tests copy instead of migrating their own (see `templates.ts`).
 * - A build of src/ and rest/, from which the tests start the gateway and
 *   its commands with plain `node` (see `built.ts`).
 *
 * All of it is made once for the run, whichever projects ask for it.
 *
 * Tests read the addresses with `inject("postgresUrl")` and
 * `inject("redisUrl")`. The private servers are stopped and their directories
 * deleted in the teardown; if the run is interrupted, their watchdog does it.
 */
import { execFile } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
import { makeTemplates, type Templates } from "./templates.js";
import { findRedisServer, type PrivateServer, startPostgres, startRedis } from "./servers.js";
import { runFolder } from "./temp.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL server on which tests may create and drop databases (superuser, trust). */
    postgresUrl: string;
    /** A Redis server the tests may write to, or null when there is none. */
    redisUrl: string | null;
    /** Why there is no Redis, when `redisUrl` is null. */
    redisMissing: string | null;
    /** A migrated database and DATA_DIR to copy (see `templates.ts`). */
    templates: Templates;
    /** The run's build of src/ and rest/ (see `built.ts`). */
    built: string;
  }
}

/** What the run's tests are given, the servers started for it, and how to remove them. */
export interface TestServers {
  provided: { postgresUrl: string; redisUrl: string | null; redisMissing: string | null };
  /** The private servers started (none for a server named by the environment). */
  started: PrivateServer[];
  /** Stops the private servers and deletes their directories. */
  teardown(): Promise<void>;
}

/** Starts what the environment does not name; prints where each server is. */
export async function startTestServers(env: NodeJS.ProcessEnv = process.env): Promise<TestServers> {
  const started: PrivateServer[] = [];
  const remember = <S extends PrivateServer>(server: S): S => {
    started.push(server);
    return server;
  };
  const teardown = async () => {
    await Promise.all(started.map((server) => server.destroy()));
  };
  try {
    const redisProgram = env.TEST_REDIS_URL ? undefined : findRedisServer();
    const [postgres, redis] = await Promise.all([
      env.TEST_DATABASE_URL ? undefined : startPostgres().then(remember),
      redisProgram ? startRedis(redisProgram).then(remember) : undefined,
    ]);
    const postgresUrl = env.TEST_DATABASE_URL ?? postgres!.url;
    const redisUrl = env.TEST_REDIS_URL ?? redis?.url ?? null;
    const redisMissing = redisUrl ? null : "redis-server is not installed and TEST_REDIS_URL is not set";

    const where = (url: string | null, own: PrivateServer | undefined) => (own ? `private, ${url}` : url ? `given, ${url}` : "none");
    const source = postgres ? ` from the ${postgres.binaries.source} binaries` : "";
    process.stdout.write(`test servers: PostgreSQL ${where(postgresUrl, postgres)}${source}; Redis ${where(redisUrl, redis)}\n`);
    if (redisMissing) process.stdout.write(`test servers: the Redis tests are skipped: ${redisMissing}\n`);
    return { provided: { postgresUrl, redisUrl, redisMissing }, started, teardown };
  } catch (error) {
    await teardown();
    throw error;
  }
}

const ROOT = join(import.meta.dirname, "..", "..");

/**
 * What the run's projects share: the servers, the templates and the build,
 * made by the first project's setup and removed by the last one's teardown
 * (one process; on globalThis, whichever copies of this module vitest loads).
 * The topology project runs after the suite, so the two need only one of each.
 */
interface SharedRun {
  ready: Promise<Run>;
  users: number;
}
interface Run {
  provided: TestServers["provided"];
  templates: Templates;
  built: string;
  remove(): Promise<void>;
}
const RUN = Symbol.for("uedu.test-run");
const shared = globalThis as { [RUN]?: SharedRun };

/** Builds src/ and rest/ for the run, into a folder of node_modules/.cache (inside the repository: the code finds its dependencies above it). */
async function build(): Promise<string> {
  const parent = join(ROOT, "node_modules", ".cache");
  mkdirSync(parent, { recursive: true });
  const dir = runFolder(parent, "uedu-test-build-");
  // Without checking types: `npm test` has just checked them (scripts/typecheck.mjs), and checking took two thirds of the build's time.
  await promisify(execFile)(process.execPath, [join(ROOT, "scripts", "build.mjs"), "--out", relative(ROOT, dir), "--no-check"], {
    cwd: ROOT,
    timeout: 300_000,
  }).catch((error: { stdout?: string; stderr?: string }) => {
    rmSync(dir, { recursive: true, force: true });
    // What esbuild says of a syntax error (which stops the build, and so the run).
    throw new Error(`the run's build (scripts/build.mjs) failed:\n${error.stdout ?? ""}${error.stderr ?? ""}`);
  });
  return dir;
}

/** Starts the servers and, at the same time, builds; then makes the templates. Whatever was made is removed if any part fails. */
async function prepareRun(): Promise<Run> {
  const built = build();
  built.catch(() => undefined); // awaited below; a failure meanwhile is not unhandled
  const removeBuild = () =>
    built.then(
      (dir) => rmSync(dir, { recursive: true, force: true }),
      () => undefined,
    );
  const servers = await startTestServers().catch(async (error: unknown) => {
    await removeBuild();
    throw error;
  });
  const made = makeTemplates(servers.provided.postgresUrl);
  try {
    const [templates, dir] = await Promise.all([made, built]);
    return {
      provided: servers.provided,
      templates,
      built: dir,
      remove: async () => {
        await removeBuild();
        await templates.remove();
        await servers.teardown();
      },
    };
  } catch (error) {
    await removeBuild();
    await made.then(
      (t) => t.remove(),
      () => undefined,
    );
    await servers.teardown();
    throw error;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = (shared[RUN] ??= { ready: prepareRun(), users: 0 });
  run.users += 1;
  const release = () => {
    run.users -= 1;
    if (run.users > 0) return false;
    delete shared[RUN];
    return true;
  };
  let ready: Run;
  try {
    ready = await run.ready;
  } catch (error) {
    release();
    throw error;
  }
  project.provide("postgresUrl", ready.provided.postgresUrl);
  project.provide("redisUrl", ready.provided.redisUrl);
  project.provide("redisMissing", ready.provided.redisMissing);
  project.provide("templates", { database: ready.templates.database, dataDir: ready.templates.dataDir });
  project.provide("built", ready.built);
  return async () => {
    if (release()) await ready.remove();
  };
}
