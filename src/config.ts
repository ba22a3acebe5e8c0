/**
 * Process configuration, read once from the environment (docs/contract.md §7).
 * Every name here is one that operators and scripts outside the repository
 * rely on; change none of them without changing the contract.
 */
import { resolve } from "node:path";
import * as z from "zod";
import { databaseAddress, POSTGRES_URL_FORMS, PostgresUrlError, readPostgresUrl, withPgSslMode } from "./db/urls.js";
import { isSentinelUrl, RedisUrlError, sentinelOptions } from "./limits/redis-url.js";
import { MAX_COST } from "./input-limits.js";
import proxyAddr from "proxy-addr";

/** Why proxy-addr cannot read a list of trusted proxies (a bad address, range or name), or undefined. */
function trustedProxiesProblem(entries: string[]): string | undefined {
  try {
    proxyAddr.compile(entries);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const emptyAsUndefined = (value: unknown) => (value === "" ? undefined : value);

/**
 * An environment variable: how it is read (empty means unset), and what it
 * allows, as errors and the README say it; given as a function, that text is
 * written only when it is read.
 */
const variable = <T extends z.ZodType>(schema: T, allowed: string | (() => string)) => ({
  schema: z.preprocess(emptyAsUndefined, schema),
  get allowed(): string {
    return typeof allowed === "string" ? allowed : allowed();
  },
});
// Its bounds are written when an error or the README asks: a process's first
// toLocaleString loads the locale data: 25 ms in the CPU profile of `keys list`,
// and 13 ms less CPU on average (40 runs) once it was gone.
const integer = (min: number, max: number, fallback: number) =>
  variable(
    z.coerce.number().int().min(min).max(max).default(fallback),
    () => `an integer from ${min.toLocaleString("en-US")} to ${max.toLocaleString("en-US")} (default ${fallback})`,
  );
const url = (schemes: string[], example: string) =>
  variable(
    z
      .string()
      .refine((value) => URL.canParse(value) && schemes.includes(new URL(value).protocol))
      .optional(),
    `a URL like ${example}, or unset`,
  );
/**
 * A PostgreSQL connection string in any form `pg` connects with
 * (src/db/urls.ts). Beyond a wrong form, what is wrong with it (several
 * hosts, a certificate file that cannot be read) is said instead.
 */
const postgresUrlCheck = (value: string, context: z.RefinementCtx) => {
  try {
    readPostgresUrl(value);
  } catch (error) {
    const said = error instanceof PostgresUrlError && error.specific ? error.message : undefined;
    context.addIssue({ code: "custom", message: "not a PostgreSQL URL", params: { said } });
  }
};
const postgresUrl = () => variable(z.string().superRefine(postgresUrlCheck).optional(), `${POSTGRES_URL_FORMS}, or unset`);

/** A comma-separated value's entries, each trimmed, the empty ones left out. */
const commaList = (list: string): string[] =>
  list
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);

/** Every variable the process reads, validated once at start (docs/contract.md §7). */
export const VARIABLES = {
  PORT: integer(0, 65_535, 4000),
  HOST: variable(z.string().default("127.0.0.1"), "an address to listen on (default 127.0.0.1)"),
  DATABASE_URL: postgresUrl(),
  DATABASE_OWNER_URL: postgresUrl(),
  DATABASE_REPLICA_URLS: variable(
    z
      .string()
      .transform(commaList)
      .pipe(z.array(z.string().superRefine(postgresUrlCheck)))
      .optional(),
    "comma-separated URLs like postgresql://user@replica1:5432/db of streaming replicas of DATABASE_URL, or unset",
  ),
  REPLICA_MAX_LAG_MS: integer(100, 600_000, 5_000),
  DATA_DIR: variable(z.string().default("./data"), "a directory (default ./data)"),
  REDIS_URL: variable(
    z
      .string()
      .refine((value) => isSentinelUrl(value) || (URL.canParse(value) && ["redis:", "rediss:"].includes(new URL(value).protocol)))
      .optional(),
    "a URL like redis://host:6379 or redis+sentinel://host1:26379,host2:26379/mymaster, or unset",
  ),
  RATE_LIMIT_PER_MINUTE: integer(1, 1_000_000, 60),
  RATE_LIMIT_PER_DAY: integer(1, 1_000_000_000, 10_000),
  DB_STATEMENT_TIMEOUT_MS: integer(100, 600_000, 3_000),
  DB_ACQUIRE_TIMEOUT_MS: integer(100, 600_000, 2_000),
  REQUEST_TIMEOUT_MS: integer(100, 600_000, 5_000),
  SHUTDOWN_TIMEOUT_MS: integer(0, 600_000, 10_000),
  USAGE_FLUSH_MS: integer(100, 3_600_000, 10_000),
  QUERY_MAX_COST: integer(1, 100_000_000, MAX_COST),
  RESPONSE_CACHE_MS: integer(0, 604_800_000, 86_400_000),
  RESPONSE_CACHE_MAX_BYTES: integer(65_536, 68_719_476_736, 33_554_432),
  RESPONSE_CACHE_SHARED_MS: integer(0, 604_800_000, 3_600_000),
  TRUSTED_DOCUMENTS: variable(
    z.string().optional(),
    "a JSON file of SHA-256 hash → GraphQL document (or an Apollo persisted query manifest), or unset (any document runs)",
  ),
  WEB_CONCURRENCY: integer(1, 64, 1),
  HEAP_GROWTH_PERCENT: integer(0, 400, 50),
  CORS_ORIGINS: variable(
    z
      .string()
      .transform(commaList)
      .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s]+$/)))
      .optional(),
    "comma-separated origins like https://app.example.org, or unset",
  ),
  TRUSTED_PROXIES: variable(
    z
      .string()
      .transform(commaList)
      .pipe(z.array(z.string()).refine((entries) => trustedProxiesProblem(entries) === undefined))
      .optional(),
    "comma-separated addresses or CIDR ranges of the proxies in front, like 10.0.0.0/8, or loopback, or unset (no X-Forwarded-For is read)",
  ),
  METRICS_PORT: variable(z.coerce.number().int().min(1).max(65_535).optional(), "an integer from 1 to 65,535, or unset (metrics on PORT)"),
  PUBLIC_URL: variable(
    z
      .string()
      .refine((value) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol) && new URL(value).pathname === "/")
      .transform((value) => new URL(value).origin)
      .optional(),
    "a URL like https://data.example.org, or unset (http://HOST:PORT)",
  ),
  SESSION_SECRET: variable(z.string().min(32).optional(), "at least 32 characters, or unset (one made and kept in the database)"),
  OIDC_ISSUER: url(["https:", "http:"], "https://id.example.org"),
  OIDC_CLIENT_ID: variable(z.string().optional(), "the client id registered at the provider, or unset"),
  OIDC_CLIENT_SECRET: variable(z.string().optional(), "the client's secret, or unset (a public client)"),
  ACCOUNT_MAX_KEYS: integer(1, 1_000, 5),
  ACCOUNT_KEY_CREATIONS_PER_HOUR: integer(1, 10_000, 10),
  INGEST_CWA_URL: url(["https:", "http:"], "https://opendata.cwa.gov.tw/api/v1/rest/datastore/O-A0001-001"),
  INGEST_CWA_KEY: variable(z.string().optional(), "the agency's API key, or unset"),
  INGEST_MOENV_URL: url(["https:", "http:"], "https://data.moenv.gov.tw/api/v2/aqx_p_432?format=json"),
  INGEST_MOENV_KEY: variable(z.string().optional(), "the agency's API key, or unset"),
  INGEST_NWS_URL: url(["https:", "http:"], "https://api.weather.gov/stations/KSEA/observations"),
  INGEST_AIRNOW_URL: url(["https:", "http:"], "https://www.airnowapi.org/aq/observation/current/ziplatlong/?format=application/json&…"),
  INGEST_AIRNOW_KEY: variable(z.string().optional(), "the agency's API key, or unset"),
  INGEST_FETCH_TIMEOUT_MS: integer(100, 600_000, 30_000),
  INGEST_FETCH_RETRIES: integer(0, 10, 3),
  LOG_LEVEL: variable(
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    "fatal, error, warn, info, debug, trace or silent (default info)",
  ),
};

const ConfigSchema = z.object(
  Object.fromEntries(Object.entries(VARIABLES).map(([name, v]) => [name, v.schema])) as {
    [K in keyof typeof VARIABLES]: (typeof VARIABLES)[K]["schema"];
  },
);

/** A configuration value is not allowed: the message names each variable and what it allows, on one line. */
export class ConfigError extends Error {}

export interface Config {
  /** TCP port the HTTP server listens on. */
  port: number;
  /** Address the HTTP server binds to. */
  host: string;
  /** PostgreSQL connection string; unset means the embedded PostgreSQL in `dataDir`. */
  databaseUrl: string | undefined;
  /**
   * The connection string of the role that owns the schema (src/db/grants.ts):
   * migrations, the demo import and every command run as it, and the gateway
   * serves as `databaseUrl`'s role; undefined: `databaseUrl`'s role does both.
   */
  ownerUrl: string | undefined;
  /** Streaming replicas of `databaseUrl` that serve the answers' reads (src/db/replicas.ts); empty: the primary serves them. */
  replicaUrls: string[];
  /** Most a replica may lag behind the primary, in ms, and stay in the rotation. */
  replicaMaxLagMs: number;
  /**
   * Directory of the embedded database (used only without `databaseUrl`),
   * absolute: DATA_DIR resolved here, once, against the working directory
   * (`npm start` and `npm run` run in the repository's), so that no later
   * change of directory (a child process's `cwd`) can move it.
   */
  dataDir: string;
  /** Redis connection string for shared rate limits; unset means in-memory. */
  redisUrl: string | undefined;
  /** Default requests per key per clock minute (a key's own limit wins). */
  perMinute: number;
  /** Default requests per key per UTC day (a key's own limit wins). */
  perDay: number;
  /** Time limits of the PostgreSQL connections: statement run time, and the wait for a connection. */
  timeouts: { statementMs: number; acquireMs: number };
  /** Longest one request's execution may take before a 503. */
  requestTimeoutMs: number;
  /** Milliseconds between two writes of a process's usage counts (src/usage/recorder.ts); a SIGKILL loses at most this. */
  usageFlushMs: number;
  /** Highest estimated cost of one GraphQL request (src/schema/cost.ts). */
  queryMaxCost: number;
  /** The longest an answer is kept in memory (src/cache/answers.ts; sooner gone when its data or the clock moves it); 0: no cache. */
  responseCacheMs: number;
  /** Most bytes the answer cache holds (src/cache/answers.ts); the least recently used answers go first. */
  responseCacheMaxBytes: number;
  /** With `redisUrl`, the longest an answer is kept in Redis for every process (src/cache/shared-answers.ts); 0: not shared. */
  responseCacheSharedMs: number;
  /** The file of the only GraphQL documents `/graphql` runs (src/plugins/persisted-documents.ts); undefined: any document. */
  trustedDocuments: string | undefined;
  /** Worker processes sharing the port (src/cluster.ts). */
  webConcurrency: number;
  /** How far V8 may grow the heap past what was live before its next full collection, in percent (src/observe/heap.ts); 0: V8's own rule. */
  heapGrowthPercent: number;
  /** Origins whose pages may read answers and call `/mcp`; undefined: any origin may read. */
  corsOrigins: string[] | undefined;
  /** The proxies whose `X-Forwarded-For` names the client (src/plugins/api-keys.ts); undefined: the socket's peer is the client. */
  trustedProxies: string[] | undefined;
  /** pino log level. */
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** Longest a shutdown waits for requests in flight before it closes the rest. */
  shutdownTimeoutMs: number;
  /** A port of its own for `/metrics` (on `host`); undefined: `/metrics` is served on `port`. */
  metricsPort: number | undefined;
  /** The origin the service is reached at: sign-in links and the OpenID Connect redirect are under it. */
  publicUrl: string;
  /** "My API Keys": sign-in, sessions and each account's keys. */
  account: {
    /** Seals session cookies; undefined: one is made and kept in the database. */
    sessionSecret: string | undefined;
    /** The identity provider, when OIDC_ISSUER and OIDC_CLIENT_ID are set. */
    oidc: { issuer: string; clientId: string; clientSecret: string | undefined } | undefined;
    maxKeys: number;
    creationsPerHour: number;
  };
  /** Where `npm run ingest -- --fetch` gets each agency's payload, and how hard it tries. */
  ingest: {
    urls: Record<"cwa" | "moenv" | "nws" | "airnow", string | undefined>;
    keys: Record<"cwa" | "moenv" | "airnow", string | undefined>;
    /** Longest one attempt may take, answer included. */
    timeoutMs: number;
    /** Attempts after the first, after 0.5 s, 1 s, 2 s, … */
    retries: number;
  };
}

/**
 * Reads and validates the configuration; throws a {@link ConfigError} naming
 * every bad variable and what it allows. Values are never repeated: a
 * connection string may hold a password.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    // Each variable once: what its own check said (a custom issue), or what it allows.
    const said = new Map<keyof typeof VARIABLES, string>();
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0]) as keyof typeof VARIABLES;
      const specific: unknown = issue.code === "custom" ? issue.params?.said : undefined;
      if (!said.has(name)) said.set(name, typeof specific === "string" ? specific : `must be ${VARIABLES[name].allowed}`);
    }
    throw new ConfigError(`invalid configuration: ${[...said].map(([name, what]) => `${name} ${what}`).join("; ")}`);
  }
  const c = parsed.data;
  if ((c.OIDC_ISSUER === undefined) !== (c.OIDC_CLIENT_ID === undefined) || (c.OIDC_CLIENT_SECRET && !c.OIDC_ISSUER)) {
    throw new ConfigError("invalid configuration: OIDC_ISSUER and OIDC_CLIENT_ID go together (OIDC_CLIENT_SECRET only with them)");
  }
  if (c.REDIS_URL && isSentinelUrl(c.REDIS_URL)) {
    try {
      sentinelOptions(c.REDIS_URL);
    } catch (error) {
      if (error instanceof RedisUrlError) throw new ConfigError(`invalid configuration: ${error.message}`);
      throw error;
    }
  }
  if (c.DATABASE_OWNER_URL && !c.DATABASE_URL) {
    throw new ConfigError("invalid configuration: DATABASE_OWNER_URL needs DATABASE_URL (the embedded database has one role)");
  }
  const replicaUrls = (c.DATABASE_REPLICA_URLS ?? []).map(withPgSslMode);
  if (replicaUrls.length && !c.DATABASE_URL) {
    throw new ConfigError("invalid configuration: DATABASE_REPLICA_URLS needs DATABASE_URL (the embedded database has no replicas)");
  }
  const seen = new Map<string, number>(c.DATABASE_URL ? [[databaseAddress(c.DATABASE_URL), 0]] : []);
  for (const [index, url] of replicaUrls.entries()) {
    const address = databaseAddress(url);
    const same = seen.get(address);
    if (same === 0) {
      throw new ConfigError(
        `invalid configuration: DATABASE_REPLICA_URLS names the primary itself (replica ${index + 1}, ${address}, is DATABASE_URL's server and database): list only its streaming replicas`,
      );
    }
    if (same !== undefined) {
      throw new ConfigError(`invalid configuration: DATABASE_REPLICA_URLS names ${address} twice (replicas ${same} and ${index + 1})`);
    }
    seen.set(address, index + 1);
  }
  const listenHost = c.HOST.includes(":") ? `[${c.HOST}]` : c.HOST;
  return {
    port: c.PORT,
    host: c.HOST,
    databaseUrl: c.DATABASE_URL && withPgSslMode(c.DATABASE_URL),
    ownerUrl: c.DATABASE_OWNER_URL && withPgSslMode(c.DATABASE_OWNER_URL),
    replicaUrls,
    replicaMaxLagMs: c.REPLICA_MAX_LAG_MS,
    dataDir: resolve(c.DATA_DIR),
    redisUrl: c.REDIS_URL,
    perMinute: c.RATE_LIMIT_PER_MINUTE,
    perDay: c.RATE_LIMIT_PER_DAY,
    timeouts: { statementMs: c.DB_STATEMENT_TIMEOUT_MS, acquireMs: c.DB_ACQUIRE_TIMEOUT_MS },
    requestTimeoutMs: c.REQUEST_TIMEOUT_MS,
    queryMaxCost: c.QUERY_MAX_COST,
    responseCacheMs: c.RESPONSE_CACHE_MS,
    responseCacheMaxBytes: c.RESPONSE_CACHE_MAX_BYTES,
    responseCacheSharedMs: c.RESPONSE_CACHE_SHARED_MS,
    trustedDocuments: c.TRUSTED_DOCUMENTS,
    webConcurrency: c.WEB_CONCURRENCY,
    heapGrowthPercent: c.HEAP_GROWTH_PERCENT,
    corsOrigins: c.CORS_ORIGINS,
    trustedProxies: c.TRUSTED_PROXIES,
    logLevel: c.LOG_LEVEL,
    shutdownTimeoutMs: c.SHUTDOWN_TIMEOUT_MS,
    usageFlushMs: c.USAGE_FLUSH_MS,
    metricsPort: c.METRICS_PORT,
    publicUrl: c.PUBLIC_URL ?? `http://${listenHost === "0.0.0.0" || listenHost === "[::]" ? "127.0.0.1" : listenHost}:${c.PORT}`,
    account: {
      sessionSecret: c.SESSION_SECRET,
      oidc:
        c.OIDC_ISSUER && c.OIDC_CLIENT_ID
          ? { issuer: c.OIDC_ISSUER, clientId: c.OIDC_CLIENT_ID, clientSecret: c.OIDC_CLIENT_SECRET }
          : undefined,
      maxKeys: c.ACCOUNT_MAX_KEYS,
      creationsPerHour: c.ACCOUNT_KEY_CREATIONS_PER_HOUR,
    },
    ingest: {
      urls: { cwa: c.INGEST_CWA_URL, moenv: c.INGEST_MOENV_URL, nws: c.INGEST_NWS_URL, airnow: c.INGEST_AIRNOW_URL },
      keys: { cwa: c.INGEST_CWA_KEY, moenv: c.INGEST_MOENV_KEY, airnow: c.INGEST_AIRNOW_KEY },
      timeoutMs: c.INGEST_FETCH_TIMEOUT_MS,
      retries: c.INGEST_FETCH_RETRIES,
    },
  };
}
