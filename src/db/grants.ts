/**
 * What the role of DATABASE_URL needs when another role owns the schema
 * (DATABASE_OWNER_URL, docs/roles.md): derived from the Prisma schema's
 * tables and columns (src/generated/columns.ts), and kept true by
 * test/db/roles.test.ts, which serves every surface as a role that holds
 * exactly these grants.
 *
 * - **Reads:** `SELECT` on every table. (Not column by column, leaving out
 *   join codes and Pack payloads: Prisma loads a relation with a lateral
 *   join that selects all of the joined table's columns, `t1.*`, which
 *   PostgreSQL then refuses. Those columns stay guarded by the read client,
 *   src/db/guards.ts.)
 * - **Writes:** only what serving itself keeps, listed in {@link SERVING_WRITES}
 *   with why. Never `TRUNCATE`, never on the data an import writes.
 * - `LISTEN` and `NOTIFY` need no grant; the schema's own functions
 *   (pg_trgm's) are executable by every role.
 */
import { TABLES } from "../generated/columns.js";
import type { Database } from "./driver.js";
import { MIGRATIONS_TABLE } from "./migrate.js";

type Model = keyof typeof TABLES;
type Field<M extends Model> = keyof (typeof TABLES)[M]["columns"] & string;

/** What serving writes to one table. */
interface Writes<M extends Model> {
  insert?: true;
  delete?: true;
  /** Columns it updates (also what `SELECT … FOR UPDATE` and `ON CONFLICT DO UPDATE` need). */
  update?: readonly Field<M>[];
  /** Why serving writes here: printed above the statement. */
  why: string;
}

/** Everything a gateway process writes as it serves; the rest is the owner's (migrations, imports, commands). */
const SERVING_WRITES: { [M in Model]?: Writes<M> } = {
  ApiKey: {
    insert: true,
    update: [
      "lastUsedAt",
      "revokedAt",
      "expiresAt",
      "hash",
      "prefix",
      "rolledAt",
      "previousHash",
      "previousUntil",
      "allowedOrigins",
      "allowedAddresses",
      "allowedSurfaces",
      "documentsOnly",
      "visitorPerMinute",
      "visitorPerDay",
    ],
    why: "My API Keys creates, revokes and rolls keys and sets their expiry and restrictions; every request notes its key's last use",
  },
  AccountSession: { insert: true, update: ["endedAt"], why: "My API Keys' sign-in sessions" },
  SignInToken: { update: ["usedAt"], why: "a sign-in link is used once (`npm run keys -- sign-in-link` makes it, as the owner)" },
  SessionSecret: { insert: true, why: "the first start without SESSION_SECRET keeps one made here" },
  SchoolSnapshot: { insert: true, delete: true, why: "each school's environment snapshot, computed when the data changes" },
  StoredSchoolDay: { insert: true, delete: true, why: "each school's past days, computed when the data or a date changes" },
  DataVersion: { update: ["daysFor"], why: "which dates the stored days are for" },
  UsageCoordinate: { insert: true, why: "each used field, parameter or tool, named once (docs/usage.md)" },
  UsageDay: { insert: true, update: ["requests", "lastAt"], delete: true, why: "each key's uses per day, and their 400-day retention" },
  UsageBatch: { insert: true, delete: true, why: "each batch of uses added once, however often it is sent; ids kept 7 days" },
};

/** One privilege the serving role needs, as `has_*_privilege` checks it and the message names it. */
export interface Needed {
  kind: "table" | "column" | "sequence";
  table: string;
  column?: string;
  privilege: "SELECT" | "INSERT" | "UPDATE" | "DELETE" | "USAGE";
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The sequence PostgreSQL made for a `SERIAL` column (`autoincrement()`). */
const sequenceOf = (table: string, column: string) => `${table}_${column}_seq`;

/** Every privilege the serving role needs, table by table in the schema's order. */
function servingPrivileges(): Needed[] {
  const needed: Needed[] = [{ kind: "table", table: MIGRATIONS_TABLE, privilege: "SELECT" }];
  for (const model of Object.keys(TABLES) as Model[]) {
    const { table, columns, serial } = TABLES[model];
    needed.push({ kind: "table", table, privilege: "SELECT" });
    const writes = SERVING_WRITES[model] as Writes<Model> | undefined;
    if (!writes) continue;
    if (writes.insert) needed.push({ kind: "table", table, privilege: "INSERT" });
    for (const field of writes.update ?? []) {
      needed.push({ kind: "column", table, column: (columns as Record<string, string>)[field]!, privilege: "UPDATE" });
    }
    if (writes.delete) needed.push({ kind: "table", table, privilege: "DELETE" });
    if (writes.insert && serial) needed.push({ kind: "sequence", table: sequenceOf(table, serial), privilege: "USAGE" });
  }
  return needed;
}

/** One privilege on one table or sequence, its columns together (none: the whole table). */
interface Grant {
  privilege: Needed["privilege"];
  on: "TABLE" | "SEQUENCE";
  name: string;
  columns: string[];
}

/** `needed` as grants, in its order: the columns of one privilege on one table together. */
function grouped(needed: readonly Needed[]): Grant[] {
  const grants = new Map<string, Grant>();
  for (const n of needed) {
    const on = n.kind === "sequence" ? "SEQUENCE" : "TABLE";
    const key = `${n.privilege} ${on} ${n.table}`;
    const grant = grants.get(key) ?? { privilege: n.privilege, on, name: n.table, columns: [] };
    if (n.column) grant.columns.push(n.column);
    grants.set(key, grant);
  }
  return [...grants.values()];
}

/** `UPDATE (a, b)`, or `INSERT`: a grant's privilege as a statement or a message writes it. */
const privilegeOf = (grant: Grant, name: (column: string) => string = (c) => c) =>
  grant.columns.length ? `${grant.privilege} (${grant.columns.map(name).join(", ")})` : grant.privilege;

/**
 * The statements that give `role` what serving needs on the database
 * `database`, in schema `public`: what `npm run db:grants` prints, one
 * statement per line, with a comment above each write saying why.
 */
export function grantStatements(role: string, database: string): string[] {
  const to = `TO ${quote(role)};`;
  const grants = grouped(servingPrivileges());
  const reads = grants.filter((g) => g.privilege === "SELECT").map((g) => quote(g.name));
  const lines = [
    `GRANT CONNECT ON DATABASE ${quote(database)} ${to}`,
    `GRANT USAGE ON SCHEMA public ${to}`,
    `GRANT SELECT ON TABLE ${reads.join(", ")} ${to}`,
  ];
  for (const model of Object.keys(SERVING_WRITES) as Model[]) {
    const { table, serial } = TABLES[model];
    const writes = grants.filter((g) => g.on === "TABLE" && g.name === table && g.privilege !== "SELECT");
    lines.push(`-- ${table}: ${SERVING_WRITES[model]!.why}`);
    lines.push(`GRANT ${writes.map((g) => privilegeOf(g, quote)).join(", ")} ON TABLE ${quote(table)} ${to}`);
    const sequence = serial && grants.find((g) => g.on === "SEQUENCE" && g.name === sequenceOf(table, serial));
    if (sequence) lines.push(`GRANT USAGE ON SEQUENCE ${quote(sequence.name)} ${to}`);
  }
  return lines;
}

/** What `missing` names, a table's columns together: `SELECT on university`, `UPDATE (last_used_at, revoked_at) on api_key`. */
export function describeMissing(missing: readonly Needed[]): string[] {
  return grouped(missing).map((g) => (g.on === "SEQUENCE" ? `USAGE on sequence ${g.name}` : `${privilegeOf(g)} on ${g.name}`));
}

/**
 * What of {@link servingPrivileges} the connected role lacks, asked of the
 * server itself (`has_table_privilege` and its kin), in one statement.
 */
export async function missingPrivileges(db: Pick<Database, "query">): Promise<Needed[]> {
  const needed = servingPrivileges();
  const rows = await db.query<{ i: number }>(
    `SELECT i::int FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS n(v, i)
      WHERE NOT CASE v->>'kind'
        WHEN 'sequence' THEN has_sequence_privilege(v->>'table', v->>'privilege')
        WHEN 'column' THEN has_column_privilege(v->>'table', v->>'column', v->>'privilege')
        ELSE has_table_privilege(v->>'table', v->>'privilege') END
      ORDER BY i`,
    [JSON.stringify(needed)],
  );
  return rows.map((r) => needed[r.i - 1]!);
}
