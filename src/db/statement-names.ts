/**
 * Names for the statements the gateway reads with, so that PostgreSQL parses
 * and plans each of them once per connection instead of on every execution:
 * `pg` prepares a named statement on a connection the first time it sends it
 * there, and then only binds and executes it. A page of schools cost the
 * server about half its CPU in parsing and planning its one statement, the
 * title search's statement (110 parameters) about a third (docs/performance.md).
 *
 * Only reads are named (`SELECT`, `WITH`), and only the first
 * {@link MAX_NAMED} different texts each generator sees (one is the driver
 * adapter's, one the planner's statements', src/db/client.ts; a name is its
 * text's hash, so both give a text the same one): a statement is prepared
 * on each connection of the pool (10, closed after an idle while), so the
 * names bound what the server holds for them. Any other statement goes unnamed, as
 * all did before. PostgreSQL still plans a prepared statement for its
 * parameters until a generic plan costs no more (`plan_cache_mode` auto).
 */
import { createHash } from "node:crypto";
import type { SqlQuery } from "@prisma/driver-adapter-utils";

/** Most statement texts one process names. */
const MAX_NAMED = 256;

const READ = /^\s*(SELECT|WITH)\b/i;

/**
 * A statement name generator for `@prisma/adapter-pg` (`statementNameGenerator`):
 * a read's name, from its text, or undefined, with which `pg` sends an
 * unnamed statement as the adapter does without a generator.
 */
export function statementNames(max = MAX_NAMED): (query: SqlQuery) => string {
  const names = new Map<string, string>();
  return (query) => {
    let name = names.get(query.sql);
    if (name === undefined && names.size < max && READ.test(query.sql)) {
      name = `uedu_${createHash("sha256").update(query.sql).digest("base64url").slice(0, 32)}`;
      names.set(query.sql, name);
    }
    // The adapter's type asks for a name; `pg` reads a missing one as an unnamed statement.
    return name as string;
  };
}
