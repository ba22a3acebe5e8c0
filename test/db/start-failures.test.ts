/**
 * Every way a real PostgreSQL server cannot be used at start is one line on
 * standard error that names the cause and the fix, and exit 1, with no stack
 * trace (src/db/start-failures.ts): `npm start` and a command alike.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/driver.js";
import { grantStatements } from "../../src/db/grants.js";
import { migrate } from "../../src/db/migrate.js";
import { serverUser } from "../../src/db/postgres-programs.js";
import { canaryExport } from "../support/canary.js";
import { cli } from "../support/cli.js";
import { importObject } from "../support/databases.js";
import { startGateway, stopAllGateways } from "../support/gateway-process.js";
import { freePorts, startPostgres } from "../support/servers.js";

let server: Awaited<ReturnType<typeof startPostgres>>;
let silent: Server;
const held: Socket[] = [];
let silentPort: number;
let closedPort: number;
/** A URL of the private server over TCP; `PORT` stands for its port until a start is run (the table of cases is read before it starts). */
const tcp = (user: string, database: string, query = "") => `postgresql://${user}@127.0.0.1:PORT/${database}${query}`;
const onServer = (env: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value.replace(":PORT/", `:${server.port}/`)]));

beforeAll(async () => {
  server = await startPostgres();
  const hba = join(server.dir, "data", "pg_hba.conf");
  writeFileSync(
    hba,
    `host all postgres 127.0.0.1/32 trust\nhost all outsider 127.0.0.1/32 reject\nhost all all 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, "utf8")}`,
  );
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query("CREATE ROLE app LOGIN PASSWORD 'right'");
    await admin.query("CREATE ROLE outsider LOGIN PASSWORD 'right'");
    // Owned by postgres: since PostgreSQL 15, another role may not create in its schema public.
    await admin.query("CREATE DATABASE empty");
    await admin.query("CREATE DATABASE served");
    await admin.query("SELECT pg_reload_conf()");
  } finally {
    await admin.end();
  }
  // A host that accepts connections and never answers.
  silent = createServer((socket) => held.push(socket));
  [silentPort, closedPort] = (await freePorts(2)) as [number, number];
  await new Promise<void>((resolve) => silent.listen(silentPort, "127.0.0.1", resolve));
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  for (const socket of held) socket.destroy();
  silent?.close();
  await server?.destroy();
});

/** `npm run db:migrate` with `env` (a server that answers has 10 s to, unless `env` says otherwise): its exit code and standard error. */
async function migrateWith(env: Record<string, string>): Promise<{ code: unknown; err: string }> {
  const { code, stderr } = await cli(join(server.dir, "unused"), "migrate", [], { env: { DB_ACQUIRE_TIMEOUT_MS: "10000", ...env } });
  return { code, err: stderr };
}

/** `npm start` with `env`: its exit code, and its output, which must be one line without a stack trace. */
async function startFails(env: Record<string, string>): Promise<string> {
  // A server that answers has 10 s to do so however loaded the machine; the silent host's case sets its own limit.
  const gateway = await startGateway("failing start", { DB_ACQUIRE_TIMEOUT_MS: "10000", ...onServer(env) });
  const code = await gateway.exited;
  const output = gateway.output().trim();
  expect(code, output).toBe(1);
  expect(output.split("\n"), output).toHaveLength(1);
  expect(output).not.toMatch(/\n\s+at |node_modules|\.js:\d+/);
  expect(output).not.toContain("right"); // never the password
  return output;
}

describe("a start on a server that cannot be used", () => {
  it.each([
    [
      "a wrong password",
      { DATABASE_URL: tcp("app:wrong", "served") },
      `npm start: DATABASE_URL: the server at 127.0.0.1:PORT refused the password of role "app": correct it in the URL (or set it: ALTER ROLE "app" PASSWORD '…')`,
    ],
    [
      "a database that does not exist",
      { DATABASE_URL: tcp("app:right", "nowhere") },
      `npm start: DATABASE_URL: the server at 127.0.0.1:PORT has no database "nowhere": create it (createdb -O OWNER nowhere) or correct the URL's database`,
    ],
    [
      "a connection pg_hba.conf does not let in",
      { DATABASE_URL: tcp("outsider:right", "served") },
      'npm start: DATABASE_URL: the server at 127.0.0.1:PORT refused the connection (pg_hba.conf rejects connection for host "127.0.0.1", user "outsider", database "served", no encryption): allow it in its pg_hba.conf, or add sslmode=require to the URL if it takes only TLS',
    ],
    [
      "TLS asked for and refused",
      { DATABASE_URL: tcp("app:right", "served", "?sslmode=require") },
      "npm start: DATABASE_URL: the server at 127.0.0.1:PORT refused TLS, which the URL asks for (sslmode): turn ssl on at the server, or set sslmode=disable where the network is trusted",
    ],
    [
      "a wrong password in DATABASE_OWNER_URL",
      { DATABASE_URL: tcp("app:right", "served"), DATABASE_OWNER_URL: tcp("app:wrong", "served") },
      `npm start: DATABASE_OWNER_URL: the server at 127.0.0.1:PORT refused the password of role "app": correct it in the URL (or set it: ALTER ROLE "app" PASSWORD '…')`,
    ],
    [
      "an owner's URL that leads to another database",
      { DATABASE_URL: tcp("postgres", "served"), DATABASE_OWNER_URL: tcp("postgres", "empty") },
      'npm start: DATABASE_OWNER_URL and DATABASE_URL lead to two databases ("empty" and "served"): the owner prepares the one the gateway serves, so name that one in both',
    ],
    [
      "a role that may not create the schema",
      { DATABASE_URL: tcp("app:right", "empty") },
      'npm start: DATABASE_URL: role "app" may not apply the migrations or import the demo data (permission denied for schema public): set DATABASE_OWNER_URL to the URL of the role that owns the schema (docs/roles.md), or, as the database\'s owner, GRANT CREATE ON SCHEMA public TO "app"',
    ],
  ])(
    "%s",
    async (_, env, line) => {
      expect(await startFails(env)).toBe(line.replaceAll("PORT", String(server.port)));
    },
    60_000,
  );

  it("a host that does not answer, and one where nothing listens", async () => {
    expect(await startFails({ DATABASE_URL: `postgresql://app@127.0.0.1:${silentPort}/served`, DB_ACQUIRE_TIMEOUT_MS: "1000" })).toBe(
      `npm start: DATABASE_URL: 127.0.0.1:${silentPort} does not answer (no reply to connect within DB_ACQUIRE_TIMEOUT_MS): check the host, the port and the firewall between them`,
    );
    expect(await startFails({ DATABASE_URL: `postgresql://app@127.0.0.1:${closedPort}/served` })).toBe(
      `npm start: DATABASE_URL: nothing answers at 127.0.0.1:${closedPort} (connection refused): is PostgreSQL running there, on that port?`,
    );
    expect(await startFails({ DATABASE_URL: "postgresql://app@/served?host=/nonexistent-socket-dir" })).toBe(
      "npm start: DATABASE_URL: there is no PostgreSQL socket /nonexistent-socket-dir/.s.PGSQL.5432: is PostgreSQL running, with unix_socket_directories naming /nonexistent-socket-dir?",
    );
  }, 60_000);

  it("a serving role that lacks grants, each named with its table", async () => {
    // The owner (here the superuser) prepares the database; the serving role holds every grant but one.
    const owner = onServer({ url: tcp("postgres", "served") }).url!;
    // Holding data already, as a database an operator serves does: the start's preparation then
    // imports nothing (a demo import is 4 s here, and first starts have tests of their own).
    const prepared = await openDatabase({ databaseUrl: owner });
    try {
      await migrate(prepared);
      await importObject(prepared, canaryExport());
    } finally {
      await prepared.close();
    }
    const admin = new pg.Client({ connectionString: owner });
    await admin.connect();
    try {
      const lacking = await startFails({ DATABASE_URL: tcp("app:right", "served"), DATABASE_OWNER_URL: owner });
      expect(lacking).toMatch(/^npm start: DATABASE_URL: role "app" lacks SELECT on _prisma_migrations, /);
      await admin.query(grantStatements("app", "served").join("\n"));
      await admin.query("REVOKE UPDATE (last_at) ON usage_day FROM app; REVOKE USAGE ON SEQUENCE api_key_id_seq FROM app");
      expect(await startFails({ DATABASE_URL: tcp("app:right", "served"), DATABASE_OWNER_URL: owner })).toBe(
        'npm start: DATABASE_URL: role "app" lacks USAGE on sequence api_key_id_seq, UPDATE (last_at) on usage_day, which serving needs: run what `npm run db:grants -- --role app` prints, as the schema\'s owner',
      );
    } finally {
      await admin.end();
    }
  }, 120_000);

  it("a command says it alike, as the command's failure, and gives up on a host that does not answer", async () => {
    const started = performance.now();
    expect(await migrateWith({ DATABASE_URL: `postgresql://app@127.0.0.1:${silentPort}/served`, DB_ACQUIRE_TIMEOUT_MS: "500" })).toEqual({
      code: 1,
      err: `db:migrate failed: DATABASE_URL: 127.0.0.1:${silentPort} does not answer (no reply to connect within DB_ACQUIRE_TIMEOUT_MS): check the host, the port and the firewall between them\n`,
    });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(await migrateWith(onServer({ DATABASE_URL: tcp("app:wrong", "served") }))).toEqual({
      code: 1,
      err: `db:migrate failed: DATABASE_URL: the server at 127.0.0.1:${server.port} refused the password of role "app": correct it in the URL (or set it: ALTER ROLE "app" PASSWORD '…')\n`,
    });
  });
});

describe("a server that offers TLS with a certificate of its own", () => {
  let tls: Awaited<ReturnType<typeof startPostgres>>;
  let ca: string;
  const url = (query: string) => `postgresql://postgres@127.0.0.1:${tls.port}/postgres?${query}`;

  beforeAll(async () => {
    tls = await startPostgres();
    // Self-signed, for 127.0.0.1: its own CA.
    const data = join(tls.dir, "data");
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"].concat([
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        join(data, "server.key"),
        "-out",
        join(data, "server.crt"),
      ]),
      { stdio: "ignore" },
    );
    const user = serverUser();
    for (const file of ["server.key", "server.crt"]) {
      chmodSync(join(data, file), 0o600);
      if (user) chownSync(join(data, file), user.uid, user.gid);
    }
    ca = join(tls.dir, "ca.pem");
    writeFileSync(ca, readFileSync(join(data, "server.crt")));
    const admin = new pg.Client({ connectionString: tls.url });
    await admin.connect();
    try {
      await admin.query("ALTER SYSTEM SET ssl = on");
      await admin.query("SELECT pg_reload_conf()");
    } finally {
      await admin.end();
    }
  }, 120_000);

  afterAll(async () => {
    await tls?.destroy();
  });

  it("refuses a certificate it cannot verify in one line (sslmode=require is verify-full in pg), and connects with its CA or no-verify", async () => {
    expect(await migrateWith({ DATABASE_URL: url("sslmode=require") })).toEqual({
      code: 1,
      err: `db:migrate failed: DATABASE_URL: the server at 127.0.0.1:${tls.port} offered a TLS certificate that is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT): name its CA with sslrootcert=/path/to/ca.pem in the URL, or use sslmode=no-verify for TLS without verifying it\n`,
    });
    expect(await migrateWith({ DATABASE_URL: url(`sslmode=require&sslrootcert=${ca}`) })).toEqual({ code: 0, err: "" });
    expect(await migrateWith({ DATABASE_URL: url("sslmode=no-verify") })).toEqual({ code: 0, err: "" });
  }, 60_000);
});
