/**
 * A new, empty database on a PostgreSQL server, for a test file or a
 * benchmark; `drop` removes it (connections included). Needs nothing of
 * vitest, so the benchmarks use it too.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * With `template`, the new database is a copy of that one (which nobody may
 * be connected to), copied file by file where the server can (PostgreSQL 15
 * and later): its default writes every page of the copy to the WAL, which
 * cost the server about twice the CPU for the run's migrated template
 * (9 MB), and the run makes some two hundred of them.
 */
export async function createThrowawayDatabase(
  server: string,
  prefix: string,
  template?: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  let copy = "";
  if (template) {
    const { rows } = await admin.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
    copy = ` TEMPLATE "${template}"${Number(rows[0]?.v) >= 150000 ? " STRATEGY = FILE_COPY" : ""}`;
  }
  await admin.query(`CREATE DATABASE "${name}"${copy}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: server });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}
