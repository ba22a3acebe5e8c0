/**
 * Two roles on a real PostgreSQL (docs/roles.md): the owner of the schema
 * (DATABASE_OWNER_URL) applies migrations and imports; the gateway serves as
 * a role that holds exactly what `npm run db:grants` prints. Served here:
 * REST, GraphQL, MCP, keys, My API Keys, metrics and usage, reads from a
 * streaming replica, and an import beside it, run as the owner. The serving
 * role is refused every change to the data and the schema. Its URLs are Unix-socket URLs, in the two
 * forms `pg` reads (`?host=` and a percent-encoded host).
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { committedExamples } from "../../rest/example-file.js";
import { issueSignInToken } from "../../src/account/sessions.js";
import { openDatabase } from "../../src/db/driver.js";
import { grantStatements } from "../../src/db/grants.js";
import { csrfOf, setCookie } from "../support/account.js";
import { cli } from "../support/cli.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, stopGateway, waitReady } from "../support/gateway-process.js";
import { type PrivateServer, startPostgres, startReplica } from "../support/servers.js";

const ROOT = join(import.meta.dirname, "..", "..");
// The README's names, as its set-up is run here as written.
const OWNER = "uedu_owner";
const SERVING = "uedu_gateway";
let primary: Awaited<ReturnType<typeof startPostgres>>;
let replica: PrivateServer;
let admin: pg.Client;
let ownerUrl: string;
let servingUrl: string;
let replicaUrl: string;

const roles = () => ({ DATABASE_URL: servingUrl, DATABASE_OWNER_URL: ownerUrl, LOG_LEVEL: "silent" });
/** `npm run <script>` (from the run's build) with `env`; DATA_DIR names nothing it uses (DATABASE_URL is set). */
const command = (script: string, args: string[], env: Record<string, string>) => cli(join(primary.dir, "unused"), script, args, { env });

/** Runs `line` with bash in the repository, as a reader would. */
function shell(line: string, env: Record<string, string>) {
  const child = spawn("bash", ["-c", line], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "silent", ...env } });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  child.stdout.resume();
  return new Promise<{ code: number | null; err: string }>((resolve) => child.on("close", (code) => resolve({ code, err })));
}

beforeAll(async () => {
  primary = await startPostgres();
  admin = new pg.Client({ connectionString: primary.url });
  await admin.connect();
  // Passwords over TCP, as a managed server asks for them; the socket trusts (the replica's copy too).
  const hba = join(primary.dir, "data", "pg_hba.conf");
  writeFileSync(
    hba,
    `local all all trust\nhost replication all 127.0.0.1/32 trust\nhost all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, "utf8")}`,
  );
  await admin.query(`CREATE ROLE ${OWNER} LOGIN PASSWORD 'owner-secret'`);
  await admin.query(`CREATE ROLE "${SERVING}" LOGIN PASSWORD 'serving-secret'`);
  await admin.query(`CREATE DATABASE uedu OWNER ${OWNER}`);
  await admin.query("SELECT pg_reload_conf()");
  ownerUrl = `postgresql://${OWNER}:owner-secret@127.0.0.1:${primary.port}/uedu`;
  servingUrl = `postgresql://${encodeURIComponent(SERVING)}@/uedu?host=${primary.dir}&port=${primary.port}`;
  replica = await startReplica(primary);
  replicaUrl = `postgresql://${encodeURIComponent(SERVING)}@${encodeURIComponent(replica.dir)}:${replica.port}/uedu`;
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  await admin?.end();
  await replica?.destroy();
  await primary?.destroy();
});

describe("a serving role with only the grants of npm run db:grants", () => {
  let gateway: GatewayProcess;
  let key: string;

  it("is refused at start, in one line naming what it lacks, until the grants are given; the owner prepared the database", async () => {
    const refused = await startGateway("without grants", roles());
    expect(await refused.exited).toBe(1);
    const output = refused.output().trim();
    expect(output.split("\n")).toHaveLength(1);
    expect(output).toMatch(
      new RegExp(
        `^npm start: DATABASE_URL: role "${SERVING}" lacks SELECT on _prisma_migrations, SELECT on university, .* and \\d+ more, which serving needs: run what \`npm run db:grants -- --role ${SERVING}\` prints, as the schema's owner$`,
      ),
    );
    // The owner applied the migrations and imported the demo data before the check.
    const [row] = await queryAs<{ owner: string; n: number }>(
      ownerUrl,
      "SELECT tableowner AS owner, (SELECT count(*)::int FROM university) AS n FROM pg_tables WHERE tablename = 'course'",
    );
    expect(row).toEqual({ owner: OWNER, n: expect.any(Number) });
    expect(row!.n).toBeGreaterThan(0);
  }, 120_000);

  it("prints the grants, which the owner runs as the README shows", async () => {
    const printed = await command("grants", ["--role", SERVING], { DATABASE_URL: servingUrl });
    expect(printed).toMatchObject({ code: 0, stderr: "" });
    expect(printed.stdout).toBe(`${grantStatements(SERVING, "uedu").join("\n")}\n`);
    // The README's set-up (docs/roles.md's too), line by line, as written.
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const setUp = [...readme.matchAll(/^npm run (db:migrate|-s db:grants -- .*)$/gm)].map((m) => m[0]);
    expect(setUp).toEqual(["npm run db:migrate", `npm run -s db:grants -- --role ${SERVING} | psql "$DATABASE_OWNER_URL"`]);
    for (const line of setUp) {
      const ran = await shell(line, roles());
      expect(ran.code, `${line}: ${ran.err}`).toBe(0);
    }
  }, 60_000);

  it("serves every surface, the replica's reads included", async () => {
    const made = await command("keys", ["create", "--name", "roles", "--per-minute", "1000", "--per-day", "100000", "--json"], roles());
    expect(made.code, made.stderr).toBe(0);
    key = (JSON.parse(made.stdout) as { key: string }).key;
    gateway = await startGateway("serving role", { ...roles(), DATABASE_REPLICA_URLS: replicaUrl, USAGE_FLUSH_MS: "200" });
    await waitReady(gateway);

    // REST: every operation's committed example.
    for (const [name, example] of Object.entries(committedExamples())) {
      const answer = await request(gateway, example.request, { key });
      expect(answer.status, `${name}: ${answer.text}`).toBe(200);
      // The same things as the committed example (whose lists are cut short, and dates moved by the clock).
      expect(identities(answer.json), name).toEqual(identities(example.body as Parameters<typeof identities>[0]));
    }
    // GraphQL: nested lists (Prisma's lateral joins), Packs and their versions, environment.
    const graphql = await request(gateway, "/graphql", {
      key,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: `{ courses(first: 2) { edges { node { id courseNameChinese university { code environment { realtime { aqi } } } } } }
                  hubPacks(first: 2) { nodes { id name versions { version } } }
                  universities(first: 2) { nodes { code courses(first: 2) { nodes { id } } } } }`,
      }),
    });
    expect(graphql.status, graphql.text).toBe(200);
    expect(graphql.json.errors, graphql.text).toBeUndefined();
    expect(graphql.json.data.courses.edges).toHaveLength(2);
    // MCP
    const tool = await request(gateway, "/mcp", {
      key,
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_courses", arguments: { page_size: 2 } } }),
    });
    expect(tool.status, tool.text).toBe(200);
    expect(tool.text).not.toContain('"isError":true');

    // My API Keys: sign in with a link the owner issued, create a key, use it, revoke it.
    const owner = await openDatabase({ databaseUrl: ownerUrl });
    const { token } = await issueSignInToken(owner, "holder@example.org", 5).finally(() => owner.close());
    const form = { "content-type": "application/x-www-form-urlencoded", origin: gateway.base };
    const signedIn = await fetch(`${gateway.base}/account/sign-in`, {
      method: "POST",
      headers: form,
      body: `token=${token}`,
      redirect: "manual",
    });
    expect(signedIn.status).toBe(303);
    const cookie = `uedu_session=${setCookie(signedIn, "uedu_session")}`;
    const csrf = csrfOf(await (await fetch(`${gateway.base}/account/keys`, { headers: { cookie } })).text())!;
    const created = await fetch(`${gateway.base}/account/keys`, {
      method: "POST",
      headers: { ...form, cookie },
      body: new URLSearchParams({ csrf, name: "from the page" }).toString(),
    });
    const page = await created.text();
    const pageKey = /<code id="new-key">([^<]+)<\/code>/.exec(page)?.[1];
    expect(pageKey, page).toBeDefined();
    expect((await request(gateway, "/api/v1/universities", { key: pageKey })).status).toBe(200);
    const id = /\/account\/keys\/(\d+)\/revoke/.exec(page)![1];
    const revoked = await fetch(`${gateway.base}/account/keys/${id}/revoke`, {
      method: "POST",
      headers: { ...form, cookie },
      body: new URLSearchParams({ csrf }).toString(),
      redirect: "manual",
    });
    expect(revoked.status).toBeLessThan(400);
    expect((await request(gateway, "/api/v1/universities", { key: pageKey })).status).toBe(401);

    // The key's last use, noted by the serving role (a failure there is not the request's, so it is looked for here).
    await expect
      .poll(
        async () => (await queryAs<{ n: number }>(ownerUrl, "SELECT count(*)::int AS n FROM api_key WHERE last_used_at IS NOT NULL"))[0]!.n,
        {
          timeout: 10_000,
        },
      )
      .toBe(2);
    // Metrics, with the replica's reads (a replica still replaying the import serves none: another page is asked until one has).
    let asked = 1;
    const replicaReads = async () => {
      expect((await request(gateway, `/api/v1/courses?page=${asked++}`, { key })).status).toBe(200);
      const metrics = await request(gateway, "/metrics");
      expect(metrics.status).toBe(200);
      return Number(/^gateway_db_reads_total\{target="replica-1"\} (\d+)/m.exec(metrics.text)?.[1] ?? 0);
    };
    await expect.poll(replicaReads, { timeout: 30_000, interval: 200 }).toBeGreaterThan(0);
  }, 180_000);

  it("serves on through an import the owner runs beside it, storing the new snapshots itself", async () => {
    const before = await queryAs<{ version: number; at: string }>(
      servingUrl,
      "SELECT version, (SELECT max(computed_at)::text FROM school_snapshot) AS at FROM data_version",
    );
    // Three days of observations, not the demo's 35: a new data version all the same, in a fraction of the CPU.
    const exported = await command("demo-data", [join(primary.dir, "demo.json"), "--days", "3"], roles());
    expect(exported.code, exported.stderr).toBe(0);
    const imported = await command("import", [join(primary.dir, "demo.json")], roles());
    expect(imported.code, imported.stderr).toBe(0);
    await expect
      .poll(
        async () =>
          (
            await queryAs<{ version: number; at: string | null }>(
              servingUrl,
              "SELECT version, (SELECT max(computed_at)::text FROM school_snapshot) AS at FROM data_version",
            )
          )[0],
        { timeout: 30_000, interval: 200 },
      )
      .toMatchObject({ version: before[0]!.version + 1, at: expect.not.stringMatching(before[0]!.at ?? "none") });
    expect((await request(gateway, "/api/v1/environment/snapshot?limit=2", { key })).status).toBe(200);
    // What serving keeps, written as the serving role: the usage counts, written at SIGTERM at the latest.
    await stopGateway(gateway);
    const used = await queryAs<{ n: number }>(servingUrl, "SELECT count(*)::int AS n FROM usage_day");
    expect(used[0]!.n).toBeGreaterThan(0);
  }, 120_000);

  it.each([
    ["DROP TABLE course"],
    ["ALTER TABLE course ADD COLUMN note text"],
    ["TRUNCATE course"],
    ["TRUNCATE usage_day"],
    ["DELETE FROM course"],
    ["UPDATE course SET semester = 'x'"],
    ["INSERT INTO paper (slug, title) VALUES ('x', 'x')"],
    ["UPDATE api_key SET per_day = 1"],
    ["DELETE FROM api_key"],
    ["UPDATE data_version SET version = version + 1"],
    ["CREATE TABLE mine (x int)"],
    ["CREATE INDEX mine ON course (semester)"],
  ])("refuses the serving role %s", async (statement) => {
    const counts =
      "SELECT (SELECT count(*) FROM course) AS courses, (SELECT count(*) FROM api_key) AS keys, (SELECT version FROM data_version) AS v";
    const [before] = await queryAs(ownerUrl, counts);
    await expect(queryAs(servingUrl, statement)).rejects.toMatchObject({ code: "42501" });
    expect(await queryAs(ownerUrl, counts)).toEqual([before]);
  });
});

type Row = { id?: unknown; slug?: unknown; code?: unknown; key?: unknown; school?: { code?: unknown } };
/** What a REST body is about: its item's identity, or its first items' (as many as a committed example shows). */
function identities(body: { success?: boolean; data?: Row; items?: Row[] }, shown = 2): unknown[] {
  const identity = (row: Row) => row.id ?? row.slug ?? row.code ?? row.key ?? row.school?.code;
  return [body.success, ...(body.data ? [identity(body.data)] : (body.items ?? []).slice(0, shown).map(identity))];
}

/** Runs `sql` on a connection of its own to `url` (the serving role's or the owner's). */
async function queryAs<Row extends pg.QueryResultRow = Record<string, unknown>>(url: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}
