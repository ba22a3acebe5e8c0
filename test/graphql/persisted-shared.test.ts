/**
 * Automatic persisted queries shared through Redis
 * (src/cache/persisted-queries.ts): two gateways, each with its own
 * connection to one private Redis, stand for two hosts. A document
 * registered on one runs by its hash on the other; what Redis holds is
 * checked against its hash; a document too long to share stays in its
 * process; and with Redis stopped, and started again, every request is
 * answered.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentKey, MAX_SHARED_CHARS } from "../../src/cache/persisted-queries.js";
import { createReadClient, type ReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { connectRedis } from "../../src/limits/redis.js";
import { sha256Hex } from "../../src/sha256.js";
import { createGateway, type Gateway } from "../../src/server.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { findRedisServer, type PrivateServer, startRedis } from "../support/servers.js";

const available = findRedisServer() !== undefined;
const DAY_MS = 86_400_000;

let server: PrivateServer;
let db: Database;
let prisma: ReadClient;
/** Each gateway's own Redis connection, and one for the test to look with. */
let connections: Redis[] = [];
let look: Redis;
let hostA: Gateway;
let hostB: Gateway;

beforeAll(async () => {
  if (!available) return;
  server = await startRedis();
  db = await freshDatabase();
  await importObject(db, canaryExport());
  prisma = createReadClient(db);
  connections = await Promise.all([connectRedis(server.url), connectRedis(server.url), connectRedis(server.url)]);
  look = connections[2]!;
  const host = (redis: Redis) => createGateway({ db, prisma, auth: false, persistedQueries: { redis } });
  hostA = host(connections[0]!);
  hostB = host(connections[1]!);
}, 120_000);

afterAll(async () => {
  for (const redis of connections) redis.disconnect();
  await server?.destroy();
  await prisma?.$disconnect();
  await db?.close();
});

/** A document of its own for each case (the number of schools asked for makes it differ). */
const documentOf = (first: number) => `{ universities(first: ${first}) { nodes { code } } }`;

const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

async function byHash(gateway: Gateway, hash: string) {
  const response = await gateway.fetch(`http://gateway.test/graphql?extensions=${encodeURIComponent(JSON.stringify(persisted(hash)))}`);
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: { message: string }[] } };
}

async function register(gateway: Gateway, query: string) {
  const response = await gateway.fetch("http://gateway.test/graphql", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query, extensions: persisted(sha256Hex(query)) }),
  });
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: { message: string }[] } };
}

const NOT_FOUND = { status: 404, body: { errors: [expect.objectContaining({ message: "PersistedQueryNotFound" })] } };

/** Waits until Redis holds the document of `hash` (a registration writes it without waiting). */
async function sharedInRedis(hash: string): Promise<string | null> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const text = await look.get(documentKey(hash)).catch(() => null);
    if (text !== null || Date.now() > deadline) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!available)("automatic persisted queries shared through Redis", () => {
  it("a document registered on one host runs by its hash on another, for a day after its last use", async () => {
    const query = documentOf(1);
    const hash = sha256Hex(query);
    expect(await byHash(hostB, hash)).toMatchObject(NOT_FOUND);
    const registered = await register(hostA, query);
    expect(registered.status).toBe(200);
    expect(await sharedInRedis(hash)).toBe(query);
    const ttl = await look.pttl(documentKey(hash));
    expect(ttl).toBeGreaterThan(DAY_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(DAY_MS);
    // Run from Redis: the expiry starts again.
    await look.pexpire(documentKey(hash), 60_000);
    expect(await byHash(hostB, hash)).toEqual(registered);
    expect(await look.pttl(documentKey(hash))).toBeGreaterThan(DAY_MS - 60_000);
  });

  it("what Redis holds under a hash runs only when it is that hash's document", async () => {
    const hash = sha256Hex(documentOf(2));
    await look.set(documentKey(hash), "{ __typename }");
    expect(await byHash(hostB, hash)).toMatchObject(NOT_FOUND);
    // The client then sends the document, and it runs.
    expect((await register(hostB, documentOf(2))).status).toBe(200);
    expect((await byHash(hostB, hash)).status).toBe(200);
  });

  it("a document longer than MAX_SHARED_CHARS is kept by its process alone", async () => {
    const query = `${documentOf(3)}\n# ${"x".repeat(MAX_SHARED_CHARS)}`;
    const hash = sha256Hex(query);
    expect((await register(hostA, query)).status).toBe(200);
    expect((await byHash(hostA, hash)).status).toBe(200);
    expect(await look.exists(documentKey(hash))).toBe(0);
    expect(await byHash(hostB, hash)).toMatchObject(NOT_FOUND);
  });

  it("with Redis stopped every request is answered, each host keeping its own; started again, they share", async () => {
    await server.stop();
    const query = documentOf(4);
    const hash = sha256Hex(query);
    const registered = await register(hostA, query);
    expect(registered.status).toBe(200);
    expect(await byHash(hostA, hash)).toEqual(registered);
    expect(await byHash(hostB, hash)).toMatchObject(NOT_FOUND);
    expect(await register(hostB, query)).toEqual(registered);
    expect(await byHash(hostB, hash)).toEqual(registered);

    await server.start();
    const after = documentOf(5);
    const afterHash = sha256Hex(after);
    // ioredis reconnects in the background: register until the document reaches Redis.
    const deadline = Date.now() + 15_000;
    let shared: string | null = null;
    while (shared === null && Date.now() < deadline) {
      expect((await register(hostA, after)).status).toBe(200);
      shared = await look.get(documentKey(afterHash)).catch(() => null);
      if (shared === null) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(shared).toBe(after);
    expect((await byHash(hostB, afterHash)).status).toBe(200);
  }, 60_000);
});
