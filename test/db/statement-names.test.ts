/**
 * The gateway's reads go as named statements (src/db/statement-names.ts), so
 * that each connection parses and plans one of them once: a name per read's
 * text, none for a write, none past the bound; and on a real connection the
 * read client's statements are prepared there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReadClient, type ReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { statementNames } from "../../src/db/statement-names.js";
import { freshDatabase } from "../support/databases.js";

const query = (sql: string) => ({ sql, args: [], argTypes: [] });

describe("statement names", () => {
  it("names each read by its text, and no write", () => {
    const name = statementNames();
    const first = name(query('SELECT "t0"."id" FROM "public"."university" AS "t0" LIMIT $1'));
    expect(first).toMatch(/^uedu_[\w-]{32}$/);
    expect(name(query('SELECT "t0"."id" FROM "public"."university" AS "t0" LIMIT $1'))).toBe(first);
    expect(name(query("  WITH x AS (SELECT 1) SELECT * FROM x"))).toMatch(/^uedu_/);
    expect(name(query('SELECT "t0"."id" FROM "public"."course" AS "t0"'))).not.toBe(first);
    for (const write of ["INSERT INTO usage_day VALUES ($1)", "UPDATE api_key SET last_used_at = now()", "DELETE FROM school_day", "BEGIN"])
      expect(name(query(write)), write).toBeUndefined();
  });

  it("names only the first texts up to its bound, and those always", () => {
    const name = statementNames(2);
    const a = name(query("SELECT 1"));
    const b = name(query("SELECT 2"));
    expect(name(query("SELECT 3"))).toBeUndefined();
    expect([name(query("SELECT 1")), name(query("SELECT 2"))]).toEqual([a, b]);
  });
});

describe("the read client's statements, on a connection", () => {
  let db: Database;
  let prisma: ReadClient;
  beforeAll(async () => {
    db = await freshDatabase();
    prisma = createReadClient(db);
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await db.close();
  });

  it("are prepared there once, by name", async () => {
    const adapter = await db.adapter.connect();
    try {
      for (let i = 0; i < 3; i++) await prisma.university.findMany({ select: { id: true }, take: 2 });
      // One statement at a time: the pool hands out the connection it got back last.
      const { rows } = await adapter.queryRaw(query("SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'uedu_%'"));
      const statements = rows.map(([, statement]) => String(statement));
      expect(statements.filter((s) => s.includes('FROM "public"."university"'))).toHaveLength(1);
      expect(statements.some((s) => s.includes("pg_prepared_statements"))).toBe(true);
    } finally {
      await adapter.dispose();
    }
  });
});
