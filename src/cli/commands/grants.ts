/**
 * `npm run db:grants -- --role NAME [--database NAME]`: prints the GRANT
 * statements the serving role needs when another role owns the schema
 * (docs/roles.md), derived from the Prisma schema (src/db/grants.ts). It
 * opens no database: the statements are run by the owner, with psql.
 */
import { loadConfig } from "../../config.js";
import { grantStatements } from "../../db/grants.js";
import { readPostgresUrl } from "../../db/urls.js";
import { readArgs } from "../args.js";
import { LINE } from "../lines/grants.js";
import { answerUsage, type Command, type CommandSpec } from "../command.js";

/** A role or database name as PostgreSQL takes one (quoted in the statements, so any text but an empty or too long one). */
const NAME = /^[^\0]{1,63}$/u;

const grantsCli: Command = async (args, io) => {
  const read = readArgs(LINE, args);
  if (!read.ok) return answerUsage(io, read);
  const { role, database } = read.values;
  const refuse = (problem: string) => {
    io.err(`usage: ${problem}\n${LINE.usage}\n`);
    return 2;
  };
  if (role === undefined) return refuse("give the serving role: --role NAME");
  if (!NAME.test(role)) return refuse("--role must be a role name of 1 to 63 characters");
  if (database !== undefined && !NAME.test(database)) return refuse("--database must be a database name of 1 to 63 characters");
  const url = loadConfig().databaseUrl;
  const named = database ?? (url ? readPostgresUrl(url).database : undefined);
  if (named === undefined) return refuse("give the database: --database NAME (DATABASE_URL is unset)");
  io.out(`${grantStatements(role, named).join("\n")}\n`);
  return 0;
};

export const grantsCommand: CommandSpec = { name: "db:grants", prefix: "db:grants failed", run: grantsCli };
