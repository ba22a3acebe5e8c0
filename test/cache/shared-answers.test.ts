/**
 * Answers shared through Redis (src/cache/shared-answers.ts): two gateways,
 * each with its own answer cache, read client and Redis connection, served
 * over real sockets with the lean path, stand for two hosts over one
 * database and one private Redis. An answer computed on one host is written
 * by the other from Redis without a statement, on REST, GraphQL (GET and
 * POST) and MCP, with its own ETag and id; after an import, both ask for the
 * new data version's answers; a garbled entry is a miss; with Redis stopped
 * every request is answered, and once it is back, answers are shared again.
 */
import { request as httpRequest, type Server } from "node:http";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnswerCache } from "../../src/cache/answers.js";
import { answerKey, MAX_SHARED_BYTES, SharedAnswers } from "../../src/cache/shared-answers.js";
import { createReadClient, type ReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { createHttpServer } from "../../src/http.js";
import { connectRedis } from "../../src/limits/redis.js";
import { createGateway } from "../../src/server.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { findRedisServer, type PrivateServer, startRedis } from "../support/servers.js";

const available = findRedisServer() !== undefined;
const HOUR_MS = 3_600_000;

interface Host {
  statements: string[];
  answers: AnswerCache;
  prisma: ReadClient;
  server: Server;
  port: number;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let redisServer: PrivateServer;
let db: Database;
let connections: Redis[] = [];
let look: Redis;
let a: Host;
let b: Host;

async function host(redis: Redis): Promise<Host> {
  const statements: string[] = [];
  const prisma = createReadClient(db, { onQuery: (e) => statements.push(e.query) });
  const answers = new AnswerCache({ ttlMs: HOUR_MS });
  await answers.follow(db);
  answers.share(
    new SharedAnswers({ redis, ttlMs: HOUR_MS }),
    async () => (await db.query<{ version: number }>("SELECT version FROM data_version"))[0]!.version,
  );
  const gateway = createGateway({ db, prisma, auth: false, answers });
  const server = createHttpServer(gateway, { first: gateway.lean });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { statements, answers, prisma, server, port: (server.address() as { port: number }).port };
}

function send(to: Host, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: to.port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** What each surface asks, the same way on both hosts. */
const ASKS: Record<string, (to: Host, id?: number) => Promise<Reply>> = {
  "REST GET": (to) => send(to, "GET", "/api/v1/universities?region=Taipei"),
  "GraphQL GET": (to) => send(to, "GET", `/graphql?query=${encodeURIComponent("{ universities { nodes { code nameEn } } }")}`),
  "GraphQL POST": (to) =>
    send(to, "POST", "/graphql", { "content-type": "application/json" }, JSON.stringify({ query: "{ courses(first: 3) { totalCount } }" })),
  "MCP tools/call": (to, id = 1) =>
    send(
      to,
      "POST",
      "/mcp",
      { "content-type": "application/json", accept: "application/json, text/event-stream" },
      JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "list_courses", arguments: { page_size: 2 } } }),
    ),
};

/** Waits until Redis holds `count` answers more than `before` (a store does not hold up its answer). */
async function stored(before: number, count = 1): Promise<number> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const now = (await look.keys("uedu:answer:*")).length;
    if (now >= before + count || Date.now() > deadline) return now;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  if (!available) return;
  redisServer = await startRedis();
  db = await freshDatabase();
  await importObject(db, canaryExport());
  connections = await Promise.all([connectRedis(redisServer.url), connectRedis(redisServer.url), connectRedis(redisServer.url)]);
  look = connections[2]!;
  [a, b] = await Promise.all([host(connections[0]!), host(connections[1]!)]);
  // Both have learnt the data version.
  await new Promise((resolve) => setTimeout(resolve, 200));
}, 120_000);

afterAll(async () => {
  for (const h of [a, b]) {
    h?.server.close();
    await h?.answers.close();
    await h?.prisma.$disconnect();
  }
  for (const redis of connections) redis.disconnect();
  await redisServer?.destroy();
  await db?.close();
});

describe.skipIf(!available)("answers shared through Redis", () => {
  it.each(Object.keys(ASKS))("%s: computed on one host, written by the other from Redis without a statement", async (surface) => {
    const ask = ASKS[surface]!;
    const before = (await look.keys("uedu:answer:*")).length;
    a.statements.length = 0;
    const first = await ask(a, 7);
    expect(first.status).toBe(200);
    expect(a.statements.length).toBeGreaterThan(0);
    // (An MCP call stores two: its v1 operation's answer, which the tool called, and its own.)
    expect(await stored(before)).toBeGreaterThan(before);
    b.statements.length = 0;
    const shared = await ask(b, 8);
    expect(shared.status).toBe(200);
    expect(b.statements).toEqual([]);
    if (surface === "MCP tools/call") {
      // The call's own id, in the same answer.
      expect(JSON.parse(shared.body)).toEqual({ ...JSON.parse(first.body), id: 8 });
    } else expect(shared.body).toBe(first.body);
    expect(shared.headers.etag).toBe(first.headers.etag);
    expect(shared.headers["content-type"]).toBe(first.headers["content-type"]);
    // Kept by B from now on: Redis is not asked again.
    const lookups = (await look.info("stats")).match(/keyspace_hits:(\d+)/)![1];
    await ask(b, 9);
    expect(b.statements).toEqual([]);
    expect((await look.info("stats")).match(/keyspace_hits:(\d+)/)![1]).toBe(lookups);
  });

  it("stores each answer under the data version it holds, for at most the setting; after an import both hosts compute the new version's", async () => {
    const [{ version }] = (await db.query<{ version: number }>("SELECT version FROM data_version")) as [{ version: number }];
    const keys = await look.keys(`uedu:answer:${version}:*`);
    expect(keys.length).toBeGreaterThanOrEqual(4);
    for (const key of keys) {
      const ttl = await look.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(HOUR_MS);
    }
    const renamed = canaryExport();
    renamed.universities[0]!.name_en = "Renamed On The Primary";
    await importObject(db, renamed);
    // Both hosts hear the change and learn the new version.
    const deadline = Date.now() + 5_000;
    while ((a.answers.generation < 3 || b.answers.generation < 3) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    b.statements.length = 0;
    const ask = ASKS["GraphQL GET"]!;
    const fresh = await ask(b);
    expect(fresh.body).toContain("Renamed On The Primary");
    expect(b.statements.length).toBeGreaterThan(0);
    expect(await look.keys(`uedu:answer:${version + 1}:*`)).toHaveLength(1);
    a.statements.length = 0;
    expect((await ask(a)).body).toBe(fresh.body);
    expect(a.statements).toEqual([]);
  });

  it("stores nothing begun before the data version was known, nor while it is not", async () => {
    const cache = new AnswerCache({ ttlMs: HOUR_MS });
    let tell: (version: number) => void = () => undefined;
    cache.share(new SharedAnswers({ redis: look, ttlMs: HOUR_MS }), () => new Promise<number>((resolve) => (tell = resolve)));
    const answer = (text: string) => ({ status: 200, bytes: Buffer.from(text) });
    const begun = cache.generation;
    cache.keep("while unknown", answer("1"), HOUR_MS, begun);
    tell(424242);
    await new Promise((r) => setTimeout(r, 10));
    // Begun before the version was learnt: neither kept here nor stored.
    cache.keep("begun before", answer("2"), HOUR_MS, begun);
    cache.keep("begun after", answer("3"), HOUR_MS, cache.generation);
    // An answer larger than MAX_SHARED_BYTES stays in its process.
    cache.keep("large", answer("x".repeat(MAX_SHARED_BYTES + 1)), HOUR_MS, cache.generation);
    await new Promise((r) => setTimeout(r, 100));
    expect(cache.bytes("large")).toBeDefined();
    expect(await look.exists(answerKey(424242, "large"))).toBe(0);
    expect(cache.bytes("begun before")).toBeUndefined();
    expect(await look.exists(answerKey(424242, "while unknown"), answerKey(424242, "begun before"))).toBe(0);
    expect(await look.getBuffer(answerKey(424242, "begun after"))).toBeTruthy();
  });

  it("an entry Redis garbled is a miss: the answer is computed", async () => {
    const [{ version }] = (await db.query<{ version: number }>("SELECT version FROM data_version")) as [{ version: number }];
    const path = "/api/v1/universities?region=Hsinchu";
    await look.set(answerKey(version, `/api/v1/universities ${JSON.stringify({ region: "Hsinchu" })}`), Buffer.from("garbage"));
    b.statements.length = 0;
    const reply = await send(b, "GET", path);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body).success).toBe(true);
    expect(b.statements.length).toBeGreaterThan(0);
  });

  it("with Redis stopped every request is answered by each host alone; started again, answers are shared again", async () => {
    await redisServer.stop();
    for (const to of [a, b]) {
      to.answers.clear();
      for (const ask of Object.values(ASKS)) expect((await ask(to)).status).toBe(200);
    }
    await redisServer.start();
    // The connections come back by themselves; a second later the stores resume.
    await new Promise((r) => setTimeout(r, 1_500));
    a.answers.clear();
    b.answers.clear();
    await new Promise((r) => setTimeout(r, 100));
    const before = (await look.keys("uedu:answer:*")).length;
    await ASKS["REST GET"]!(a);
    expect(await stored(before)).toBe(before + 1);
    b.statements.length = 0;
    expect((await ASKS["REST GET"]!(b)).status).toBe(200);
    expect(b.statements).toEqual([]);
  }, 30_000);
});
