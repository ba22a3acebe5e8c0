/**
 * `npm run keys -- <command>`: manage API keys (docs/contract.md §7).
 *
 *   create --name N [--owner O] [--per-minute N] [--per-day N] [--expires WHEN] [--json]
 *   list [--expiring DURATION] [--json]
 *   revoke <id|prefix>
 *   roll <id|prefix> [--overlap none|DURATION] [--json]
 *   set-limits <id|prefix> [--per-minute N|default] [--per-day N|default]
 *   set-expiry <id|prefix> --expires WHEN|never
 *   restrict <id|prefix> [RESTRICTIONS]     (and create … [RESTRICTIONS])
 *   sign-in-link --owner NAME [--minutes 15] [--json]
 *
 * A created (or rolled) key is printed once; with --json the last line of
 * standard output is {"id":…,"key":"…","prefix":"…"} (a roll adds
 * "previous_prefix" and "previous_until"). A sign-in link to "My API Keys" is
 * printed once too (with --json: {"url":…,"expires_at":…}); it works once.
 * Nothing else ever prints a secret.
 */
import { readArgs } from "../args.js";
import { LINE } from "../lines/keys.js";
import { KeyError, KeyStore, type KeyRecord, MAX_OVERLAP_MS, type RestrictionChange } from "../../keys/store.js";
import { issueSignInToken, MAX_LINK_MINUTES } from "../../account/sessions.js";
import { ConfigError, loadConfig } from "../../config.js";
import { textProblem } from "../../input-limits.js";
import { answerUsage, type Command, type CommandSpec } from "../command.js";

const COMMANDS = ["create", "list", "revoke", "roll", "set-limits", "set-expiry", "restrict", "sign-in-link"];
/** The commands that name one key. */
const ON_A_KEY = ["revoke", "roll", "set-limits", "set-expiry", "restrict"];

/** A list option: its entries, `none` (or for surfaces, `all`) to open that side, or absent. */
const list = (value: string | undefined, open: string): string[] | null | undefined =>
  value === undefined ? undefined : value === open ? null : value.split(",");

/** The restrictions an operator's options set, each as given (the store checks and writes them). */
function restrictionsOf(values: Record<string, string | boolean | undefined>): RestrictionChange {
  const text = (name: string) => values[name] as string | undefined;
  const change: RestrictionChange = {};
  const origins = list(text("origins"), "none");
  const addresses = list(text("addresses"), "none");
  const surfaces = list(text("surfaces"), "all");
  if (origins !== undefined) change.origins = origins;
  if (addresses !== undefined) change.addresses = addresses;
  if (surfaces !== undefined) change.surfaces = surfaces as RestrictionChange["surfaces"];
  const only = text("documents-only");
  if (only !== undefined) {
    if (only !== "yes" && only !== "no") throw new KeyError(`--documents-only must be yes or no, got ${JSON.stringify(only)}`);
    change.documentsOnly = only === "yes";
  }
  for (const [option, field] of [
    ["per-visitor-minute", "visitorPerMinute"],
    ["per-visitor-day", "visitorPerDay"],
  ] as const) {
    const value = text(option);
    if (value === undefined) continue;
    if (value !== "none" && !/^\d{1,10}$/.test(value))
      throw new KeyError(`--${option} must be a positive integer or none, got ${JSON.stringify(value)}`);
    change[field] = value === "none" ? null : Number(value);
  }
  return change;
}

/**
 * An audit line of an operator's change, on standard error as one JSON
 * object (the gateway's own audit lines, for changes on My API Keys, are in
 * its log): what changed, of which key by prefix, never a secret.
 */
const audit = (io: { err(text: string): void }, event: string, fields: Record<string, unknown>) =>
  io.err(`${JSON.stringify({ audit: event, by: "operator", time: new Date().toISOString(), ...fields })}\n`);

/** A key's restrictions in a few words, for its list line. */
function restrictionWords(k: KeyRecord): string {
  const r = k.restrictions;
  const words = [
    r.origins && `origins ${r.origins.join(",")}`,
    r.addresses && `addresses ${r.addresses.join(",")}`,
    r.surfaces && `surfaces ${r.surfaces.join(",")}`,
    r.documentsOnly && "documents only",
    r.visitorPerMinute && `${r.visitorPerMinute}/min per visitor`,
    r.visitorPerDay && `${r.visitorPerDay}/day per visitor`,
  ].filter(Boolean);
  return words.length ? `restricted: ${words.join("; ")}` : "unrestricted";
}

/** The trusted documents of a file given to --documents, read and checked as TRUSTED_DOCUMENTS is. */
async function documentsFile(file: string): Promise<Map<string, string>> {
  const [{ readTrustedDocuments }, { schema }] = await Promise.all([
    import("../../plugins/persisted-documents.js"),
    import("../../schema/index.js"),
  ]);
  try {
    return new Map(readTrustedDocuments(file, schema));
  } catch (error) {
    if (error instanceof ConfigError) throw new KeyError(error.message.replace(/^TRUSTED_DOCUMENTS /, "--documents "));
    throw error;
  }
}

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

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A DURATION (`30d`, `12h`, `90m`, `45s`) in ms, or undefined if `text` is not one. */
function duration(text: string): number | undefined {
  const match = /^(\d{1,6})([smhd])$/.exec(text);
  return match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : undefined;
}

/** A WHEN: a date (00:00 UTC), an instant with its zone, or a DURATION from `now`; `never` is null. */
function when(text: string | undefined, now: number): Date | null | undefined {
  if (text === undefined) return undefined;
  if (text === "never") return null;
  const ms = duration(text);
  if (ms !== undefined) return new Date(now + ms);
  const date = /^\d{4}-\d\d-\d\d$/.test(text)
    ? new Date(`${text}T00:00:00Z`)
    : /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:\d\d)$/.test(text)
      ? new Date(text)
      : undefined;
  if (!date || Number.isNaN(date.getTime())) {
    throw new KeyError(
      `--expires must be a date (2027-01-31), an instant (2027-01-31T12:00:00Z), a duration (30d) or never, got ${JSON.stringify(text)}`,
    );
  }
  return date;
}

function describe(k: KeyRecord, now = Date.now()): string {
  const state = k.revokedAt
    ? `revoked ${k.revokedAt.toISOString()}`
    : k.expiresAt && k.expiresAt.getTime() <= now
      ? `expired ${k.expiresAt.toISOString()}`
      : "active";
  const limits = `${k.perMinute ?? "default"}/min ${k.perDay ?? "default"}/day`;
  const expires = `expires ${k.expiresAt?.toISOString() ?? "never"}`;
  const used = `last used ${k.lastUsedAt?.toISOString() ?? "never"}`;
  return `${k.id}\t${k.prefix}…\t${k.name}\t${k.owner ?? "-"}\t${state}\t${limits}\t${expires}\t${used}\t${restrictionWords(k)}`;
}

const keysCli: Command = async (args, io, withDatabase) => {
  const read = readArgs(LINE, args);
  if (!read.ok) return answerUsage(io, read);
  const { values, positionals } = read;
  const [command, ref] = positionals as [string, string | undefined];
  try {
    if (!COMMANDS.includes(command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    if (ON_A_KEY.includes(command) !== (ref !== undefined)) throw new UsageError();
    if (command === "create" && values.name === undefined) throw new UsageError("--name is required");
    if (command === "set-expiry" && values.expires === undefined) throw new UsageError("--expires is required");
    const expiresAt = when(values.expires, Date.now());
    const overlap = values.overlap === undefined || values.overlap === "none" ? 0 : duration(values.overlap);
    if (overlap === undefined || overlap > MAX_OVERLAP_MS) {
      throw new KeyError(`--overlap must be none or a duration of at most 7d (1h, 24h, 7d), got ${JSON.stringify(values.overlap)}`);
    }
    const expiring = values.expiring === undefined ? undefined : duration(values.expiring);
    if (values.expiring !== undefined && expiring === undefined) {
      throw new KeyError(`--expiring must be a duration (7d, 12h), got ${JSON.stringify(values.expiring)}`);
    }
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
    const restrictions = restrictionsOf(values);
    if (command === "restrict" && Object.keys(restrictions).length === 0 && values.documents === undefined) {
      throw new UsageError("give at least one restriction to set");
    }
    const documents =
      values.documents === undefined || values.documents === "none" ? values.documents : await documentsFile(values.documents);
    return await withDatabase(async (db) => {
      const keys = new KeyStore(db, {
        // Where REDIS_URL is set, every gateway also hears of a revocation or new limits through Redis.
        announce: async () => {
          const { redisUrl } = loadConfig();
          // ioredis is loaded only then.
          if (redisUrl && !(await (await import("../../keys/redis-changes.js")).publishKeyChangeOnce(redisUrl))) {
            io.err("keys: Redis could not be told of the change; the gateways hear of it through the database\n");
          }
        },
      });
      switch (command) {
        case "create": {
          const created = await keys.create({ name: values.name!, owner, perMinute, perDay, expiresAt, restrictions });
          if (documents !== undefined) await keys.setDocuments(String(created.id), documents === "none" ? null : documents);
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
          const all = expiring === undefined ? await keys.list() : await keys.listExpiring(expiring);
          const none = expiring === undefined ? "no API keys\n" : `no active key expires within ${values.expiring}\n`;
          if (values.json) io.out(`${JSON.stringify(all)}\n`);
          else io.out(all.length ? `${all.map((k) => describe(k)).join("\n")}\n` : none);
          return 0;
        }
        case "roll": {
          const rolled = await keys.roll(ref!, overlap);
          const until = rolled.record.previousUntil!.toISOString();
          audit(io, "key.rolled", {
            keyId: rolled.record.id,
            prefix: rolled.record.prefix,
            previousPrefix: rolled.previousPrefix,
            previousUntil: until,
          });
          if (values.json) {
            io.out(
              `${JSON.stringify({ id: rolled.record.id, key: rolled.key, prefix: rolled.record.prefix, previous_prefix: rolled.previousPrefix, previous_until: until })}\n`,
            );
          } else {
            const old = overlap === 0 ? "stopped working now" : `works until ${until}, then stops on every gateway`;
            io.out(
              `Rolled key ${rolled.record.id}: ${rolled.previousPrefix}… is now ${rolled.record.prefix}…. The old secret ${old}. ` +
                `The new one is shown this once and cannot be recovered:\n\n  ${rolled.key}\n\n`,
            );
          }
          return 0;
        }
        case "restrict": {
          let key = Object.keys(restrictions).length ? await keys.setRestrictions(ref!, restrictions) : await keys.find(ref!);
          if (documents !== undefined) key = (await keys.setDocuments(String(key.id), documents === "none" ? null : documents)).key;
          io.out(`restrictions set: ${describe(key)}\n`);
          audit(io, "key.restrictions_set", {
            keyId: key.id,
            prefix: key.prefix,
            restrictions: key.restrictions,
            ...(documents === undefined ? {} : { documents: documents === "none" ? 0 : documents.size }),
          });
          if (documents !== undefined) io.out(`its own trusted documents: ${documents === "none" ? "none" : documents.size}\n`);
          if (key.restrictions.documentsOnly && documents === undefined && !loadConfig().trustedDocuments) {
            io.err(
              "keys: this key runs only trusted documents: its own set (--documents FILE) if it has one, else TRUSTED_DOCUMENTS, which is unset here\n",
            );
          }
          return 0;
        }
        case "set-expiry": {
          const key = await keys.setExpiry(ref!, expiresAt!);
          io.out(`expiry set: ${describe(key)}\n`);
          audit(io, "key.expiry_set", { keyId: key.id, prefix: key.prefix, expiresAt: key.expiresAt });
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

export const keysCommand: CommandSpec = { name: "keys", prefix: "keys", run: keysCli };
