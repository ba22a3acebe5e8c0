/**
 * `npm run keys -- sign-in-link`: the operator's way to let an account
 * holder in without an identity provider, and the configuration of the
 * account pages.
 */
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/db/driver.js";
import { cli } from "../support/cli.js";
import { migratedDataDir } from "../support/databases.js";
import { tempDir } from "../support/temp.js";

const tmp = tempDir("sign-in-link-");
const dataDir = join(tmp, "data");

beforeAll(() => migratedDataDir(dataDir));

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("npm run keys -- sign-in-link", () => {
  it("prints a link under PUBLIC_URL that expires in --minutes; with --json the last line is {url, expires_at}; only the token's hash is stored", async () => {
    const before = Date.now();
    const run = await cli(dataDir, "keys", ["sign-in-link", "--owner", "alice", "--minutes", "30", "--json"], {
      env: { PUBLIC_URL: "https://data.example.org" },
    });
    expect(run.code, run.stderr).toBe(0);
    const last = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { url: string; expires_at: string };
    expect(Object.keys(last)).toEqual(["url", "expires_at"]);
    const url = new URL(last.url);
    expect(`${url.origin}${url.pathname}`).toBe("https://data.example.org/account/sign-in");
    const token = url.searchParams.get("token")!;
    expect(token).toMatch(/^[\w-]{43}$/);
    const expires = Date.parse(last.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(30 * 60_000 - 1_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(30 * 60_000);

    const text = await cli(dataDir, "keys", ["sign-in-link", "--owner", "bob"], { env: { PUBLIC_URL: undefined, PORT: "4321" } });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /^Sign-in link for bob, valid once until \d{4}-\d\d-\d\dT[\d:.]+Z:\n\n {2}http:\/\/127\.0\.0\.1:4321\/account\/sign-in\?token=[\w-]{43}\n/,
    );

    const db = await openDatabase({ dataDir });
    try {
      const rows = await db.query<Record<string, unknown>>(`SELECT * FROM sign_in_token ORDER BY created_at`);
      expect(rows.map((r) => r.owner)).toEqual(["alice", "bob"]);
      expect(rows[0]!.hash).toBe(createHash("sha256").update(token).digest("hex"));
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(rows.every((r) => r.used_at === null)).toBe(true);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("refuses a missing owner (2), a bad --minutes or owner (1), and stores nothing", async () => {
    const missing = await cli(dataDir, "keys", ["sign-in-link"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^keys: --owner is required\nusage: npm run keys/);
    for (const minutes of ["0", "1441", "abc", "-5", "1.5"]) {
      const bad = await cli(dataDir, "keys", ["sign-in-link", "--owner", "carol", `--minutes=${minutes}`]);
      expect(bad.code, minutes).toBe(1);
      expect(bad.stderr).toContain("keys: --minutes must be an integer from 1 to 1440");
    }
    const control = await cli(dataDir, "keys", ["sign-in-link", "--owner", "car\u0007ol"]);
    expect(control.code).toBe(1);
    expect(control.stderr).toContain("keys: --owner must not contain control characters");
    const long = await cli(dataDir, "keys", ["sign-in-link", "--owner", "x".repeat(201)]);
    expect(long.code).toBe(1);
    expect(long.stderr).toContain("keys: --owner must be at most 200 characters");
    const db = await openDatabase({ dataDir });
    try {
      expect(await db.query(`SELECT owner FROM sign_in_token WHERE owner LIKE 'car%'`)).toEqual([]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("--help names it", async () => {
    const help = await cli(dataDir, "keys", ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("npm run keys -- sign-in-link --owner NAME [--minutes 15] [--json]");
  });
});

describe("the account pages' configuration", () => {
  it("PUBLIC_URL defaults to http://HOST:PORT and is an origin", () => {
    expect(loadConfig({ PORT: "4100" }).publicUrl).toBe("http://127.0.0.1:4100");
    expect(loadConfig({ HOST: "0.0.0.0" }).publicUrl).toBe("http://127.0.0.1:4000");
    expect(loadConfig({ PUBLIC_URL: "https://data.example.org/" }).publicUrl).toBe("https://data.example.org");
    for (const bad of ["data.example.org", "ftp://x.org", "https://x.org/app"]) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(/PUBLIC_URL must be a URL like https:\/\/data\.example\.org/);
    }
  });

  it("OIDC_ISSUER and OIDC_CLIENT_ID go together; SESSION_SECRET is long enough", () => {
    expect(loadConfig({}).account.oidc).toBeUndefined();
    expect(loadConfig({ OIDC_ISSUER: "https://id.example.org", OIDC_CLIENT_ID: "gw" }).account.oidc).toEqual({
      issuer: "https://id.example.org",
      clientId: "gw",
      clientSecret: undefined,
    });
    expect(() => loadConfig({ OIDC_ISSUER: "https://id.example.org" })).toThrow(ConfigError);
    expect(() => loadConfig({ OIDC_CLIENT_ID: "gw" })).toThrow(ConfigError);
    expect(() => loadConfig({ OIDC_CLIENT_SECRET: "s" })).toThrow(ConfigError);
    expect(() => loadConfig({ SESSION_SECRET: "short" })).toThrow(/SESSION_SECRET must be at least 32 characters/);
    expect(loadConfig({}).account).toMatchObject({ maxKeys: 5, creationsPerHour: 10, sessionSecret: undefined });
  });
});
