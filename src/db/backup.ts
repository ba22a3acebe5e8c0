/**
 * A logical copy of a PostgreSQL database (the embedded server's or any
 * other): every table of the `public` schema but the migrations' own, as
 * COPY text in one gzipped stream, which `psql` could also read:
 *
 *     -- uedu-backup 1
 *     -- migrations 20261122000000_init 20261122010000_api_keys …
 *     COPY public."university" ("id", "code", …) FROM stdin;
 *     1	NTU	…
 *     \.
 *     -- rows "university" 15
 *
 * The copy is taken in one REPEATABLE READ transaction: one moment's data,
 * while gateways go on serving. Restoring replaces every table's rows in one
 * transaction, so a gateway serving meanwhile answers from the old data until
 * it commits and from the copy after, never a mix; each table's row count is
 * checked against the copy's before it commits.
 */
import { once } from "node:events";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { createGunzip } from "node:zlib";
import pg from "pg";
import { from as copyFrom, to as copyTo } from "pg-copy-streams";
import { announceChange, KEYS_CHANGED } from "./changes.js";
import { INT32_MAX } from "../input-limits.js";

/** The first line of every copy. */
const FORMAT_LINE = "-- uedu-backup 1";
/** The migrations' own table: not data, and compared rather than copied. */
const MIGRATIONS_TABLE = "_prisma_migrations";

/** A table and the columns a copy holds (generated columns are computed again, not copied). */
export interface TableColumns {
  name: string;
  columns: string[];
}

/** What a copy held or a restore wrote: each table's rows. */
export type TableRows = { name: string; rows: number }[];

/** A copy that `db:restore` cannot use: not one, or written at other migrations. */
export class BackupFormatError extends Error {}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The public tables but the migrations', with their stored columns, in name order. */
async function tablesOf(client: Pick<BackupSource, "query">): Promise<TableColumns[]> {
  const { rows } = await client.query<{ name: string; columns: string[] }>(
    `SELECT c.relname AS name, array_agg(a.attname::text ORDER BY a.attnum) AS columns
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
      WHERE c.relkind IN ('r', 'p') AND c.relname <> $1
      GROUP BY c.relname
      ORDER BY c.relname`,
    [MIGRATIONS_TABLE],
  );
  return rows;
}

/** The names of the migrations applied, in order. */
async function migrationsOf(client: Pick<BackupSource, "query">): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT migration_name AS name FROM ${quote(MIGRATIONS_TABLE)} WHERE finished_at IS NOT NULL ORDER BY migration_name`,
  );
  return rows.map((r) => r.name);
}

/** A client of its own for a long statement, named in `pg_stat_activity`, errors heard. */
async function connect(connectionString: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString, query_timeout: INT32_MAX } as pg.ClientConfig);
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

/** Where a copy is read from: a PostgreSQL connection, or (to carry it over) a PGlite database. */
export interface BackupSource {
  query<Row>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
  /** The output of one `COPY (…) TO STDOUT`, in COPY text format. */
  copyOut(sql: string): AsyncIterable<Uint8Array>;
}

/** A PostgreSQL connection as a source. */
function serverSource(client: pg.Client): BackupSource {
  return {
    query: async <Row>(sql: string, params?: unknown[]) => ({ rows: (await client.query(sql, params)).rows as Row[] }),
    copyOut: (sql) => client.query(copyTo(sql)),
  };
}

/** Counts the rows of COPY text: one line each (a newline inside a value is written as \n). */
function countLines(chunk: Uint8Array): number {
  let lines = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  return lines;
}

/**
 * Writes a copy of `source` to `out` (the caller compresses and closes it),
 * in one REPEATABLE READ transaction; resolves with each table's rows.
 */
export async function writeBackupFrom(source: BackupSource, out: Writable): Promise<TableRows> {
  const write = async (text: string | Uint8Array) => {
    if (!out.write(text)) await once(out, "drain");
  };
  await source.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
    await write(`${FORMAT_LINE}\n-- migrations ${(await migrationsOf(source)).join(" ")}\n`);
    const written: TableRows = [];
    for (const table of await tablesOf(source)) {
      const columns = table.columns.map(quote).join(", ");
      await write(`COPY public.${quote(table.name)} (${columns}) FROM stdin;\n`);
      let rows = 0;
      for await (const chunk of source.copyOut(`COPY (SELECT ${columns} FROM public.${quote(table.name)}) TO STDOUT`)) {
        rows += countLines(chunk);
        await write(chunk);
      }
      await write(`\\.\n-- rows ${quote(table.name)} ${rows}\n`);
      written.push({ name: table.name, rows });
    }
    return written;
  } finally {
    await source.query("COMMIT");
  }
}

/** Writes a copy of the database at `connectionString` to `out`; see `writeBackupFrom`. */
export async function writeBackup(connectionString: string, out: Writable): Promise<TableRows> {
  const client = await connect(connectionString);
  try {
    await client.query("SET statement_timeout = 0");
    return await writeBackupFrom(serverSource(client), out);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Each table's rows as a count and one checksum (of the rows' text, in
 * order), but `except`: to check a copy row for row.
 */
export async function tableChecksums(source: Pick<BackupSource, "query">, except: string[] = []): Promise<Record<string, string>> {
  const sums: Record<string, string> = {};
  for (const { name, columns } of await tablesOf(source)) {
    if (except.includes(name)) continue;
    const row = `ROW(${columns.map(quote).join(", ")})::text`;
    const { rows } = await source.query<{ sum: string }>(
      `SELECT count(*) || ':' || coalesce(md5(string_agg(${row}, E'\\n' ORDER BY ${row})), '') AS sum FROM public.${quote(name)}`,
    );
    sums[name] = rows[0]!.sum;
  }
  return sums;
}

/** Reads a copy's lines, one at a time (gunzipped on the way unless `gzipped` is false). */
function linesOf(input: Readable, gzipped: boolean): AsyncIterator<string> {
  let text: Readable = input;
  if (gzipped) {
    const gunzip = createGunzip();
    input.on("error", (error) => gunzip.destroy(error));
    text = input.pipe(gunzip);
  }
  return createInterface({ input: text, crlfDelay: Number.POSITIVE_INFINITY })[Symbol.asyncIterator]();
}

/**
 * Replaces every table's rows with the copy's, in one transaction, and tells
 * every gateway that the data and the keys changed. The copy must have been
 * written at the migrations this database has.
 */
export async function restoreBackup(connectionString: string, input: Readable, gzipped = true): Promise<TableRows> {
  const lines = linesOf(input, gzipped);
  const next = async (): Promise<string | undefined> => {
    try {
      const { value, done } = await lines.next();
      return done ? undefined : value;
    } catch (error) {
      throw new BackupFormatError(`not a copy written by db:backup (${(error as Error).message})`);
    }
  };
  if ((await next()) !== FORMAT_LINE) throw new BackupFormatError("not a copy written by db:backup (its first line is not the format's)");
  const migrationsLine = (await next()) ?? "";
  if (!migrationsLine.startsWith("-- migrations ")) throw new BackupFormatError("not a copy written by db:backup (no migrations line)");
  const copied = migrationsLine.slice("-- migrations ".length).split(" ").filter(Boolean);

  const client = await connect(connectionString);
  try {
    const applied = await migrationsOf(client);
    if (copied.join(" ") !== applied.join(" ")) {
      throw new BackupFormatError(
        `the copy was written at migration ${copied.at(-1) ?? "(none)"} and this database is at ${applied.at(-1) ?? "(none)"}: ` +
          "restore it with the version of the gateway that wrote it, then upgrade",
      );
    }
    const tables = new Map((await tablesOf(client)).map((t) => [t.name, t]));
    await client.query("BEGIN");
    try {
      await client.query("SET LOCAL statement_timeout = 0");
      // Foreign keys and triggers rest while the tables are refilled in name order; the copy is whole and consistent.
      await client.query("SET LOCAL session_replication_role = replica");
      const [version] = (await client.query<{ version: number }>("SELECT version FROM data_version")).rows;
      const versionBefore = version?.version ?? 0;
      for (const name of tables.keys()) await client.query(`DELETE FROM public.${quote(name)}`);
      const restored: TableRows = [];
      for (let line = await next(); line !== undefined; line = await next()) {
        const header = /^COPY public\.("(?:[^"]|"")+") \((.*)\) FROM stdin;$/.exec(line);
        if (!header) throw new BackupFormatError(`not a copy written by db:backup (unexpected line: ${line.slice(0, 60)})`);
        const name = header[1]!.slice(1, -1).replaceAll('""', '"');
        if (!tables.has(name)) throw new BackupFormatError(`the copy holds a table this database does not have: ${name}`);
        const stream = client.query(copyFrom(`COPY public.${quote(name)} (${header[2]}) FROM STDIN`));
        const finished = new Promise<void>((resolve, reject) => {
          stream.on("finish", resolve);
          stream.on("error", reject);
        });
        // A row PostgreSQL refuses (a damaged copy) ends the stream: its error is the copy's.
        const refused = finished.then(
          () => undefined,
          (error: Error) => new BackupFormatError(`table ${name}: ${error.message.split("\n")[0]}`),
        );
        try {
          for (let row = await next(); ; row = await next()) {
            if (row === undefined) throw new BackupFormatError(`the copy ends inside table ${name}: it is cut short`);
            if (row === "\\.") break;
            if (stream.destroyed) break;
            if (!stream.write(`${row}\n`)) await Promise.race([once(stream, "drain"), refused]);
          }
        } catch (error) {
          // The COPY still holds the connection, and the ROLLBACK would wait behind it for ever:
          // fail it first (CopyFail), and wait for the server to end it.
          stream.destroy(error as Error);
          await refused;
          throw error;
        }
        stream.end();
        const error = await refused;
        if (error) throw error;
        const count = /^-- rows "(?:[^"]|"")+" (\d+)$/.exec((await next()) ?? "");
        if (!count || Number(count[1]) !== stream.rowCount) {
          throw new BackupFormatError(`table ${name}: the copy says ${count?.[1] ?? "nothing of"} rows, ${stream.rowCount} were read`);
        }
        restored.push({ name, rows: stream.rowCount });
      }
      const missing = [...tables.keys()].filter((name) => !restored.some((r) => r.name === name));
      if (missing.length) throw new BackupFormatError(`the copy lacks tables: ${missing.join(", ")}`);
      // Sequences (api_key's ids) go on after the highest id restored.
      const sequences = await client.query<{ seq: string; table: string; column: string }>(
        `SELECT d.objid::regclass::text AS seq, t.relname AS table, a.attname AS column
           FROM pg_depend d
           JOIN pg_class sc ON sc.oid = d.objid AND sc.relkind = 'S'
           JOIN pg_class t ON t.oid = d.refobjid
           JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
           JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
          WHERE d.deptype IN ('a', 'i')`,
      );
      for (const { seq, table, column } of sequences.rows) {
        await client.query(
          `SELECT setval($1::regclass, coalesce(max(${quote(column)}), 1), max(${quote(column)}) IS NOT NULL) FROM public.${quote(table)}`,
          [seq],
        );
      }
      // The data version only goes up (answers cached under a version must never come back), then
      // every gateway hears of the change as from any writer; and of the keys.
      await client.query("UPDATE data_version SET version = greatest(version, $1)", [versionBefore]);
      await announceChange({ exec: async (sql) => void (await client.query(sql)) });
      await client.query(`NOTIFY ${KEYS_CHANGED}`);
      await client.query("COMMIT");
      return restored;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
