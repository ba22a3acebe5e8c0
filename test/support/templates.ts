/**
 * What the global setup migrates once for the whole run, so that a test that
 * needs an empty, migrated database, and is not testing how one is created,
 * starts from a copy instead of applying every migration again:
 *
 * - a template database on the run's PostgreSQL server, which
 *   `CREATE DATABASE … TEMPLATE` copies (see `databases.ts`);
 * - a DATA_DIR whose embedded cluster is migrated and stopped, which is
 *   copied file by file for a gateway or command to start on.
 *
 * The tests of a fresh start (an empty DATA_DIR, `npm start` on a new
 * machine, `db:migrate`) do not use them.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, cpSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { openDatabase, openEmbedded } from "../../src/db/driver.js";
import { CLUSTER_DIR } from "../../src/db/cluster-dir.js";
import { migrate } from "../../src/db/migrate.js";
import { serverUser } from "../../src/db/postgres-programs.js";
import { tempDir } from "./temp.js";

/** Where the run's templates are. */
export interface Templates {
  /** The name of the migrated template database on the run's PostgreSQL server. */
  database: string;
  /** A migrated DATA_DIR, its server stopped; copy it, never open it. */
  dataDir: string;
}

/** Makes both templates; `remove` drops and deletes them. */
export async function makeTemplates(server: string): Promise<Templates & { remove(): Promise<void> }> {
  const root = tempDir("gw-templates-");
  const database = `gw_template_${randomBytes(4).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const remove = async () => {
    rmSync(root, { recursive: true, force: true });
    await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => undefined);
  };
  try {
    const dataDir = join(root, "data");
    await Promise.all([
      (async () => {
        await admin(`CREATE DATABASE "${database}"`);
        const url = new URL(server);
        url.pathname = `/${database}`;
        const db = await openDatabase({ databaseUrl: url.toString() });
        try {
          await migrate(db);
        } finally {
          await db.close();
        }
      })(),
      (async () => {
        // Closing the last (only) user stops the server cleanly.
        const db = await openEmbedded(dataDir, { role: "template" });
        try {
          await migrate(db);
        } finally {
          await db.close();
        }
      })(),
    ]);
    return { database, dataDir, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * Gives `copy` and everything under it the modes of `original` (fs.cp keeps
 * them on some Node versions only, and PostgreSQL refuses a cluster that
 * others may read), and the user the embedded server runs as, when that is
 * not this one.
 */
function likeOriginal(original: string, copy: string): void {
  const user = serverUser();
  const walk = (from: string, to: string) => {
    const stat = statSync(from);
    chmodSync(to, stat.mode & 0o7777);
    if (user) chownSync(to, user.uid, user.gid);
    if (stat.isDirectory()) for (const name of readdirSync(from)) walk(join(from, name), join(to, name));
  };
  walk(original, copy);
}

/** Puts a copy of the template DATA_DIR at `dataDir` (which must not exist yet), for a command or gateway to start on. */
export function copyDataDir(templates: Templates, dataDir: string): string {
  cpSync(templates.dataDir, dataDir, { recursive: true, errorOnExist: true, force: false });
  likeOriginal(join(templates.dataDir, CLUSTER_DIR), join(dataDir, CLUSTER_DIR));
  return dataDir;
}
