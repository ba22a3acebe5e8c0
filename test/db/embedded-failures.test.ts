/**
 * No failure to start the embedded PostgreSQL without its reason (issue 42):
 * each way it can fail is forced with real programs (a spawn the system
 * refuses, an initdb that fails, a server that exits at once), and the one
 * line that `npm start` and every command print must name the cause, not an
 * empty string or an earlier run's words.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EmbeddedServerError } from "../../src/db/cluster-dir.js";
import { useEmbeddedServer } from "../../src/db/embedded.js";
import { embeddedPostgres, type PostgresBinaries } from "../../src/db/postgres-programs.js";
import { startGateway } from "../support/gateway-process.js";
import { tempDir } from "../support/temp.js";

const tmp = tempDir("embedded-failures-");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const real = (await embeddedPostgres()) as PostgresBinaries;

/** A shell script standing in for one of PostgreSQL's programs; it answers `--version` as the real ones do. */
function script(dir: string, name: string, body: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\nif [ "$1" = --version ]; then echo "${name} (PostgreSQL) 18.4"; exit 0; fi\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The one line `useEmbeddedServer` fails with, on a fresh DATA_DIR, with these programs. */
async function failure(name: string, programs: Partial<PostgresBinaries>, before?: (dataDir: string) => void): Promise<string> {
  const dataDir = join(tmp, name, "data");
  mkdirSync(dataDir, { recursive: true });
  before?.(dataDir);
  const error = await useEmbeddedServer(dataDir, { role: "test", programs: { ...real, source: "system", ...programs } }).then(
    (server) => server.release().then(() => undefined),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EmbeddedServerError);
  const message = (error as Error).message;
  expect(message).not.toContain("\n");
  return message;
}

describe("the line that names why the embedded PostgreSQL did not start", () => {
  it("a spawn that cannot enter its program's folder (nothing on standard error): the error's code and message", async () => {
    const closed = join(tmp, "closed");
    const initdb = script(closed, "initdb", "exit 0");
    // Closed to the user who runs it: root's server user (postgres) cannot enter 0700; no user can enter 0000 but root.
    chmodSync(closed, process.getuid?.() === 0 ? 0o700 : 0o000);
    try {
      const message = await failure("spawn", { initdb });
      expect(message).toBe(`initdb failed: EACCES: spawn ${initdb} EACCES`);
    } finally {
      chmodSync(closed, 0o755);
    }
  });

  it("an initdb that fails: its own words for the cause, not the cleanup line after them", async () => {
    const initdb = script(
      join(tmp, "bin-initdb"),
      "initdb",
      `echo 'The files belonging to this database system will be owned by user "postgres".' >&2
echo 'initdb: error: could not create directory "/x/pg_wal": No space left on device' >&2
echo 'initdb: removing contents of data directory "/x"' >&2
exit 1`,
    );
    expect(await failure("initdb", { initdb })).toBe(
      'initdb failed: initdb: error: could not create directory "/x/pg_wal": No space left on device',
    );
  });

  it("an initdb that fails without a word: its exit code", async () => {
    const initdb = script(join(tmp, "bin-initdb-mute"), "initdb", "exit 7");
    expect(await failure("initdb-mute", { initdb })).toBe("initdb failed: it exited with code 7 and wrote nothing on standard error");
  });

  it("a server that exits at once: the last meaningful line of what it wrote to its log, not an earlier run's", async () => {
    const postgres = script(
      join(tmp, "bin-postgres"),
      "postgres",
      `echo '2026-11-27 12:00:00.000 UTC [4242] FATAL:  could not map anonymous shared memory: Cannot allocate memory' >&2
echo '2026-11-27 12:00:00.000 UTC [4242] HINT:  This error usually means that PostgreSQL'"'"'s request for a shared memory segment exceeded available memory.' >&2
echo '2026-11-27 12:00:00.000 UTC [4242] LOG:  database system is shut down' >&2
exit 1`,
    );
    const message = await failure("exits", { postgres }, (dataDir) =>
      // An earlier run's last words, which are not this start's cause.
      writeFileSync(join(dataDir, "postgres.log"), "2026-11-01 08:00:00.000 UTC [17] FATAL:  an earlier run's trouble\n"),
    );
    expect(message).toBe(
      `the embedded PostgreSQL did not start: FATAL:  could not map anonymous shared memory: Cannot allocate memory (its log: ${join(tmp, "exits", "data", "postgres.log")})`,
    );
  });

  it("a server that exits at once without a word: its exit code", async () => {
    const postgres = script(join(tmp, "bin-postgres-mute"), "postgres", "exit 3");
    const message = await failure("exits-mute", { postgres }, (dataDir) =>
      writeFileSync(join(dataDir, "postgres.log"), "2026-11-01 08:00:00.000 UTC [17] FATAL:  an earlier run's trouble\n"),
    );
    expect(message).toMatch(/^the embedded PostgreSQL did not start: it exited with code 3 and wrote nothing to its log \(its log: .*\)$/);
  });

  it("a DATA_DIR that cannot be a directory: the setting, the cause and what to do", async () => {
    const file = join(tmp, "a-file");
    writeFileSync(file, "");
    const error = await useEmbeddedServer(join(file, "data"), { role: "test" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddedServerError);
    const line = `DATA_DIR ${join(file, "data")} cannot be used (ENOTDIR: not a directory, mkdir '${join(file, "data")}'): set DATA_DIR to a directory this user may create and write, or set DATABASE_URL`;
    expect((error as Error).message).toBe(line);
    // The same line from npm start, alone on standard error, and exit 1.
    const gateway = await startGateway("bad-data-dir", { DATA_DIR: join(file, "data") });
    expect(await gateway.exited).toBe(1);
    expect(gateway.output()).toBe(`npm start: ${line}\n`);
  });
});
