/**
 * `npm run db:grants` (src/cli/commands/grants.ts): what it prints for any
 * role name is SQL that PostgreSQL runs as written and that gives that role
 * what serving needs (src/db/grants.ts), and nothing it does not need;
 * bad input is a usage error (exit 2) that prints nothing to run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantsCommand } from "../../src/cli/commands/grants.js";
import type { CommandIO } from "../../src/cli/command.js";
import type { Database } from "../../src/db/driver.js";
import { describeMissing, missingPrivileges } from "../../src/db/grants.js";
import { freshDatabase } from "../support/databases.js";

/** Runs the command with `args` and DATABASE_URL set to `url` (or unset). */
async function grants(args: string[], url?: string): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io = { out: (t: string) => (out += t), err: (t: string) => (err += t) } as unknown as CommandIO;
  const saved = process.env.DATABASE_URL;
  if (url === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = url;
  try {
    const code = await grantsCommand.run(args, io, () => {
      throw new Error("db:grants opens no database");
    });
    return { code, out, err };
  } finally {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
}

describe("npm run db:grants", () => {
  let db: Database;
  const ROLE = 'odd "role"; DROP TABLE course; --';
  let database: string;

  beforeAll(async () => {
    db = await freshDatabase();
    database = (await db.query<{ d: string }>("SELECT current_database() AS d"))[0]!.d;
    await db.exec(`DROP ROLE IF EXISTS "${ROLE.replaceAll('"', '""')}"`);
    await db.exec(`CREATE ROLE "${ROLE.replaceAll('"', '""')}"`);
  }, 60_000);

  afterAll(async () => {
    if (!db) return;
    await db.exec(`DROP OWNED BY "${ROLE.replaceAll('"', '""')}"; DROP ROLE IF EXISTS "${ROLE.replaceAll('"', '""')}"`);
    await db.close();
  });

  it("prints statements PostgreSQL runs for any role name, giving it reads everywhere and only serving's writes", async () => {
    const printed = await grants(["--role", ROLE, "--database", database]);
    expect(printed).toMatchObject({ code: 0, err: "" });
    await db.exec(printed.out);
    const may = async (table: string, privilege: string) =>
      (await db.query<{ ok: boolean }>("SELECT has_table_privilege($1, $2, $3) AS ok", [ROLE, table, privilege]))[0]!.ok;
    expect(await may("course", "SELECT")).toBe(true);
    expect(await may("course", "UPDATE")).toBe(false);
    expect(await may("course", "TRUNCATE")).toBe(false);
    expect(await may("usage_day", "DELETE")).toBe(true);
    expect(await may("university", "INSERT")).toBe(false);
    expect(await may("api_key", "DELETE")).toBe(false);
    expect(await db.query("SELECT count(*) FROM course")).toBeDefined(); // the role name's SQL ran as a name, not a statement
  });

  it("names the database of DATABASE_URL, in any URL form, unless --database is given", async () => {
    const first = (r: { out: string }) => r.out.split("\n")[0];
    expect(first(await grants(["--role", "gw"], "postgresql://app@/uedu?host=/var/run/postgresql"))).toBe(
      'GRANT CONNECT ON DATABASE "uedu" TO "gw";',
    );
    expect(first(await grants(["--role", "gw", "--database", "other"], "postgresql://app@db/uedu"))).toBe(
      'GRANT CONNECT ON DATABASE "other" TO "gw";',
    );
  });

  it.each([
    [[], undefined, "usage: give the serving role: --role NAME"],
    [["--role", ""], undefined, "usage: --role must be a role name of 1 to 63 characters"],
    [["--role", "x".repeat(64)], undefined, "usage: --role must be a role name of 1 to 63 characters"],
    [["--role", "gw"], undefined, "usage: give the database: --database NAME (DATABASE_URL is unset)"],
    [["--role", "gw", "--database", ""], "postgresql://app@db/uedu", "usage: --database must be a database name of 1 to 63 characters"],
    [["--role", "gw", "--owner", "x"], undefined, "db:grants: Unknown option '--owner'"],
  ])("refuses %j with exit 2 and prints nothing to run", async (args, url, message) => {
    const refused = await grants(args, url);
    expect(refused.code).toBe(2);
    expect(refused.out).toBe("");
    expect(refused.err.split("\n")[0]).toContain(message);
  });

  it("finds, as the role itself, nothing missing once the grants are given, and each table's missing privileges before", async () => {
    const asRole = (role: string) =>
      db.transaction(async (tx) => {
        await tx.exec(`SET LOCAL ROLE "${role.replaceAll('"', '""')}"`);
        return describeMissing(await missingPrivileges(tx));
      });
    expect(await asRole(ROLE)).toEqual([]);
    await db.exec('DROP ROLE IF EXISTS "uedu no grants"; CREATE ROLE "uedu no grants"');
    try {
      const missing = await asRole("uedu no grants");
      expect(missing).toContain("SELECT on course");
      expect(missing).toContain(
        "UPDATE (last_used_at, revoked_at, expires_at, hash, prefix, rolled_at, previous_hash, previous_until, allowed_origins, " +
          "allowed_addresses, allowed_surfaces, documents_only, visitor_per_minute, visitor_per_day) on api_key",
      );
      expect(missing).toContain("USAGE on sequence usage_coordinate_id_seq");
      expect(missing).not.toContainEqual(expect.stringMatching(/^(INSERT|UPDATE|DELETE)\b.* on (course|university|paper)$/));
    } finally {
      await db.exec('DROP ROLE "uedu no grants"');
    }
  });
});
