/**
 * How PostgreSQL plans a statement the gateway sends again and again: replayed
 * as a named statement on one connection, `runs` times, with the parameters it
 * was sent with; its counts of generic and custom plans (pg_prepared_statements).
 */
import type { QueryEvent } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";

/** A value as an SQL literal, for EXECUTE. */
const literal = (value: unknown) =>
  value === null ? "NULL" : typeof value === "number" ? String(value) : `'${String(value).replaceAll("'", "''")}'`;

export async function plansOf(db: Database, { query, params }: QueryEvent, runs = 8): Promise<{ generic: number; custom: number }> {
  const values = (JSON.parse(params) as unknown[]).map(literal).join(", ");
  return db.transaction(async (tx) => {
    await tx.exec(`PREPARE replayed AS ${query}; ${`EXECUTE replayed(${values}); `.repeat(runs)}`);
    const [found] = await tx.query<{ generic: number; custom: number }>(
      "SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = 'replayed'",
    );
    await tx.exec("DEALLOCATE replayed");
    return found!;
  });
}
