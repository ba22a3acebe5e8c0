/**
 * `npm run keys -- <command>`: manage API keys (docs/contract.md §7).
 *
 *   create --name N [--owner O] [--per-minute N] [--per-day N] [--json]
 *   list [--json]
 *   revoke <id|prefix>
 *   set-limits <id|prefix> [--per-minute N|default] [--per-day N|default]
 *   sign-in-link --owner NAME [--minutes 15] [--json]
 *
 * A created key is printed once; with --json the last line of standard output
 * is {"id":…,"key":"…","prefix":"…"}. A sign-in link to "My API Keys" is
 * printed once too (with --json: {"url":…,"expires_at":…}); it works once.
 * Nothing else ever prints a secret.
 */
import { type CommandLine, readArgs } from "../args.js";
import { KeyError, KeyStore, type KeyRecord } from "../../keys/store.js";
import { issueSignInToken, MAX_LINK_MINUTES } from "../../account/sessions.js";
import { loadConfig } from "../../config.js";
import { publishKeyChangeOnce } from "../../keys/redis-changes.js";
import { textProblem } from "../../input-limits.js";
import { answerUsage, type Command, type CommandSpec } from "../command.js";

const LINE = {
  name: "keys",
  usage: `usage: npm run keys -- create --name NAME [--owner O] [--per-minute N] [--per-day N] [--json]
       npm run keys -- list [--json]
       npm run keys -- revoke <id|prefix>
       npm run keys -- set-limits <id|prefix> [--per-minute N|default] [--per-day N|default]
       npm run keys -- sign-in-link --owner NAME [--minutes 15] [--json]

Creates, lists and revokes API keys, and sets a key's own limits. A created
key is printed once; only its SHA-256 hash is stored.

sign-in-link prints a one-time link that signs the account holder NAME in to
"My API Keys" (PUBLIC_URL/account/…), where they create, see and revoke the
keys whose owner is NAME. It works once, for --minutes (1 to 1440, default 15).`,
  options: {
    name: { type: "string" },
    owner: { type: "string" },
    "per-minute": { type: "string" },
    "per-day": { type: "string" },
    minutes: { type: "string" },
    json: { type: "boolean", default: false },
  },
  positionals: { min: 1, max: 2 },
} satisfies CommandLine;

const COMMANDS = ["create", "list", "revoke", "set-limits", "sign-in-link"];

class UsageError extends Error {}

/** A limit option: a positive integer, `default` (null: use the defaults), or absent. */
function limit(name: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === "default") return null;
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new KeyError(`--${name} must be a positive integer or default, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

function describe(k: KeyRecord): string {
  const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : "active";
  const limits = `${k.perMinute ?? "default"}/min ${k.perDay ?? "default"}/day`;
  return `${k.id}\t${k.prefix}…\t${k.name}\t${k.owner ?? "-"}\t${state}\t${limits}\tlast used ${k.lastUsedAt?.toISOString() ?? "never"}`;
}

const keysCli: Command = async (args, io, withDatabase) => {
  const read = readArgs(LINE, args);
  if (!read.ok) return answerUsage(io, read);
  const { values, positionals } = read;
  const [command, ref] = positionals as [string, string | undefined];
  try {
    if (!COMMANDS.includes(command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    if ((command === "revoke" || command === "set-limits") !== (ref !== undefined)) throw new UsageError();
    if (command === "create" && values.name === undefined) throw new UsageError("--name is required");
    const owner = values.owner?.trim();
    if (command === "sign-in-link" && !owner) throw new UsageError("--owner is required");
    const ownerProblem = owner === undefined ? undefined : textProblem(owner);
    if (ownerProblem) throw new KeyError(`--owner ${ownerProblem}`);
    const minutes = values.minutes ?? "15";
    if (!/^\d{1,4}$/.test(minutes) || Number(minutes) < 1 || Number(minutes) > MAX_LINK_MINUTES) {
      throw new KeyError(`--minutes must be an integer from 1 to ${MAX_LINK_MINUTES}, got ${JSON.stringify(minutes)}`);
    }
    const perMinute = limit("per-minute", values["per-minute"]);
    const perDay = limit("per-day", values["per-day"]);
    return await withDatabase(async (db) => {
      const keys = new KeyStore(db, {
        // Where REDIS_URL is set, every gateway also hears of a revocation or new limits through Redis.
        announce: async () => {
          const { redisUrl } = loadConfig();
          if (redisUrl && !(await publishKeyChangeOnce(redisUrl))) {
            io.err("keys: Redis could not be told of the change; the gateways hear of it through the database\n");
          }
        },
      });
      switch (command) {
        case "create": {
          const created = await keys.create({ name: values.name!, owner, perMinute, perDay });
          if (values.json) {
            io.out(`${JSON.stringify(created)}\n`);
          } else {
            io.out(
              `Created key ${created.id} (${created.prefix}…). It is shown this once and cannot be recovered:\n\n  ${created.key}\n\n`,
            );
          }
          return 0;
        }
        case "list": {
          const all = await keys.list();
          if (values.json) io.out(`${JSON.stringify(all)}\n`);
          else io.out(all.length ? `${all.map(describe).join("\n")}\n` : "no API keys\n");
          return 0;
        }
        case "revoke":
          io.out(`revoked: ${describe(await keys.revoke(ref!))}\n`);
          return 0;
        case "sign-in-link": {
          const { token, expiresAt } = await issueSignInToken(db, owner!, Number(minutes));
          const url = new URL("/account/sign-in", loadConfig().publicUrl);
          url.searchParams.set("token", token);
          if (values.json) io.out(`${JSON.stringify({ url: url.href, expires_at: expiresAt.toISOString() })}\n`);
          else io.out(`Sign-in link for ${owner}, valid once until ${expiresAt.toISOString()}:\n\n  ${url.href}\n\n`);
          return 0;
        }
        case "set-limits":
          if (perMinute === undefined && perDay === undefined) throw new UsageError("give --per-minute and/or --per-day");
          io.out(`limits set: ${describe(await keys.setLimits(ref!, { perMinute, perDay }))}\n`);
          return 0;
        default:
          throw new Error(`keys ${command} is listed but not written`);
      }
    });
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`keys: ${error.message ? `${error.message}\n` : ""}${LINE.usage}\n`);
      return 2;
    }
    if (error instanceof KeyError) {
      io.err(`keys: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
};

export const keysCommand: CommandSpec = { name: "keys", prefix: "keys", line: LINE, run: keysCli };
