/**
 * PostgreSQL connection strings as operators write them: every form that
 * `pg` (node-postgres) connects with is read here the way `pg` reads it
 * (its own parser, pg-connection-string), so that what the configuration
 * accepts is exactly what the pool can open.
 *
 * - `postgresql://user:password@host:5432/db?sslmode=require`
 * - a Unix socket: `postgresql://user@/db?host=/var/run/postgresql`, a
 *   percent-encoded socket directory as the host
 *   (`postgresql://user@%2Fvar%2Frun%2Fpostgresql/db`), `socket:/dir?db=db`,
 *   or libpq's `/dir db`.
 *
 * Several hosts in one URL (libpq's `host1,host2`) are not something `pg`
 * connects with: such a URL is refused with what to write instead.
 */
import { parse } from "pg-connection-string";

/** What the configuration says a PostgreSQL URL may be. */
export const POSTGRES_URL_FORMS = "a URL like postgresql://user@host:5432/db or postgresql://user@/db?host=/var/run/postgresql";

/**
 * A connection string that `pg` would not connect with; the message never
 * repeats the string (it may hold a password). `specific`: it says more than
 * which forms are allowed (several hosts, a file that cannot be read).
 */
export class PostgresUrlError extends Error {
  constructor(
    message: string,
    readonly specific = true,
  ) {
    super(message);
  }
}

/** Where a connection string leads, as `pg` reads it. */
export interface PostgresTarget {
  /** A host name or address, or a socket directory (starting with `/`). */
  host: string;
  port: number;
  database: string;
  user: string;
}

const SCHEME = /^(postgres|postgresql):\/\/|^socket:|^\//i;

/**
 * `value` with the TLS mode `pg` gives it written out: `sslmode=prefer`,
 * `require` and `verify-ca` are, to `pg` 8, `verify-full` (the server's
 * certificate is verified), which it says in a warning of eight lines on
 * every start. The same connection, without the warning; for TLS without
 * verification, `sslmode=no-verify` (or libpq's meaning, with
 * `uselibpqcompat=true`, left as it is).
 */
export function withPgSslMode(value: string): string {
  if (/[?&]uselibpqcompat=true(&|$)/i.test(value)) return value;
  return value.replace(/([?&]sslmode=)(prefer|require|verify-ca)(?=&|$)/i, "$1verify-full");
}

/** Reads `value` as `pg` does; throws a {@link PostgresUrlError} saying what is wrong with it. */
export function readPostgresUrl(value: string): PostgresTarget {
  if (!SCHEME.test(value)) throw new PostgresUrlError(`must be ${POSTGRES_URL_FORMS}`, false);
  let config: ReturnType<typeof parse>;
  try {
    config = parse(withPgSslMode(value));
  } catch (error) {
    // An sslrootcert, sslcert or sslkey file that cannot be read is the one case worth naming.
    const code = (error as NodeJS.ErrnoException).code;
    const path = (error as NodeJS.ErrnoException).path;
    if (code && path) throw new PostgresUrlError(`names a file that cannot be read (${path}: ${code})`);
    throw new PostgresUrlError(`must be ${POSTGRES_URL_FORMS}`, false);
  }
  const host = config.host || "localhost";
  if (host.includes(",")) {
    throw new PostgresUrlError(
      "names several hosts, which pg does not connect to: name one server (the primary, or a proxy in front of them), and its streaming replicas in DATABASE_REPLICA_URLS",
    );
  }
  const port = config.port ? Number(config.port) : 5432;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new PostgresUrlError(`must be ${POSTGRES_URL_FORMS}`, false);
  // pg's defaults: the user of the process, and a database named as the user.
  const user = config.user || process.env.PGUSER || process.env.USER || "postgres";
  return { host, port, user, database: config.database || user };
}

/**
 * The server and database a connection string names, as `host:port/database`
 * (never its user's password): what tells two URLs of one database apart
 * from two databases.
 */
export function databaseAddress(value: string): string {
  const { host, port, database } = readPostgresUrl(value);
  return `${host.toLowerCase()}:${port}/${database}`;
}
