/**
 * The configuration is read once, at start, with every variable checked: a
 * bad value is named on one line with what it allows (and never repeated, a
 * connection string may hold a password), and `npm start` exits 2 before it
 * opens or creates anything. docs/configuration.md lists every variable.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";

import { isAbsolute, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, VARIABLES } from "../src/config.js";
import { databaseAddress } from "../src/db/urls.js";
import { builtCommand } from "./support/built.js";
import { tempDir } from "./support/temp.js";

const ROOT = join(import.meta.dirname, "..");
const SERVING_URL = "a URL like postgresql://user@host:5432/db or postgresql://user@/db?host=/var/run/postgresql, or unset";

describe("loadConfig", () => {
  it("gives the documented defaults for an empty environment", () => {
    expect(loadConfig({})).toMatchObject({
      port: 4000,
      host: "127.0.0.1",
      databaseUrl: undefined,
      dataDir: join(process.cwd(), "data"),
      perMinute: 60,
      perDay: 10_000,
      shutdownTimeoutMs: 10_000,
      logLevel: "info",
    });
  });

  it.each([
    ["data", "data"],
    ["./data", "data"],
    ["../x", "../x"],
    ["my data/db", "my data/db"],
    ["/srv/uedu/data", "/srv/uedu/data"],
  ])("resolves DATA_DIR=%j to an absolute path against the working directory, once", (value, relative) => {
    const { dataDir } = loadConfig({ DATA_DIR: value });
    expect(isAbsolute(dataDir)).toBe(true);
    expect(dataDir).toBe(resolve(process.cwd(), relative));
  });

  it("reads good values, and takes an empty value as unset", () => {
    const config = loadConfig({
      PORT: "8080",
      RATE_LIMIT_PER_MINUTE: "5",
      DATABASE_URL: "postgres://u:p@db:5432/x",
      REDIS_URL: "",
    });
    expect(config).toMatchObject({
      port: 8080,
      perMinute: 5,
      databaseUrl: "postgres://u:p@db:5432/x",
      redisUrl: undefined,
    });
  });

  it.each([
    ["PORT", "abc", "PORT must be an integer from 0 to 65,535 (default 4000)"],
    ["PORT", "70000", "PORT must be an integer from 0 to 65,535 (default 4000)"],
    ["RATE_LIMIT_PER_MINUTE", "-5", "RATE_LIMIT_PER_MINUTE must be an integer from 1 to 1,000,000 (default 60)"],
    ["RATE_LIMIT_PER_DAY", "1.5", "RATE_LIMIT_PER_DAY must be an integer from 1 to 1,000,000,000 (default 10000)"],
    ["DATABASE_URL", "not a url", `DATABASE_URL must be ${SERVING_URL}`],
    ["DATABASE_URL", "mysql://root:secret@db/x", `DATABASE_URL must be ${SERVING_URL}`],
    ["DATABASE_URL", "postgresql://root:secret@db:99999/x", `DATABASE_URL must be ${SERVING_URL}`],
    [
      "DATABASE_URL",
      "postgresql://root:secret@db1,db2/x",
      "DATABASE_URL names several hosts, which pg does not connect to: name one server (the primary, or a proxy in front of them), and its streaming replicas in DATABASE_REPLICA_URLS",
    ],
    [
      "DATABASE_URL",
      "postgresql://root:secret@db/x?sslmode=verify-full&sslrootcert=/nowhere/secret-ca.pem",
      "DATABASE_URL names a file that cannot be read (/nowhere/secret-ca.pem: ENOENT)",
    ],
    [
      "REDIS_URL",
      "http://cache:6379",
      "REDIS_URL must be a URL like redis://host:6379 or redis+sentinel://host1:26379,host2:26379/mymaster, or unset",
    ],
    ["SHUTDOWN_TIMEOUT_MS", "soon", "SHUTDOWN_TIMEOUT_MS must be an integer from 0 to 600,000 (default 10000)"],
    ["LOG_LEVEL", "loud", "LOG_LEVEL must be fatal, error, warn, info, debug, trace or silent (default info)"],
    ["CORS_ORIGINS", "app.example.net", "CORS_ORIGINS must be comma-separated origins like https://app.example.org, or unset"],
    [
      "DATABASE_REPLICA_URLS",
      "postgresql://u:secret@replica1/x,replica2:5432",
      "DATABASE_REPLICA_URLS must be comma-separated URLs like postgresql://user@replica1:5432/db of streaming replicas of DATABASE_URL, or unset",
    ],
    ["REPLICA_MAX_LAG_MS", "5s", "REPLICA_MAX_LAG_MS must be an integer from 100 to 600,000 (default 5000)"],
  ])("refuses %s=%j, naming it and what is allowed, without repeating the value", (name, value, message) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`invalid configuration: ${message}`);
    expect((error as Error).message).not.toContain("secret@");
    if (!value.includes("secret")) expect((error as Error).message).not.toContain(value);
  });

  it.each([
    ["a host and port", "postgresql://app:pw@db.internal:6432/uedu?sslmode=verify-full", "db.internal:6432/uedu"],
    ["a socket directory in host=", "postgresql://app@/uedu?host=/var/run/postgresql", "/var/run/postgresql:5432/uedu"],
    ["a percent-encoded socket directory", "postgresql://app@%2Fvar%2Frun%2Fpostgresql:5433/uedu", "/var/run/postgresql:5433/uedu"],
    ["socket:", "socket:/var/run/postgresql?db=uedu", "/var/run/postgresql:5432/uedu"],
    ["libpq's keyword form of a socket", "/var/run/postgresql uedu", "/var/run/postgresql:5432/uedu"],
    ["no database (the user's name)", "postgres://app@db.internal", "db.internal:5432/app"],
  ])("takes %s in DATABASE_URL, DATABASE_OWNER_URL and DATABASE_REPLICA_URLS, as pg reads it", (_, url, address) => {
    expect(databaseAddress(url)).toBe(address);
    const other = "postgresql://reader@elsewhere/uedu";
    expect(loadConfig({ DATABASE_URL: url, DATABASE_OWNER_URL: url, DATABASE_REPLICA_URLS: other })).toMatchObject({
      databaseUrl: url,
      ownerUrl: url,
    });
    expect(loadConfig({ DATABASE_URL: other, DATABASE_REPLICA_URLS: url }).replicaUrls).toEqual([url]);
  });

  it("writes out the TLS mode pg gives sslmode=prefer, require and verify-ca (verify-full), and leaves the others", () => {
    const mode = (url: string) =>
      loadConfig({ DATABASE_URL: url, DATABASE_OWNER_URL: url, DATABASE_REPLICA_URLS: `${url.replace("@db/", "@replica/")}&x=1` });
    for (const given of ["prefer", "require", "verify-ca", "REQUIRE"]) {
      expect(mode(`postgresql://app@db/uedu?sslmode=${given}`)).toMatchObject({
        databaseUrl: "postgresql://app@db/uedu?sslmode=verify-full",
        ownerUrl: "postgresql://app@db/uedu?sslmode=verify-full",
        replicaUrls: ["postgresql://app@replica/uedu?sslmode=verify-full&x=1"],
      });
    }
    for (const kept of ["sslmode=no-verify", "sslmode=disable", "sslmode=verify-full", "uselibpqcompat=true&sslmode=require"]) {
      expect(mode(`postgresql://app@db/uedu?${kept}`).databaseUrl).toBe(`postgresql://app@db/uedu?${kept}`);
    }
  });

  it("takes DATABASE_OWNER_URL only with DATABASE_URL", () => {
    expect(() => loadConfig({ DATABASE_OWNER_URL: "postgresql://owner@db/uedu" })).toThrow(
      "invalid configuration: DATABASE_OWNER_URL needs DATABASE_URL (the embedded database has one role)",
    );
    expect(loadConfig({ DATABASE_URL: "postgresql://app@db/uedu" }).ownerUrl).toBeUndefined();
  });

  it("takes WEB_CONCURRENCY on the embedded PostgreSQL as on a server of one's own", () => {
    expect(loadConfig({ WEB_CONCURRENCY: "2" }).webConcurrency).toBe(2);
    expect(loadConfig({ WEB_CONCURRENCY: "2", DATABASE_URL: "postgresql://u@db/x" }).webConcurrency).toBe(2);
    expect(loadConfig({}).webConcurrency).toBe(1);
  });

  it("reads replicas of DATABASE_URL, and refuses them without it, twice, or naming the primary itself", () => {
    const primary = "postgresql://app:secret@db.internal:5432/uedu";
    expect(
      loadConfig({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: " postgresql://app:secret@r1:5432/uedu, postgres://app@r2/uedu ,," }),
    ).toMatchObject({ replicaUrls: ["postgresql://app:secret@r1:5432/uedu", "postgres://app@r2/uedu"], replicaMaxLagMs: 5_000 });
    expect(loadConfig({ DATABASE_URL: primary }).replicaUrls).toEqual([]);
    const refusal = (env: NodeJS.ProcessEnv) => {
      try {
        loadConfig(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as Error).message).not.toContain("secret");
        return (error as Error).message;
      }
      return undefined;
    };
    expect(refusal({ DATABASE_REPLICA_URLS: "postgresql://app@r1/uedu" })).toBe(
      "invalid configuration: DATABASE_REPLICA_URLS needs DATABASE_URL (the embedded database has no replicas)",
    );
    // The same server and database, written otherwise (default port, case of the host).
    expect(
      refusal({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: "postgresql://app@r1/uedu,postgresql://reader:secret@DB.internal/uedu" }),
    ).toBe(
      "invalid configuration: DATABASE_REPLICA_URLS names the primary itself (replica 2, db.internal:5432/uedu, is DATABASE_URL's server and database): list only its streaming replicas",
    );
    expect(refusal({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: "postgresql://app@r1/uedu,postgresql://app@r1:5432/uedu" })).toBe(
      "invalid configuration: DATABASE_REPLICA_URLS names r1:5432/uedu twice (replicas 1 and 2)",
    );
    // Another database of the primary's server is no replica either, but no match of the primary's: refused by the check at start.
    expect(refusal({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: "postgresql://app@db.internal/other" })).toBeUndefined();
  });

  it("reads a Sentinel-managed master in REDIS_URL, and refuses one without a master name", async () => {
    const { sentinelOptions } = await import("../src/limits/redis-url.js");
    const url = "redis+sentinel://app:s3cret@sentinel-a:26380,[::1],sentinel-c/primary-cache?db=2";
    expect(loadConfig({ REDIS_URL: url }).redisUrl).toBe(url);
    expect(sentinelOptions(url)).toEqual({
      sentinels: [
        { host: "sentinel-a", port: 26380 },
        { host: "::1", port: 26379 },
        { host: "sentinel-c", port: 26379 },
      ],
      name: "primary-cache",
      db: 2,
      username: "app",
      sentinelUsername: "app",
      password: "s3cret",
      sentinelPassword: "s3cret",
    });
    for (const missing of ["redis+sentinel://:s3cret@sentinel-a:26379", "redis+sentinel://:s3cret@sentinel-a:26379/"]) {
      expect(() => loadConfig({ REDIS_URL: missing })).toThrow(
        new ConfigError(
          "invalid configuration: REDIS_URL names Sentinels without a master name: write the name the Sentinels know it by, as in redis+sentinel://host1:26379,host2:26379/mymaster",
        ),
      );
    }
    expect(() => loadConfig({ REDIS_URL: "redis+sentinel://:s3cret@a:99999/m" })).toThrow(
      /^invalid configuration: REDIS_URL's Sentinels must be/,
    );
    expect(() => loadConfig({ REDIS_URL: "redis+sentinel://a/m?db=x" })).toThrow(/^invalid configuration: REDIS_URL's db must be/);
  });

  it("names every bad variable on the same line", () => {
    expect(() => loadConfig({ PORT: "abc", LOG_LEVEL: "loud" })).toThrow(/^invalid configuration: PORT must .*; LOG_LEVEL must [^\n]*$/);
  });

  it("is listed whole in docs/configuration.md's table, with what each variable allows", () => {
    const readme = readFileSync(join(ROOT, "docs", "configuration.md"), "utf8");
    const rows = new Map([...readme.matchAll(/^\| `([A-Z_]+)` +\| ([^|]*?) +\|/gm)].map((m) => [m[1], m[2]]));
    for (const [name, { allowed }] of Object.entries(VARIABLES)) expect(rows.get(name), name).toBe(allowed);
  });
});

describe("npm start with a bad configuration", () => {
  const tmp = tempDir("config-");
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  /** Runs `npm start`'s entry (the run's build, as `npm start` runs dist/) with these variables and the embedded database's DATA_DIR; what it printed and its exit code. */
  async function start(variables: Record<string, string>): Promise<{ stdout: string; stderr: string; code: unknown }> {
    const env: NodeJS.ProcessEnv = { ...process.env, ...variables };
    delete env.DATABASE_URL;
    const [program, ...args] = builtCommand("src/main.ts");
    const child = spawn(program, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const code = await new Promise((resolve) => child.on("close", resolve));
    return { stdout, stderr, code };
  }

  it("prints one line naming the variable and exits 2, before it creates DATA_DIR", async () => {
    const dataDir = join(tmp, "data");
    const { stdout, stderr, code } = await start({ DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: "-5" });
    expect(stderr).toBe("npm start: invalid configuration: RATE_LIMIT_PER_MINUTE must be an integer from 1 to 1,000,000 (default 60)\n");
    expect(stdout).toBe("");
    expect(code).toBe(2);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("names a TRUSTED_DOCUMENTS file that cannot be used, and exits 2 before it creates DATA_DIR", async () => {
    const dataDir = join(tmp, "data");
    const file = join(tmp, "trusted.json");
    writeFileSync(file, JSON.stringify({ [createHash("sha256").update("{ nope }").digest("hex")]: "{ nope }" }));
    const { stderr, code } = await start({ DATA_DIR: dataDir, TRUSTED_DOCUMENTS: file });
    expect(stderr).toMatch(
      new RegExp(`^npm start: TRUSTED_DOCUMENTS ${file}: entry "[0-9a-f]{64}": Cannot query field "nope" on type "Query".*\\n$`),
    );
    expect(code).toBe(2);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("names a trusted document that a limit would refuse at every request, by its hash and the limit, and exits 2", async () => {
    const dataDir = join(tmp, "data");
    const file = join(tmp, "trusted-deep.json");
    const round = (n: number): string => (n === 0 ? "code" : `courses(first: 1) { edges { node { university { ${round(n - 1)} } } } }`);
    const deep = `query Deep { universities(first: 1) { edges { node { ${round(5)} } } } }`;
    const hash = createHash("sha256").update(deep).digest("hex");
    const fine = "{ universities(first: 1) { edges { node { code } } } }";
    writeFileSync(file, JSON.stringify({ [createHash("sha256").update(fine).digest("hex")]: fine, [hash]: deep }));
    const { stderr, code } = await start({ DATA_DIR: dataDir, TRUSTED_DOCUMENTS: file });
    expect(stderr).toBe(
      `npm start: TRUSTED_DOCUMENTS ${file}: entry "${hash}": QUERY_TOO_DEEP: Operation Deep is nested 12 levels deep; at most 7 are allowed (connection edges, node, nodes and pageInfo add none)\n`,
    );
    expect(code).toBe(2);
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe("npm start on a Node.js older than it runs on", () => {
  it("says so in one line and exits 1, before anything else runs", async () => {
    const tmp = tempDir("old-node-");
    try {
      // Node 18 as far as the processes npm start runs can tell (npm itself warns, as it would).
      const preload = join(tmp, "node-18.mjs");
      writeFileSync(preload, `Object.defineProperty(process, "version", { value: "v18.20.4" });\n`);
      const dataDir = join(tmp, "data");
      const child = spawn("npm", ["start", "--silent"], {
        cwd: ROOT,
        env: { ...process.env, NODE_OPTIONS: `--import=${preload}`, DATA_DIR: dataDir, DATABASE_URL: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      const code = await new Promise((resolve) => child.on("close", resolve));
      expect(stderr.split("\n").filter((line) => line.startsWith("npm start:"))).toEqual([
        "npm start: Node.js v18.20.4 is too old: this service needs Node.js 20.19.0 or later (its tests run on 20, 22, 24 and 26)",
      ]);
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(stdout).toBe("");
      expect(code).toBe(1);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("lets every release from the oldest on run, and says engines is what it checks", async () => {
    const script = new URL("../scripts/node-version.mjs", import.meta.url).href;
    const { tooOld, OLDEST } = (await import(script)) as { tooOld(version: string): string | undefined; OLDEST: number[] };
    for (const version of ["v20.19.0", "v20.20.2", "v22.0.0", "v24.21.0", "v26.12.1", "v30.0.0"])
      expect(tooOld(version), version).toBeUndefined();
    for (const version of ["v20.18.3", "v18.20.4", "v16.0.0"]) expect(tooOld(version), version).toMatch(/too old/);
    const { engines } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(engines.node).toMatch(new RegExp(`^\\^${OLDEST.join("\\.")} `));
  });
});
