/**
 * `npm run usage`: who uses what (docs/usage.md), from `usage_day`.
 *
 *   [--since YYYY-MM-DD | --days N] [--key ID] [--coordinate C] [--deprecated] [--json]
 *
 * Lists the coordinates used since a UTC date (default 30 days ago) with
 * their requests, distinct keys and last use; `--deprecated` lists every
 * deprecated coordinate instead, used or not, with the keys that used it.
 * `--json` writes one JSON document, which the removal check also reads
 * (scripts/release-contracts.mjs, USAGE_FILE).
 */
import { serviceDeprecations } from "../../usage/deprecated.js";
import { coordinatesUsed, daysBefore, type KeyUse, keysThatUsed } from "../../usage/report.js";
import { readArgs } from "../args.js";
import { LINE } from "../lines/usage.js";
import { answerUsage, type Command, type CommandSpec } from "../command.js";

class UsageError extends Error {}

/** The first UTC day counted: `--since`, or `--days` (default 30) before today. */
function sinceOf(values: { since?: string | undefined; days?: string | undefined }, now: Date): string {
  if (values.since !== undefined && values.days !== undefined) throw new UsageError("give --since or --days, not both");
  if (values.since !== undefined) {
    const day = values.since;
    if (
      !/^\d{4}-\d{2}-\d{2}$/.test(day) ||
      Number.isNaN(Date.parse(`${day}T00:00:00Z`)) ||
      new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day
    ) {
      throw new UsageError(`--since must be a date like 2026-11-01, got ${JSON.stringify(day)}`);
    }
    return day;
  }
  const days = values.days ?? "30";
  if (!/^\d{1,4}$/.test(days) || Number(days) < 1 || Number(days) > 400)
    throw new UsageError(`--days must be an integer from 1 to 400, got ${JSON.stringify(days)}`);
  return daysBefore(now, Number(days) - 1);
}

const who = (k: KeyUse) =>
  `key ${k.keyId}${k.name === null ? " (deleted)" : ` ${JSON.stringify(k.name)}${k.owner ? ` of ${k.owner}` : ""}`}`;

const usageCli: Command = async (args, io, withDatabase) => {
  const read = readArgs(LINE, args);
  if (!read.ok) return answerUsage(io, read);
  const { values } = read;
  let since: string;
  let keyId: number | undefined;
  try {
    since = sinceOf(values, new Date());
    if (values.key !== undefined) {
      if (!/^\d{1,9}$/.test(values.key) || Number(values.key) < 1)
        throw new UsageError(`--key must be a key's id (npm run keys -- list), got ${JSON.stringify(values.key)}`);
      keyId = Number(values.key);
    }
    if (values.coordinate !== undefined && (values.coordinate.length === 0 || values.coordinate.length > 300)) {
      throw new UsageError("--coordinate must be 1 to 300 characters");
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`usage: ${error.message}\n${LINE.usage}\n`);
    return 2;
  }
  const deprecated = serviceDeprecations();
  return withDatabase(async (db) => {
    if (values.deprecated) {
      const wanted = [...deprecated.keys()].filter((c) => values.coordinate === undefined || c === values.coordinate);
      const users = (await keysThatUsed(db, wanted, since)).filter((k) => keyId === undefined || k.keyId === keyId);
      const report = wanted.map((coordinate) => {
        const keys = users.filter((k) => k.coordinate === coordinate);
        const lastUsed = keys.reduce<string | null>((last, k) => (last === null || k.lastUsed > last ? k.lastUsed : last), null);
        return { coordinate, reason: deprecated.get(coordinate)!, requests: keys.reduce((n, k) => n + k.requests, 0), lastUsed, keys };
      });
      if (values.json) {
        io.out(
          `${JSON.stringify({ since, deprecated: report.map(({ keys, ...rest }) => ({ ...rest, keys: keys.map(({ coordinate: _, ...k }) => k) })) })}\n`,
        );
        return 0;
      }
      io.out(`deprecated coordinates, and their use since ${since} (UTC):\n`);
      for (const r of report) {
        io.out(`\n${r.coordinate}: ${r.reason}\n`);
        if (r.keys.length === 0) {
          io.out("  not used\n");
          continue;
        }
        io.out(`  ${r.requests} requests by ${r.keys.length} key${r.keys.length === 1 ? "" : "s"}, last ${r.lastUsed}\n`);
        for (const k of r.keys) io.out(`  ${who(k)}: ${k.requests} requests, last ${k.lastUsed}\n`);
      }
      return 0;
    }
    const used = await coordinatesUsed(db, { since, keyId, coordinate: values.coordinate });
    const rows = used.map((u) => ({ ...u, deprecated: deprecated.has(u.coordinate) }));
    const keys = values.coordinate === undefined ? [] : await keysThatUsed(db, [values.coordinate], since);
    if (values.json) {
      io.out(
        `${JSON.stringify({ since, coordinates: rows, ...(values.coordinate === undefined ? {} : { keys: keys.filter((k) => keyId === undefined || k.keyId === keyId).map(({ coordinate: _, ...k }) => k) }) })}\n`,
      );
      return 0;
    }
    if (rows.length === 0) {
      io.out(`nothing used since ${since} (UTC)\n`);
      return 0;
    }
    io.out(`used since ${since} (UTC)${keyId === undefined ? "" : ` by key ${keyId}`}:\n\n`);
    const width = Math.max(8, ...rows.map((r) => String(r.requests).length));
    io.out(`${"requests".padStart(width)}  keys  last use                  coordinate\n`);
    for (const r of rows) {
      io.out(
        `${String(r.requests).padStart(width)}  ${String(r.keys).padStart(4)}  ${r.lastUsed}  ${r.coordinate}${r.deprecated ? "  (deprecated)" : ""}\n`,
      );
    }
    for (const k of keys.filter((k) => keyId === undefined || k.keyId === keyId))
      io.out(`\n  ${who(k)}: ${k.requests} requests, last ${k.lastUsed}`);
    if (keys.length) io.out("\n");
    return 0;
  });
};

export const usageCommand: CommandSpec = { name: "usage", prefix: "usage failed", run: usageCli };
