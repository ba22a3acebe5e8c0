/**
 * The migrations under prisma/migrations: applied once each, refused when an
 * applied file changed, transactional, and together they build exactly the
 * data model of prisma/schema.prisma — on the embedded PostgreSQL (the
 * default's) and on the run's server (often another version).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWriteClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { MIGRATIONS_DIR, type Migration, migrate, pendingMigrations, readMigrations } from "../../src/db/migrate.js";
import * as enums from "../../src/generated/prisma/enums.js";
import { getDatamodel } from "../../src/generated/pothos-types.js";
import { freshDatabase, freshEmbedded } from "../support/databases.js";
import { startGateway } from "../support/gateway-process.js";

const FILES = readdirSync(MIGRATIONS_DIR).sort();
const NAMES = readMigrations().map((m) => m.name);
const SCHEMA = readFileSync(join(MIGRATIONS_DIR, "..", "schema.prisma"), "utf8");

/** A database with nothing in it: the factories migrate, so the schema is wiped again. */
async function emptied(db: Database): Promise<Database> {
  await db.exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public;`);
  return db;
}

const tableExists = async (db: Database, table: string) =>
  (await db.query<{ t: string | null }>(`SELECT to_regclass($1)::text AS t`, [table]))[0]?.t === table;

const extra = (name: string, sql: string): Migration => ({
  name,
  sql,
  checksum: createHash("sha256").update(sql).digest("hex"),
});

describe.each([
  ["the embedded PostgreSQL", freshEmbedded],
  ["the run's server", freshDatabase],
] as const)("migrations on %s", (_kind, factory) => {
  let db: Database;
  beforeAll(async () => {
    db = await emptied(await factory());
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it("reads every migration folder, in name order, with the sha256 of its file", () => {
    expect(NAMES).toEqual(FILES);
    expect(NAMES[0]).toBe("20261122000000_init");
    const sql = readFileSync(join(MIGRATIONS_DIR, FILES[0]!, "migration.sql"), "utf8");
    expect(readMigrations()[0]!.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
  });

  it("an empty database has every migration pending", async () => {
    expect(await pendingMigrations(db)).toEqual(NAMES);
  });

  it("applies them once: concurrent callers wait for each other, a second run applies nothing", async () => {
    const results = await Promise.all([migrate(db), migrate(db)]);
    expect(results.sort((a, b) => b.length - a.length)).toEqual([NAMES, []]);
    expect(await pendingMigrations(db)).toEqual([]);
    expect(await migrate(db)).toEqual([]);
    const rows = await db.query<{ migration_name: string; checksum: string; done: boolean; steps: number }>(
      `SELECT migration_name, checksum, finished_at IS NOT NULL AS done, applied_steps_count AS steps FROM "_prisma_migrations"`,
    );
    expect(rows).toEqual(readMigrations().map((m) => ({ migration_name: m.name, checksum: m.checksum, done: true, steps: 1 })));
  });

  it("applies a new migration, and only that one", async () => {
    const next = [...readMigrations(), extra("29990101000000_probe", `CREATE TABLE probe_a (x int)`)];
    expect(await pendingMigrations(db, next)).toEqual(["29990101000000_probe"]);
    expect(await migrate(db, next)).toEqual(["29990101000000_probe"]);
    expect(await tableExists(db, "probe_a")).toBe(true);
    expect(await pendingMigrations(db, next)).toEqual([]);
  });

  it("refuses a migration whose file changed after it was applied, naming it, and applies nothing", async () => {
    const changed = readMigrations().map((m) => ({ ...m, checksum: "0".repeat(64) }));
    const next = [...changed, extra("29990101000001_probe", `CREATE TABLE probe_b (x int)`)];
    await expect(migrate(db, next)).rejects.toThrow("migration 20261122000000_init was changed after it was applied (checksum differs)");
    expect(await tableExists(db, "probe_b")).toBe(false);
  });

  it("ends npm start in one line, exit 1, when an applied migration was edited since", async () => {
    const edited = await freshDatabase();
    try {
      await edited.query(`UPDATE "_prisma_migrations" SET checksum = $1 WHERE migration_name = $2`, ["0".repeat(64), NAMES[0]]);
      const gateway = await startGateway("edited migration", { DATABASE_URL: edited.url });
      expect(await gateway.exited).toBe(1);
      expect(gateway.output()).toBe(
        `npm start: migration ${NAMES[0]} was changed after it was applied (checksum differs): put prisma/migrations/${NAMES[0]}/migration.sql back as it was applied (git log -p shows it), and make the change a new migration\n`,
      );
    } finally {
      await edited.close();
    }
  }, 60_000);

  it("rolls a failing migration back completely", async () => {
    const next = [
      ...readMigrations(),
      extra("29990101000002_good", `CREATE TABLE probe_c (x int)`),
      extra("29990101000003_bad", `CREATE TABLE probe_d (x int); SELECT * FROM no_such_table;`),
    ];
    await expect(migrate(db, next)).rejects.toThrow(/no_such_table/);
    expect(await tableExists(db, "probe_c")).toBe(false);
    expect(await tableExists(db, "probe_d")).toBe(false);
    expect(await pendingMigrations(db, next)).toEqual(["29990101000002_good", "29990101000003_bad"]);
  });

  it("the migrated database matches schema.prisma", async () => {
    await db.exec(`DROP TABLE probe_a`);
    const models = Object.entries(getDatamodel().datamodel.models);
    // The generated client knows exactly the models of schema.prisma.
    expect(models.map(([name]) => name).sort()).toEqual([...SCHEMA.matchAll(/^model (\w+) \{/gm)].map((m) => m[1]).sort());
    expect(models.length).toBeGreaterThanOrEqual(9);

    // 1. Every table has exactly the columns of its model, with their types.
    const tables = await db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
    );
    expect(tables.map((t) => t.table_name).sort()).toEqual([...models.map(([name]) => mapping(name).table), "_prisma_migrations"].sort());
    for (const [name, { fields }] of models) {
      const { table, columns } = mapping(name);
      const actual = await db.query<Record<string, string>>(
        // A column PostgreSQL computes (GENERATED ALWAYS) has a default in Prisma's terms: the database supplies it.
        `SELECT column_name, data_type, udt_name, is_nullable, column_default IS NOT NULL OR is_generated = 'ALWAYS' AS has_default
           FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY column_name`,
        [table],
      );
      const expected = fields
        .filter((f) => f.kind !== "object")
        .map((f) => {
          const column = columns.get(f.name);
          return {
            column_name: column?.name ?? f.name,
            ...sqlType(f.kind, f.type, f.isList, column?.native),
            // Prisma leaves list columns nullable, as its own migrations do.
            is_nullable: f.isRequired && !f.isList ? "NO" : "YES",
            has_default: f.hasDefaultValue,
          };
        })
        .sort((a, b) => (a.column_name < b.column_name ? -1 : 1));
      expect({ table, columns: actual }).toEqual({ table, columns: expected });
    }

    // 2. The generated client writes and reads back every scalar and enum field.
    const client = createWriteClient(db);
    try {
      for (const [name, { fields }] of creationOrder(models)) {
        // A column PostgreSQL computes as the row is written (GENERATED ALWAYS, such as course_gram's lengths) is read, not written.
        const { table, columns } = mapping(name);
        const generated = new Set(
          (
            await db.query<{ column_name: string }>(
              `SELECT column_name FROM information_schema.columns
                WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'ALWAYS'`,
              [table],
            )
          ).map((c) => c.column_name),
        );
        const scalars = fields.filter((f) => f.kind !== "object");
        const written = scalars.filter((f) => !generated.has(columns.get(f.name)?.name ?? f.name));
        const data = Object.fromEntries(written.map((f) => [f.name, sample(f.kind, f.type, f.isList, columns.get(f.name)?.native)]));
        const delegate = (client as unknown as Record<string, Delegate>)[name[0]!.toLowerCase() + name.slice(1)]!;
        // A table the migrations seed (data_version's one row) is emptied first.
        await delegate.deleteMany();
        await delegate.create({ data });
        const row = (await delegate.findFirst({ select: Object.fromEntries(scalars.map((f) => [f.name, true])) })) as Record<
          string,
          unknown
        >;
        expect({ name, row: Object.fromEntries(written.map((f) => [f.name, row[f.name]])) }).toEqual({ name, row: data });
        for (const f of scalars.filter((f) => !written.includes(f))) expect(row[f.name], `${name}.${f.name}`).not.toBeUndefined();
      }
    } finally {
      await client.$disconnect();
    }
  });
});

interface Delegate {
  deleteMany(): Promise<unknown>;
  create(args: { data: object }): Promise<unknown>;
  findFirst(args: { select: object }): Promise<unknown>;
}

/** The table of a model and the column (and native type) of each field, read from schema.prisma. */
function mapping(model: string): { table: string; columns: Map<string, { name: string; native?: string }> } {
  const body = new RegExp(`^model ${model} \\{\\n([\\s\\S]*?)^\\}`, "m").exec(SCHEMA)?.[1];
  if (!body) throw new Error(`model ${model} not found in schema.prisma`);
  const columns = new Map<string, { name: string; native?: string }>();
  for (const line of body.split("\n")) {
    const field = /^\s+(\w+)\s+\S+(.*)$/.exec(line);
    if (!field || field[1]!.startsWith("@@")) continue;
    const map = /@map\("([^"]+)"\)/.exec(field[2]!)?.[1];
    const native = /@db\.(\w+)/.exec(field[2]!)?.[1];
    columns.set(field[1]!, { name: map ?? field[1]!, ...(native ? { native } : {}) });
  }
  const table = /@@map\("([^"]+)"\)/.exec(body)?.[1] ?? model;
  return { table, columns };
}

function sqlType(kind: string, type: string, isList: boolean, native?: string) {
  const base: Record<string, [string, string]> = {
    Int: ["integer", "int4"],
    String: native === "Uuid" ? ["uuid", "uuid"] : ["text", "text"],
    Float: ["double precision", "float8"],
    Boolean: ["boolean", "bool"],
    Json: ["jsonb", "jsonb"],
    DateTime:
      native === "Date"
        ? ["date", "date"]
        : native === "Timestamptz"
          ? ["timestamp with time zone", "timestamptz"]
          : ["timestamp without time zone", "timestamp"],
  };
  const [dataType, udt] = kind === "enum" ? ["USER-DEFINED", type] : (base[type] ?? ["?", type]);
  return isList ? { data_type: "ARRAY", udt_name: `_${udt}` } : { data_type: dataType, udt_name: udt };
}

/** A value for a field: the same per type, so that foreign keys meet their parent's key. */
function sample(kind: string, type: string, isList: boolean, native?: string): unknown {
  if (kind === "enum") {
    const values = Object.values((enums as unknown as Record<string, Record<string, string>>)[type] ?? {});
    if (values.length === 0) throw new Error(`unknown enum ${type}`);
    return values[values.length - 1];
  }
  const one: Record<string, unknown> = {
    Int: 7,
    String: native === "Uuid" ? "00000000-0000-4000-8000-000000000007" : "s-7",
    Float: 1.25,
    Boolean: true,
    Json: { nested: ["x", 1, null] },
    DateTime: native === "Date" ? new Date("2026-03-04T00:00:00.000Z") : new Date("2026-03-04T05:06:07.089Z"),
  };
  if (!(type in one)) throw new Error(`no sample for ${type}`);
  return isList ? [one[type], one[type]] : one[type];
}

type Models = [string, ReturnType<typeof getDatamodel>["datamodel"]["models"][string]][];

/** Parents before children (a model waits for the models its foreign keys point to). */
function creationOrder(models: Models): Models {
  const done = new Set<string>();
  const out: Models = [];
  while (out.length < models.length) {
    const ready = models.filter(
      ([name, { fields }]) =>
        !done.has(name) && fields.every((f) => f.kind !== "object" || !f.relationFromFields?.length || done.has(f.type)),
    );
    if (ready.length === 0) throw new Error("cyclic foreign keys");
    for (const entry of ready) {
      done.add(entry[0]);
      out.push(entry);
    }
  }
  return out;
}
