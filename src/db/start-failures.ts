/**
 * A PostgreSQL server that cannot be used at start, said in one line that
 * names the cause and the fix (docs/roles.md): a wrong password, a role or
 * database that does not exist, a host that does not answer, TLS refused, a
 * role that may not create the schema or lacks a grant. `npm start` and every
 * command print it and exit 1, with no stack trace.
 */
import pg from "pg";
import type { Database } from "./driver.js";
import { describeMissing, missingPrivileges } from "./grants.js";
import { readPostgresUrl } from "./urls.js";

/** A database that cannot be used, told in one line. */
export class DatabaseStartError extends Error {
  override name = "DatabaseStartError";
}

/** Which setting a connection string came from, as the messages name it. */
export type UrlSetting = "DATABASE_URL" | "DATABASE_OWNER_URL";

interface ConnectionError {
  code?: string;
  message?: string;
}

/** Certificates Node does not accept, by its error code. */
const CERTIFICATE = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS/;

/**
 * What a failed first connection means for the operator, or undefined for
 * something else (a bug, to be thrown as it is).
 */
function explainConnection(error: unknown, setting: UrlSetting, url: string): string | undefined {
  const e = (error ?? {}) as ConnectionError;
  const { host, port, user, database } = readPostgresUrl(url);
  const where = host.startsWith("/") ? `the socket ${host}/.s.PGSQL.${port}` : `${host}:${port}`;
  const message = String(e.message ?? "");
  switch (e.code) {
    case "28P01":
      return `${setting}: the server at ${where} refused the password of role "${user}": correct it in the URL (or set it: ALTER ROLE "${user}" PASSWORD '…')`;
    case "28000":
      // The role does not exist, or pg_hba.conf has no line for this connection (often: only TLS is allowed).
      return /does not exist/.test(message)
        ? `${setting}: the server at ${where} has no role "${user}": create it (CREATE ROLE "${user}" LOGIN PASSWORD '…') or correct the URL's user`
        : `${setting}: the server at ${where} refused the connection (${message}): allow it in its pg_hba.conf, or add sslmode=require to the URL if it takes only TLS`;
    case "3D000":
      return `${setting}: the server at ${where} has no database "${database}": create it (createdb -O OWNER ${database}) or correct the URL's database`;
    case "53300":
      return `${setting}: the server at ${where} has no connection left (${message}): raise its max_connections, or lower the gateways' share`;
    case "57P03":
      return `${setting}: the server at ${where} is not accepting connections yet (${message}): start again once it is up`;
    case "ECONNREFUSED":
      return `${setting}: nothing answers at ${where} (connection refused): is PostgreSQL running there, on that port?`;
    case "ENOENT":
      return `${setting}: there is no PostgreSQL socket ${host}/.s.PGSQL.${port}: is PostgreSQL running, with unix_socket_directories naming ${host}?`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `${setting}: the host ${host} is not known (DNS): correct the URL's host`;
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `${setting}: ${where} does not answer (${e.code}): check the host, the port and the firewall between them`;
  }
  // pg's Client says "timeout expired", its Pool "timeout exceeded when trying to connect".
  if (/^timeout expired$|timeout exceeded when trying to connect|connection timeout/i.test(message)) {
    return `${setting}: ${where} does not answer (no reply to connect within DB_ACQUIRE_TIMEOUT_MS): check the host, the port and the firewall between them`;
  }
  if (/does not support SSL/i.test(message)) {
    return `${setting}: the server at ${where} refused TLS, which the URL asks for (sslmode): turn ssl on at the server, or set sslmode=disable where the network is trusted`;
  }
  if (e.code && CERTIFICATE.test(e.code)) {
    return `${setting}: the server at ${where} offered a TLS certificate that is not trusted (${e.code}): name its CA with sslrootcert=/path/to/ca.pem in the URL, or use sslmode=no-verify for TLS without verifying it`;
  }
  return undefined;
}

/**
 * Connects to `url` once, on a connection of its own that gives up after
 * `timeoutMs` (DB_ACQUIRE_TIMEOUT_MS), and runs `SELECT 1`: a server that
 * cannot be used becomes a {@link DatabaseStartError} before anything else
 * waits on it (a command's pool has no time limit to connect).
 */
export async function probe(setting: UrlSetting, url: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (error) {
    const line = explainConnection(error, setting, url);
    throw line ? new DatabaseStartError(line) : error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Whether `error` is PostgreSQL's "permission denied" (SQLSTATE 42501). */
export const isPermissionDenied = (error: unknown): boolean => (error as { code?: unknown } | undefined)?.code === "42501";

/** The line for a role that may not create what the pending migrations create, or write the demo data into an empty database. */
export function cannotMigrate(setting: UrlSetting, url: string, error: unknown): DatabaseStartError {
  const { user } = readPostgresUrl(url);
  const fix =
    setting === "DATABASE_URL"
      ? `set DATABASE_OWNER_URL to the URL of the role that owns the schema (docs/roles.md), or, as the database's owner, GRANT CREATE ON SCHEMA public TO "${user}"`
      : `make "${user}" the schema's owner, or, as the database's owner, GRANT CREATE ON SCHEMA public TO "${user}"`;
  return new DatabaseStartError(
    `${setting}: role "${user}" may not apply the migrations or import the demo data (${(error as Error).message}): ${fix}`,
  );
}

/**
 * Fails with one line when the role of `db` lacks any grant that serving
 * needs (src/db/grants.ts), naming each, up to five.
 */
export async function checkServingGrants(db: Pick<Database, "query">, url: string): Promise<void> {
  const missing = describeMissing(await missingPrivileges(db));
  if (!missing.length) return;
  const { user } = readPostgresUrl(url);
  const named = missing.slice(0, 5).join(", ");
  const more = missing.length > 5 ? ` and ${missing.length - 5} more` : "";
  throw new DatabaseStartError(
    `DATABASE_URL: role "${user}" lacks ${named}${more}, which serving needs: run what \`npm run db:grants -- --role ${user}\` prints, as the schema's owner`,
  );
}

/** Which database a connection reached, and the server's start: the same for two URLs of one database, whatever host names they use. */
async function reached(db: Pick<Database, "query">): Promise<{ database: string; started: string }> {
  const [row] = await db.query<{ database: string; started: string }>(
    "SELECT current_database() AS database, pg_postmaster_start_time()::text AS started",
  );
  return row!;
}

/**
 * Fails with one line when DATABASE_OWNER_URL and DATABASE_URL lead to two
 * databases: the owner would prepare one, and the gateway serve another.
 */
export async function checkSameDatabase(serving: Pick<Database, "query">, owner: Pick<Database, "query">): Promise<void> {
  const [s, o] = await Promise.all([reached(serving), reached(owner)]);
  if (s.database === o.database && s.started === o.started) return;
  const where = s.database === o.database ? ` ("${s.database}" of two servers)` : ` ("${o.database}" and "${s.database}")`;
  throw new DatabaseStartError(
    `DATABASE_OWNER_URL and DATABASE_URL lead to two databases${where}: the owner prepares the one the gateway serves, so name that one in both`,
  );
}
