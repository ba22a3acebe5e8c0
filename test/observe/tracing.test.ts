/**
 * OpenTelemetry traces (src/observe/tracing.ts), read as they arrive at an
 * OTLP/HTTP receiver from the SDK's own exporter in `npm start`'s process:
 *
 * - one REST, one GraphQL and one MCP request each make one trace: the HTTP
 *   server span, named by its route, over the GraphQL operation's span, over
 *   the SQL statements; the key check's and the limits' calls (SQL, Redis)
 *   are under the HTTP span;
 * - an incoming `traceparent` is honoured, and the access log line carries
 *   the trace's id;
 * - no key, cookie, sign-in token, query string or variable value reaches a
 *   span;
 * - an import and an ingest are each one trace, with a span for each phase;
 * - unset, nothing of OpenTelemetry is loaded.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { KeyStore } from "../../src/keys/store.js";
import { tracingOn } from "../../src/observe/tracing.js";
import { cwaPayload } from "../ingest/payloads.js";
import { builtCommand } from "../support/built.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { testGateway } from "../support/gateway.js";
import { type GatewayProcess, outputWith, request, startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";
import { type OtlpReceiver, otlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { freePorts } from "../support/servers.js";
import { tempDir } from "../support/temp.js";

const ROOT = join(import.meta.dirname, "..", "..");
const REDIS_URL = inject("redisUrl");
const SERVER = 2;

let receiver: OtlpReceiver;
let gateway: GatewayProcess;
let key: string;
let databaseUrl: string;
let drop: (() => Promise<void>) | undefined;

/** What must never be in a span. */
const CANARY = {
  cookie: `CANARY-COOKIE-${randomBytes(6).toString("hex")}`,
  query: `CANARY-QUERY-${randomBytes(6).toString("hex")}`,
  variable: `CANARY-VARIABLE-${randomBytes(6).toString("hex")}`,
  token: `CANARY-TOKEN-${randomBytes(6).toString("hex")}`,
};

const otelEnv = () => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  OTEL_BSP_SCHEDULE_DELAY: "50",
});

beforeAll(async () => {
  receiver = await otlpReceiver();
  const db = await freshDatabase();
  await importObject(db, canaryExport());
  key = (await new KeyStore(db).create({ name: "tracing", perMinute: 1_000 })).key;
  databaseUrl = db.url;
  drop = db.close;
  gateway = await startGateway("tracing", {
    ...otelEnv(),
    DATABASE_URL: db.url,
    LOG_LEVEL: "info",
    ...(REDIS_URL ? { REDIS_URL } : {}),
  });
  await waitReady(gateway);
}, 120_000);

afterAll(async () => {
  await stopAllGateways();
  await receiver?.close();
  await drop?.();
});

/** The spans of one trace, and each span's children. */
function tree(traceId: string) {
  const spans = receiver.spans.filter((s) => s.traceId === traceId);
  const children = (span: ReceivedSpan) => spans.filter((s) => s.parentSpanId === span.spanId);
  return { spans, children };
}

/** The server span of the request with this route, once it and its children have arrived. */
async function serverSpan(route: string, traceId?: string): Promise<ReceivedSpan> {
  const find = () =>
    receiver.spans.find((s) => s.kind === SERVER && s.attributes["http.route"] === route && (!traceId || s.traceId === traceId));
  await receiver.waitFor(() => find() !== undefined);
  // The children end before their parent, and are exported with it or sooner.
  return find()!;
}

/** Asserts an operation span under `server`, with SQL statements under it, and returns it. */
function operationUnder(server: ReceivedSpan, name: string): ReceivedSpan {
  const { children } = tree(server.traceId);
  const operation = children(server).find((s) => s.name === name);
  expect(operation, `${name} under ${server.name}: ${children(server).map((s) => s.name)}`).toBeDefined();
  expect(operation!.attributes["graphql.operation.type"]).toBe("query");
  const sql = children(operation!).filter((s) => s.scope === "@opentelemetry/instrumentation-pg" && s.name.startsWith("pg.query"));
  expect(sql.length, `SQL under ${name}`).toBeGreaterThan(0);
  for (const statement of sql) expect(statement.attributes["db.query.text"]).toMatch(/^\s*(SELECT|WITH)\b/);
  return operation!;
}

/**
 * Asserts the limits' calls to Redis (where it is set) under the HTTP span,
 * and for a key's first use, the key check's SQL (the key is then kept).
 */
function keyAndLimitsUnder(server: ReceivedSpan, firstUse = false): void {
  const direct = tree(server.traceId).children(server);
  if (firstUse) expect(direct.some((s) => String(s.attributes["db.query.text"]).includes("FROM api_key WHERE hash = $1"))).toBe(true);
  if (REDIS_URL) expect(direct.filter((s) => s.scope === "@opentelemetry/instrumentation-ioredis").map((s) => s.name)).toContain("evalsha");
}

describe("a trace per request", () => {
  it("REST: HTTP span (the incoming traceparent's child) > operation > SQL; the access log line carries the trace id", async () => {
    const traceId = randomBytes(16).toString("hex");
    const parent = randomBytes(8).toString("hex");
    const answer = await request(gateway, `/api/v1/courses?q=${CANARY.query}`, {
      key,
      headers: { traceparent: `00-${traceId}-${parent}-01`, cookie: `uedu_session=${CANARY.cookie}` },
    });
    expect(answer.status).toBe(200);
    const server = await serverSpan("/api/v1/courses", traceId);
    expect(server.parentSpanId).toBe(parent);
    expect(server.name).toBe("GET /api/v1/courses");
    expect(server.service).toBe("uedu-gateway");
    expect(server.attributes).toMatchObject({
      "http.request.method": "GET",
      "url.path": "/api/v1/courses",
      "http.response.status_code": 200,
    });
    operationUnder(server, "query courses");
    keyAndLimitsUnder(server, true);
    const line = (await outputWith(gateway, [`"trace_id":"${traceId}"`]))
      .split("\n")
      .filter((l) => l.includes('"msg":"request"') && l.includes('"route":"/api/v1/courses"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .at(-1);
    expect(line?.trace_id).toBe(traceId);
  });

  it("GraphQL: HTTP span > `query Search` (its name and type, not its variables) > SQL", async () => {
    const answer = await request(gateway, "/graphql", {
      key,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: "query Search($q: String) { coursePage(q: $q) { total } }",
        variables: { q: CANARY.variable },
      }),
    });
    expect(answer.status).toBe(200);
    expect(answer.json.errors).toBeUndefined();
    const server = await serverSpan("/graphql");
    expect(server.parentSpanId).toBe("");
    expect(server.name).toBe("POST /graphql");
    const operation = operationUnder(server, "query Search");
    expect(operation.attributes["graphql.operation.name"]).toBe("Search");
    keyAndLimitsUnder(server);
  });

  it("MCP: HTTP span > the tool's operation > SQL", async () => {
    const answer = await request(gateway, "/mcp", {
      key,
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_course", arguments: { course_id: 1 } } }),
    });
    expect(answer.status).toBe(200);
    const server = await serverSpan("/mcp");
    expect(server.name).toBe("POST /mcp");
    operationUnder(server, "query course");
    keyAndLimitsUnder(server);
  });

  it("no key, cookie, sign-in token, query string or variable value reaches a span", async () => {
    const signIn = await request(gateway, `/account/sign-in?token=${CANARY.token}`, {
      headers: { cookie: `uedu_session=${CANARY.cookie}` },
    });
    expect(signIn.status).toBe(404);
    const server = await serverSpan("/account/sign-in");
    expect(server.attributes["url.path"]).toBe("/account/sign-in");
    expect(server.attributes["url.query"]).toBeUndefined();
    const exported = receiver.bodies.join("\n");
    for (const secret of [key, key.slice(5), ...Object.values(CANARY)]) expect(exported).not.toContain(secret);
    expect(exported.toLowerCase()).not.toMatch(/authorization|bearer|cookie/);
  });
});

describe("a collector that cannot be reached", () => {
  it("costs the requests nothing: they are answered as usual, the failed exports are logged at warn, and the gateway stops cleanly", async () => {
    const [closedPort] = await freePorts(1);
    const lonely = await startGateway("tracing-unreachable", {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closedPort}`,
      OTEL_BSP_SCHEDULE_DELAY: "50",
      // An export gives up after a second, not the default ten: the exporter retries a refused connection until then.
      OTEL_EXPORTER_OTLP_TIMEOUT: "1000",
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: "warn",
    });
    await waitReady(lonely);
    for (let i = 0; i < 3; i++) {
      const answer = await request(lonely, "/api/v1/courses/1", { key });
      expect(answer.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const warned = () =>
      lonely
        .output()
        .split("\n")
        .filter((l) => l.includes('"msg":"OpenTelemetry: '))
        .map((l) => JSON.parse(l) as { level: number; msg: string });
    const refused = () => warned().some((w) => w.msg.includes("ECONNREFUSED"));
    for (const until = Date.now() + 15_000; !refused() && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
    expect(warned().length).toBeGreaterThan(0);
    expect(warned().every((w) => w.level === 40)).toBe(true);
    // The refused export, as one readable line (another SDK warning may come first: a CI run saw one about an ended span).
    expect(warned().map((w) => w.msg)).toContainEqual(expect.stringMatching(/^OpenTelemetry: connect ECONNREFUSED 127\.0\.0\.1:\d+$/));
    // It stops by itself, exit 0: the spans it could not send hold up the end for at most 2 s.
    const asked = Date.now();
    process.kill(-lonely.child.pid!, "SIGTERM");
    expect(await lonely.exited).toBe(0);
    expect(Date.now() - asked).toBeLessThan(5_000);
  });
});

describe("an import", () => {
  it("is one trace: the command's span, a span for each phase under it, and its SQL", async () => {
    const file = join(tempDir("tracing-import-"), "export.json");
    writeFileSync(file, JSON.stringify(canaryExport()));
    const [node, ...command] = builtCommand("src/cli/import.ts");
    const { stderr } = await promisify(execFile)(node, [...command, file], {
      cwd: ROOT,
      env: { ...process.env, ...otelEnv(), DATABASE_URL: databaseUrl, OTEL_BSP_SCHEDULE_DELAY: "5000" },
      timeout: 60_000,
    });
    expect(stderr).not.toMatch(/error/i);
    // The command flushed its spans before it exited.
    const root = receiver.spans.find((s) => s.service === "uedu-import" && s.name === "import" && s.parentSpanId === "");
    expect(root).toBeDefined();
    const { spans, children } = tree(root!.traceId);
    const phases = children(root!).filter((s) => s.name.startsWith("import "));
    expect(phases.map((s) => s.name)).toEqual(expect.arrayContaining(["import opening", "import migrating", "import committing"]));
    expect(spans.filter((s) => s.scope === "@opentelemetry/instrumentation-pg").length).toBeGreaterThan(10);
    expect(spans.every((s) => s.status !== 2)).toBe(true);
  });
});

describe("an ingest", () => {
  it("is one trace: the command's span, a span for each phase under it, and its SQL", async () => {
    const file = join(tempDir("tracing-ingest-"), "cwa.json");
    writeFileSync(
      file,
      JSON.stringify(
        cwaPayload([{ id: "C0A520", time: "2026-03-09T20:00:00+08:00", wgs84: [25.02, 121.54], temp: 18.5, rh: 80, precipTotal: 0 }]),
      ),
    );
    const [node, ...command] = builtCommand("src/cli/ingest.ts");
    const { stdout } = await promisify(execFile)(node, [...command, "--source", "cwa", file], {
      cwd: ROOT,
      env: { ...process.env, ...otelEnv(), DATABASE_URL: databaseUrl, OTEL_BSP_SCHEDULE_DELAY: "5000" },
      timeout: 60_000,
    });
    expect(stdout).toMatch(/^ingested cwa: read 1, stored 1/);
    const root = receiver.spans.find((s) => s.service === "uedu-ingest" && s.name === "ingest" && s.parentSpanId === "");
    expect(root).toBeDefined();
    const { spans, children } = tree(root!.traceId);
    expect(children(root!).map((s) => s.name)).toEqual(
      expect.arrayContaining(["ingest reading", "ingest opening", "ingest storing observations", "ingest rebuilding daily aggregates"]),
    );
    expect(spans.some((s) => String(s.attributes["db.query.text"]).includes("observation"))).toBe(true);
  });
});

describe("tracing unset", () => {
  it("loads nothing of OpenTelemetry, and answers as before", async () => {
    const t = await testGateway(canaryExport());
    try {
      const rest = await t.gateway.fetch("http://gateway.test/api/v1/courses/1");
      expect(rest.status).toBe(200);
      expect((await t.graphql("{ universities { totalCount } }")).errors).toBeUndefined();
      expect(tracingOn()).toBe(false);
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      // The API alone (no-ops without the SDK) is looked for by prom-client's CPU metric, and found.
      const sdk = loaded.filter((path) => /\/node_modules\/(@opentelemetry\/(?!api\/)|import-in-the-middle\/)/.test(path));
      expect(sdk).toEqual([]);
      expect(loaded.some((path) => path.includes("/node_modules/pg/"))).toBe(true);
    } finally {
      await t.close();
    }
  });
});
