/**
 * `npm run keys -- …` as a process (docs/contract.md §7) on an embedded database in a
 * temporary DATA_DIR: create (--json and not), list, set-limits, revoke, and
 * the exit codes and messages of mistakes. Spawns are slow; they are few,
 * and the ones that never open the database run beside the others.
 */
import { rmSync } from "node:fs";

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliRun, cli } from "../support/cli.js";
import { migratedDataDir } from "../support/databases.js";
import { tempDir } from "../support/temp.js";

let tmp: string;
beforeAll(() => {
  tmp = tempDir("keys-cli-");
  migratedDataDir(join(tmp, "data"));
});
afterAll(() => {
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
});
