/**
 * Process configuration, read once from the environment (docs/contract.md §7).
 * Every name here is one that operators and scripts outside the repository
 * rely on; change none of them without changing the contract.
 */
import { z } from "zod";
import { MAX_COST } from "./schema/cost.js";

const emptyAsUndefined = (value: unknown) => (value === "" ? undefined : value);

const ConfigSchema = z.object({
  PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(4000)),
  HOST: z.preprocess(emptyAsUndefined, z.string().default("127.0.0.1")),
  DATABASE_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default("./data")),
  REDIS_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  RATE_LIMIT_PER_MINUTE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(60)),
  RATE_LIMIT_PER_DAY: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(10_000)),
  DB_STATEMENT_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).max(600_000).default(3_000)),
  DB_ACQUIRE_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).max(600_000).default(2_000)),
  REQUEST_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).max(600_000).default(5_000)),
  QUERY_MAX_COST: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).default(MAX_COST)),
  CORS_ORIGINS: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .transform((list) =>
        list
          .split(",")
          .map((o) => o.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, "each origin is scheme://host[:port], like https://app.example.org")))
      .optional(),
  ),
  LOG_LEVEL: z.preprocess(emptyAsUndefined, z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info")),
});

export interface Config {
  /** TCP port the HTTP server listens on. */
  port: number;
  /** Address the HTTP server binds to. */
  host: string;
  /** PostgreSQL connection string; unset means the embedded PGlite database. */
  databaseUrl: string | undefined;
  /** Directory of the embedded database (used only without `databaseUrl`). */
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
  /** Highest estimated cost of one GraphQL request (src/schema/cost.ts). */
  queryMaxCost: number;
  /** Origins whose pages may read answers and call `/mcp`; undefined: any origin may read. */
  corsOrigins: string[] | undefined;
  /** pino log level. */
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
}

/** Reads and validates the configuration; throws with every problem named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid configuration: ${problems.join("; ")}`);
  }
  const c = parsed.data;
  return {
    port: c.PORT,
    host: c.HOST,
    databaseUrl: c.DATABASE_URL,
    dataDir: c.DATA_DIR,
    redisUrl: c.REDIS_URL,
    perMinute: c.RATE_LIMIT_PER_MINUTE,
    perDay: c.RATE_LIMIT_PER_DAY,
    timeouts: { statementMs: c.DB_STATEMENT_TIMEOUT_MS, acquireMs: c.DB_ACQUIRE_TIMEOUT_MS },
    requestTimeoutMs: c.REQUEST_TIMEOUT_MS,
    queryMaxCost: c.QUERY_MAX_COST,
    corsOrigins: c.CORS_ORIGINS,
    logLevel: c.LOG_LEVEL,
  };
}
