/**
 * `npm run keys -- …` as a process (docs/contract.md §7) on an embedded database in a
 * temporary DATA_DIR: create (--json and not), list, set-limits, revoke, and
 * the exit codes and messages of mistakes; expiry and rolls, and the lines of
 * docs/api-keys.md that show them, as written. Spawns are slow; they are
 * few, and the ones that never open the database run beside the others.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedServer, useEmbeddedServer } from "../../src/db/embedded.js";
import { type CliRun, cli } from "../support/cli.js";
import { migratedDataDir } from "../support/databases.js";
import { tempDir } from "../support/temp.js";

let tmp: string;
let held: EmbeddedServer | undefined;
beforeAll(async () => {
  tmp = tempDir("keys-cli-");
  migratedDataDir(join(tmp, "data"));
  // The file's server kept running, so that each command joins it rather than starting and stopping one of its
  // own (that is test/db/embedded-server.test.ts's to test): about a third of the file's CPU.
  held = await useEmbeddedServer(join(tmp, "data"), { role: "test" });
}, 60_000);
afterAll(async () => {
  await held?.release();
  rmSync(tmp, { recursive: true, force: true });
});

const keys = (args: string[]) => cli(join(tmp, "data"), "keys", args, { timeoutMs: 60_000 });

const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "");
/** The list line of key `id`. */
const row = (list: string, id: number) => lines(list).find((l) => l.startsWith(`${id}\t`)) ?? "";

describe("npm run keys", () => {
  it("creates, lists, sets limits, revokes; mistakes exit 1 or 2 with a clear message", { timeout: 240_000 }, async () => {
    // These never reach the database: run them beside the first create.
    const [created, noName, zero] = await Promise.all([
      keys(["create", "--name", "ci", "--json"]),
      keys(["create"]),
      keys(["create", "--name", "x", "--per-minute", "0"]),
    ]);

    // create --json: the last line of standard output is {"id":…,"key":"…","prefix":"…"}.
    expect(created.code, created.stderr).toBe(0);
    const last = lines(created.stdout).at(-1)!;
    const first = JSON.parse(last) as { id: number; key: string; prefix: string };
    expect(Object.keys(first)).toEqual(["id", "key", "prefix"]);
    expect(first.id).toBe(1);
    expect(first.key).toMatch(/^uedu_[0-9A-Za-z]{40}$/);
    expect(first.prefix).toBe(first.key.slice(0, 13));
    expect(last).toBe(JSON.stringify({ id: 1, key: first.key, prefix: first.prefix }));

    // create without --name: usage, exit 2.
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain("--name is required");
    expect(noName.stderr).toContain("usage: npm run keys -- create --name NAME");
    expect(noName.stdout).toBe("");

    // A limit of 0: exit 1, naming the option.
    expect(zero.code).toBe(1);
    expect(zero.stderr).toBe('keys: --per-minute must be a positive integer or default, got "0"\n');
    expect(zero.stdout).toBe("");

    // create without --json: the key, shown once, in a sentence.
    const human = await keys(["create", "--name", "other", "--owner", "ops", "--per-minute", "10"]);
    expect(human.code, human.stderr).toBe(0);
    const second = /\n\s+(uedu_[0-9A-Za-z]{40})\n/.exec(human.stdout)?.[1];
    expect(second).toBeDefined();
    expect(human.stdout).toContain(`Created key 2 (${second!.slice(0, 13)}…)`);
    expect(human.stdout).toMatch(/shown this once/);

    const secrets = [first.key, first.key.slice(13), second!, second!.slice(13)];
    const noSecret = (run: CliRun) => {
      for (const secret of secrets) {
        expect(run.stdout).not.toContain(secret);
        expect(run.stderr).not.toContain(secret);
      }
    };

    // set-limits, then list shows it; prefixes, never keys.
    const set = await keys(["set-limits", "1", "--per-day", "500"]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain("default/min 500/day");
    noSecret(set);
    const listed = await keys(["list"]);
    expect(listed.code, listed.stderr).toBe(0);
    noSecret(listed);
    expect(lines(listed.stdout)).toHaveLength(2);
    expect(row(listed.stdout, 1)).toContain(`${first.prefix}…`);
    expect(row(listed.stdout, 1)).toContain("\tci\t");
    expect(row(listed.stdout, 1)).toContain("\tactive\t");
    expect(row(listed.stdout, 1)).toContain("default/min 500/day");
    expect(row(listed.stdout, 2)).toContain(`${second!.slice(0, 13)}…`);
    expect(row(listed.stdout, 2)).toContain("\tops\t");
    expect(row(listed.stdout, 2)).toContain("10/min default/day");

    // set-limits … default clears.
    const cleared = await keys(["set-limits", "1", "--per-day", "default"]);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.stdout).toContain("default/min default/day");

    // revoke by id and by prefix.
    const byId = await keys(["revoke", "1"]);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toMatch(/^revoked: 1\t/);
    expect(byId.stdout).toMatch(/\trevoked \d{4}-\d\d-\d\dT[\d:.]+Z\t/);
    expect(byId.stdout).toContain("default/min default/day");
    noSecret(byId);
    const byPrefix = await keys(["revoke", second!.slice(0, 13)]);
    expect(byPrefix.code, byPrefix.stderr).toBe(0);
    expect(byPrefix.stdout).toMatch(/^revoked: 2\t/);
    expect(byPrefix.stdout).toMatch(/\trevoked \d{4}-\d\d-\d\dT[\d:.]+Z\t/);
    noSecret(byPrefix);

    // An unknown key: exit 1, naming it.
    const unknown = await keys(["revoke", "99"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('keys: no API key with id or prefix "99"\n');
    expect(unknown.stdout).toBe("");
  });

  it("expiry and roll: create --expires, list --expiring, set-expiry, roll --overlap; bad values exit 1 or 2", {
    timeout: 240_000,
  }, async () => {
    const [created, badWhen, badOverlap, badExpiring, noExpires, past] = await Promise.all([
      keys(["create", "--name", "expiring", "--expires", "3d", "--json"]),
      keys(["create", "--name", "x", "--expires", "soon"]),
      keys(["roll", "1", "--overlap", "8d"]),
      keys(["list", "--expiring", "week"]),
      keys(["set-expiry", "1"]),
      keys(["create", "--name", "x", "--expires", "2020-01-01"]),
    ]);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(lines(created.stdout).at(-1)!) as { id: number; key: string; prefix: string };
    expect(badWhen.code).toBe(1);
    expect(badWhen.stderr).toBe(
      'keys: --expires must be a date (2027-01-31), an instant (2027-01-31T12:00:00Z), a duration (30d) or never, got "soon"\n',
    );
    expect(badOverlap.code).toBe(1);
    expect(badOverlap.stderr).toBe('keys: --overlap must be none or a duration of at most 7d (1h, 24h, 7d), got "8d"\n');
    expect(badExpiring.code).toBe(1);
    expect(badExpiring.stderr).toBe('keys: --expiring must be a duration (7d, 12h), got "week"\n');
    expect(noExpires.code).toBe(2);
    expect(noExpires.stderr).toContain("--expires is required");
    expect(past.code).toBe(1);
    expect(past.stderr).toBe("keys: --expires must be in the future, got 2020-01-01T00:00:00.000Z\n");

    // Listed among those expiring within 7 days, not within 2.
    const [week, twoDays] = await Promise.all([keys(["list", "--expiring", "7d"]), keys(["list", "--expiring", "2d"])]);
    expect(week.code, week.stderr).toBe(0);
    expect(lines(week.stdout).map((l) => l.split("\t")[0])).toEqual([String(key.id)]);
    expect(row(week.stdout, key.id)).toMatch(/\texpires \d{4}-\d\d-\d\dT[\d:.]+Z\t/);
    expect(twoDays.stdout).toBe("no active key expires within 2d\n");

    // Rolled with an overlap: a new secret for the same key, printed once, with the old one's end.
    const rolled = await keys(["roll", key.prefix, "--overlap", "1h", "--json"]);
    expect(rolled.code, rolled.stderr).toBe(0);
    const roll = JSON.parse(lines(rolled.stdout).at(-1)!) as Record<string, string | number>;
    expect(Object.keys(roll)).toEqual(["id", "key", "prefix", "previous_prefix", "previous_until"]);
    expect(roll.id).toBe(key.id);
    expect(roll.key).not.toBe(key.key);
    expect(roll.prefix).toBe(String(roll.key).slice(0, 13));
    expect(roll.previous_prefix).toBe(key.prefix);
    expect(Date.parse(String(roll.previous_until)) - Date.now()).toBeGreaterThan(50 * 60_000);

    // set-expiry never: no longer expiring; listed with its new prefix; no secret printed.
    const never = await keys(["set-expiry", String(key.id), "--expires", "never"]);
    expect(never.code, never.stderr).toBe(0);
    expect(never.stdout).toContain(`${roll.prefix}…`);
    expect(never.stdout).toContain("\texpires never\t");
    for (const run of [week, never]) {
      expect(run.stdout).not.toContain(key.key.slice(13));
      expect(run.stdout).not.toContain(String(roll.key).slice(13));
    }
    // Each change is an audit line on standard error, with prefixes and never a secret.
    const line = JSON.parse(rolled.stderr.trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(line).toMatchObject({ audit: "key.rolled", by: "operator", keyId: key.id, prefix: roll.prefix, previousPrefix: key.prefix });
    expect(JSON.parse(never.stderr.trim())).toMatchObject({ audit: "key.expiry_set", keyId: key.id, expiresAt: null });
    for (const run of [rolled, never]) expect(run.stderr).not.toContain(String(roll.key).slice(13));
    const human = await keys(["roll", String(key.id)]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`Rolled key ${key.id}: ${roll.prefix}… is now`);
    expect(human.stdout).toContain("The old secret stopped working now.");
    expect(human.stdout).toMatch(/\n\s+uedu_[0-9A-Za-z]{40}\n/);
  });

  it("docs/api-keys.md's expiry, roll and restrict lines run as written, on the key its create line makes", {
    timeout: 120_000,
  }, async () => {
    const page = readFileSync(join(import.meta.dirname, "..", "..", "docs", "api-keys.md"), "utf8");
    const shown = [...page.matchAll(/^npm run keys -- ((?:create .*--expires|list --expiring|set-expiry|roll|restrict) .*)$/gm)].map(
      (m) => m[1]!,
    );
    expect(shown.map((line) => line.split(" ")[0])).toEqual(["create", "list", "set-expiry", "roll", "restrict", "restrict"]);
    const [create, ...rest] = shown;
    const created = await keys(create!.split(" "));
    expect(created.code, created.stderr).toBe(0);
    const id = /^Created key (\d+) /.exec(created.stdout)?.[1];
    expect(id).toBeDefined();
    // The page's lines name key 3; here it is the one just made.
    const runs: CliRun[] = [];
    for (const line of rest) {
      const args = line.split(" ").map((arg) => (arg === "3" ? id! : arg));
      const run = await keys(args);
      expect(run.code, `${line}: ${run.stderr}`).toBe(0);
      runs.push(run);
    }
    const [expiring, set, roll, , restricted] = runs as [CliRun, CliRun, CliRun, CliRun, CliRun];
    // Made to expire in 90 days: not within 7.
    expect(lines(expiring.stdout).map((l) => l.split("\t")[0])).not.toContain(id);
    expect(row(set.stdout.replace(/^expiry set: /, ""), Number(id))).toMatch(/\tcourse-map\talice\tactive\t/);
    expect(roll.stdout).toMatch(/The old secret works until \d{4}-\d\d-\d\dT[\d:.]+Z, then stops on every gateway\./);
    expect(restricted.stdout).toContain(
      "\trestricted: origins https://app.example.org,https://staging.example.org; surfaces graphql; documents only; 30/min per visitor; 1000/day per visitor\n",
    );
  });

  it("restrict: sets each restriction given, lists them, attaches documents; bad values exit 1 or 2 and change nothing", {
    timeout: 120_000,
  }, async () => {
    const created = await keys([
      "create",
      "--name",
      "page",
      "--origins",
      "https://App.example.org",
      "--surfaces",
      "graphql,rest",
      "--json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(lines(created.stdout).at(-1)!) as { id: number };
    const file = join(tmp, "documents.json");
    const text = "query Page { universities(first: 1) { totalCount } }";
    writeFileSync(file, JSON.stringify({ [`sha256:${createHash("sha256").update(text).digest("hex")}`]: text }));
    const badFile = join(tmp, "bad-documents.json");
    writeFileSync(badFile, JSON.stringify({ [createHash("sha256").update("{ nope }").digest("hex")]: "{ nope }" }));
    const [badOrigin, badRange, nothing, badDocuments] = await Promise.all([
      keys(["restrict", String(id), "--origins", "app.example.org"]),
      keys(["restrict", String(id), "--addresses", "10.0.0.0/40"]),
      keys(["restrict", String(id)]),
      keys(["restrict", String(id), "--documents", badFile]),
    ]);
    expect(badOrigin.code).toBe(1);
    expect(badOrigin.stderr).toContain("keys: an origin is a scheme and host like https://app.example.org");
    expect(badRange.code).toBe(1);
    expect(badRange.stderr).toContain('got "10.0.0.0/40"');
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain("give at least one restriction to set");
    expect(badDocuments.code).toBe(1);
    expect(badDocuments.stderr).toMatch(/^keys: --documents .*bad-documents\.json: entry "[0-9a-f]+": Cannot query field "nope"/);

    const restricted = await keys([
      "restrict",
      String(id),
      "--addresses",
      "203.0.113.0/24",
      "--per-visitor-minute",
      "10",
      "--documents-only",
      "yes",
      "--documents",
      file,
    ]);
    expect(restricted.code, restricted.stderr).toBe(0);
    expect(restricted.stdout).toContain(
      "\trestricted: origins https://app.example.org; addresses 203.0.113.0/24; surfaces graphql,rest; documents only; 10/min per visitor\n",
    );
    expect(restricted.stdout).toContain("its own trusted documents: 1\n");
    expect(JSON.parse(restricted.stderr.trim())).toMatchObject({
      audit: "key.restrictions_set",
      keyId: id,
      restrictions: { addresses: ["203.0.113.0/24"], visitorPerMinute: 10, documentsOnly: true },
      documents: 1,
    });
    const opened = await keys([
      "restrict",
      String(id),
      "--origins",
      "none",
      "--addresses",
      "none",
      "--surfaces",
      "all",
      "--documents-only",
      "no",
      "--per-visitor-minute",
      "none",
    ]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(row(opened.stdout.replace(/^restrictions set: /, ""), id)).toMatch(/\tunrestricted$/);
  });
});
