/** `npm run db:migrate` as a process, on an embedded DATA_DIR and on PostgreSQL. */
import { rmSync } from "node:fs";

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pendingMigrations, readMigrations } from "../../src/db/migrate.js";
import { cli } from "../support/cli.js";
import { freshDatabase } from "../support/databases.js";
import { tempDir } from "../support/temp.js";

const APPLIED = readMigrations()
  .map((m) => `applied ${m.name}\n`)
  .join("");

/** Runs db:migrate with `vars` (DATA_DIR, DATABASE_URL) in its environment. */
const migrateCli = (vars: Record<string, string | undefined>) => cli(vars.DATA_DIR ?? "./data", "migrate", [], { env: vars });

let tmp: string;
beforeAll(() => {
  tmp = tempDir("migrate-cli-");
});
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe("npm run db:migrate", () => {
  it("migrates an empty DATA_DIR, then finds it up to date", async () => {
    const vars = { DATA_DIR: join(tmp, "data"), DATABASE_URL: undefined };
    expect(await migrateCli(vars)).toEqual({ code: 0, stdout: APPLIED, stderr: "" });
    expect(await migrateCli(vars)).toEqual({ code: 0, stdout: "database is up to date\n", stderr: "" });
  }, 60_000);

  it("migrates a PostgreSQL database named by DATABASE_URL", async () => {
    const db = await freshDatabase();
    try {
      await db.exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public;`);
      expect(await migrateCli({ DATABASE_URL: db.url })).toEqual({ code: 0, stdout: APPLIED, stderr: "" });
      expect(await pendingMigrations(db)).toEqual([]);
    } finally {
      await db.close();
    }
  }, 60_000);

  it("fails with one line: exit 2 on a bad configuration, exit 1 on an unreachable server", async () => {
    expect(await migrateCli({ DATABASE_URL: "not a url" })).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "db:migrate failed: invalid configuration: DATABASE_URL must be a URL like postgresql://user@host:5432/db or postgresql://user@/db?host=/var/run/postgresql, or unset\n",
    });
    expect(await migrateCli({ DATABASE_URL: "postgresql://postgres@127.0.0.1:1/none" })).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "db:migrate failed: DATABASE_URL: nothing answers at 127.0.0.1:1 (connection refused): is PostgreSQL running there, on that port?\n",
    });
  }, 60_000);
});
