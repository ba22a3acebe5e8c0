/**
 * The gateway's reads go as named statements (src/db/statement-names.ts), so
 * that each connection parses and plans one of them once: a name per read's
 * text, none for a write, none past the bound; and on a real connection the
 * read client's statements are prepared there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReadClient, queryText, type ReadClient } from "../../src/db/client.js";
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

  it("the planner's statements (queryText) too, under the name the adapter gives their text, with Prisma's own parameters' forms", async () => {
    // Its own name, as it sees itself prepared on its connection while it runs; the same text through the adapter's namer.
    const sql = "SELECT (SELECT name FROM pg_prepared_statements WHERE statement LIKE '%prepared-marker%' || $1::text)::text AS body";
    const name = await queryText(prisma, sql, ["body"]);
    expect(name).toBe(statementNames()(query(sql)));
    expect(await queryText(prisma, sql, ["body"])).toBe(name);
    // A Date goes through the adapter, which writes it in UTC (as Prisma writes every timestamp), not in pg's local time.
    const zone = process.env.TZ;
    process.env.TZ = "Asia/Taipei";
    try {
      expect(await queryText(prisma, "SELECT $1::timestamp::text AS body", [new Date("2026-01-02T03:04:05.678Z")])).toBe(
        "2026-01-02 03:04:05.678",
      );
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    expect(await queryText(prisma, "SELECT array_to_json($1::int[])::text AS body", [[1, null, 3]])).toBe("[1,null,3]");
  });
});
