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
 * - a template database holding the demo data as well, made by the first
 *   test that asks for one (see `demoTemplate`), for gateways that serve the
 *   demo data and are not testing its import: the import costs about 12 s of
 *   CPU (the gateway's and the server's), a copy a fraction of a second.
 *
 * The tests of a fresh start (an empty DATA_DIR, `npm start` on a new
 * machine, `db:migrate`) do not use them.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, cpSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { demoExportRecords } from "../../src/demo/index.js";
import { importExport } from "../../src/import/apply.js";
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
    for (const name of Object.values(demoTemplateNames(database))) {
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    }
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

/** The names of the demo template beside the run's migrated template `database`: whole, and while it is made. */
const demoTemplateNames = (database: string) => ({ name: `${database}_demo`, making: `${database}_demo_making` });

/** Serialises the making of the demo template across the run's workers. */
const DEMO_TEMPLATE_LOCK = 727_101;

/**
 * The name of a template database on `server` holding what a gateway's first
 * start imports into an empty database (the demo data, as of now), made from
 * the migrated template the first time any worker asks, then reused by all.
 */
export async function demoTemplate(server: string, templates: Templates): Promise<string> {
  const { name, making } = demoTemplateNames(templates.database);
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query("SELECT pg_advisory_lock($1)", [DEMO_TEMPLATE_LOCK]);
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount) return name;
    // Made under another name and renamed when whole, so that no copy is taken of half of it.
    await admin.query(`DROP DATABASE IF EXISTS "${making}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${making}" TEMPLATE "${templates.database}"`);
    const url = new URL(server);
    url.pathname = `/${making}`;
    const db = await openDatabase({ databaseUrl: url.toString() });
    try {
      await importExport(db, demoExportRecords());
    } finally {
      await db.close();
    }
    await admin.query(`ALTER DATABASE "${making}" RENAME TO "${name}"`);
    return name;
  } finally {
    await admin.end();
  }
}
