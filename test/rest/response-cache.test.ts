/**
 * The v1 answer cache (src/cache/answers.ts): a repeated call sends no SQL,
 * an import empties it when it commits (heard on the database's channel, from
 * another connection), a refused
 * import does not, the listening connection comes back after the server
 * drops it, keys and limits still apply to cached answers, and with
 * RESPONSE_CACHE_MS=0 every call executes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { AnswerCache } from "../../src/cache/answers.js";
import { createReadClient } from "../../src/db/client.js";
import { type Database, openDatabase } from "../../src/db/driver.js";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { awayFromMinuteBoundary } from "../support/clock.js";
import { registry } from "../../src/observe/metrics.js";
import { createGateway, type Gateway } from "../../src/server.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase, importObject } from "../support/databases.js";

const until = async (check: () => Promise<boolean>, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
};

interface Setup {
  db: Database;
  gateway: Gateway;
  statements: string[];
  answers: AnswerCache;
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

async function setup(
  db: Database & { url?: string },
  ttlMs: number,
  auth?: ConstructorParameters<typeof KeyStore>[0],
  now?: () => Date,
): Promise<Setup> {
  await importObject(db, canaryExport());
  const statements: string[] = [];
  const prisma = createReadClient(db, { onQuery: (e) => statements.push(e.query) });
  const answers = new AnswerCache({ ttlMs });
  await answers.follow(db);
  const gateway = createGateway({
    db,
    prisma,
    answers,
    ...(now ? { now } : {}),
    auth: auth ? { keys: new KeyStore(auth), limits: new RateLimits({ defaults: { perMinute: 3, perDay: 100 } }) } : false,
  });
  return {
    db,
    gateway,
    statements,
    answers,
    async get(path, headers = {}) {
      const response = await gateway.fetch(`http://gateway.test${path}`, { headers });
      return { status: response.status, text: await response.text() };
    },
    async close() {
      await answers.close();
      await prisma.$disconnect();
      await db.close();
    },
  };
}

/** A response-cache counter's value now, from the process's registry. */
async function cacheCount(name: "lookups" | "clears", result?: "hit" | "miss"): Promise<number> {
  const metric = await registry.getSingleMetric(`gateway_response_cache_${name}_total`)!.get();
  return metric.values.filter((v) => result === undefined || v.labels.result === result).reduce((sum, v) => sum + v.value, 0);
}

const renamed = (name: string) => {
  const data = canaryExport();
  data.universities[0]!.name_zh = name;
  return data;
};

describe("the v1 answer cache", () => {
  let open: Setup[] = [];
  afterEach(async () => {
    await Promise.all(open.map((s) => s.close()));
    open = [];
  });
  const start = async (...args: Parameters<typeof setup>) => {
    const s = await setup(...args);
    open.push(s);
    return s;
  };

  it("answers a repeated call from memory, and an import empties it when it commits", async () => {
    const s = await start(await freshDatabase(), 60_000);
    const [hits, misses, clears] = [await cacheCount("lookups", "hit"), await cacheCount("lookups", "miss"), await cacheCount("clears")];
    const first = await s.get("/api/v1/universities");
    expect(first.status).toBe(200);
    expect(s.statements.length).toBeGreaterThan(0);
    s.statements.length = 0;
    expect(await s.get("/api/v1/universities")).toEqual(first);
    // A 404 is kept too; a different parameter is a different answer.
    expect((await s.get("/api/v1/courses/999999")).status).toBe(404);
    const afterMiss = s.statements.length;
    expect((await s.get("/api/v1/courses/999999")).status).toBe(404);
    expect(s.statements.length).toBe(afterMiss);
    expect(afterMiss).toBeGreaterThan(0);
    // Operators see it in /metrics: two hits, two misses so far.
    expect(await cacheCount("lookups", "hit")).toBe(hits + 2);
    expect(await cacheCount("lookups", "miss")).toBe(misses + 2);

    // The import comes from another connection (on a server, as another process's would).
    const writer = await openDatabase({ databaseUrl: s.db.url });
    try {
      await importObject(writer, renamed("改名大學"));
    } finally {
      await writer.close();
    }
    await until(async () => (await s.get("/api/v1/universities")).text.includes("改名大學"));
    expect(await cacheCount("clears")).toBeGreaterThan(clears);
  });

  it("keeps its answers when an import is refused (nothing committed, nothing announced)", async () => {
    const s = await start(await freshDatabase(), 60_000);
    const before = await s.get("/api/v1/universities");
    const bad = renamed("不該出現");
    bad.courses[0]!.university_id = 424242;
    await expect(importObject(s.db, bad)).rejects.toThrow(/no university with id 424242/);
    s.statements.length = 0;
    expect(await s.get("/api/v1/universities")).toEqual(before);
    expect(s.statements).toEqual([]);
  });

  it("listens again after the server drops its connection, and empties itself then", async () => {
    const s = await start(await freshDatabase(), 60_000);
    await s.get("/api/v1/universities");
    const admin = await openDatabase({ databaseUrl: s.db.url });
    try {
      const killed = await admin.query<{ n: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`,
      );
      expect(killed[0]!.n).toBe(1);
      // The return empties the cache (a notice may have been missed): the next call executes.
      await until(async () => {
        s.statements.length = 0;
        await s.get("/api/v1/universities");
        return s.statements.length > 0;
      });
      // And it hears the next import.
      await until(
        async () =>
          (
            await admin.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`,
            )
          )[0]!.n === 1,
      );
      await importObject(admin, renamed("又改名"));
    } finally {
      await admin.close();
    }
    await until(async () => (await s.get("/api/v1/universities")).text.includes("又改名"));
  });

  it("still checks the key and counts the request for a cached answer", async () => {
    const db = await freshDatabase();
    const s = await start(db, 60_000, db);
    const { key } = await new KeyStore(db).create({ name: "t" });
    const auth = { authorization: `Bearer ${key}` };
    // The three a minute and the refusal after them, in one clock minute.
    await awayFromMinuteBoundary();
    expect((await s.get("/api/v1/universities")).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await s.get("/api/v1/universities", auth)).status).toBe(200);
    expect((await s.get("/api/v1/universities", auth)).status).toBe(429);
  });

  it("keeps no answer begun before the data changed and finished after it, on REST and on GraphQL", async () => {
    const s = await start(await freshDatabase(), 60_000);
    const post = async (query: string) => {
      const response = await s.gateway.fetch("http://gateway.test/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query }),
      });
      return response.status;
    };
    const asks: [string, () => Promise<number>][] = [
      ["REST", async () => (await s.get("/api/v1/universities")).status],
      ["GraphQL", () => post("{ universities { nodes { nameZh } } }")],
    ];
    for (const [surface, ask] of asks) {
      // The change is heard while the answer is computed: as its first statement is recorded.
      let heard = false;
      s.statements.push = (...items: string[]) => {
        if (!heard) s.answers.clear();
        heard = true;
        return Array.prototype.push.apply(s.statements, items);
      };
      expect(await ask(), surface).toBe(200);
      Reflect.deleteProperty(s.statements, "push");
      expect(heard, surface).toBe(true);
      s.statements.length = 0;
      expect(await ask(), surface).toBe(200);
      expect(s.statements.length, `${surface}: computed again`).toBeGreaterThan(0);
      s.statements.length = 0;
      expect(await ask(), surface).toBe(200);
      expect(s.statements, `${surface}: kept the second time`).toEqual([]);
    }
  });

  it("keeps each answer as its bytes or its JSON text, which its size counts, never as parsed objects", async () => {
    // Parsed objects took several times their text, unseen by RESPONSE_CACHE_MAX_BYTES: 32 MiB of answers held ~100 MiB.
    // A v1 answer is kept as its bytes, its text decoded from them when asked for.
    const s = await start(await freshDatabase(), 60_000);
    const kept: { key: string; answer: Record<string, unknown> }[] = [];
    const set = s.answers.set.bind(s.answers);
    s.answers.set = (key, answer, validForMs, since) => {
      kept.push({ key, answer: answer as unknown as Record<string, unknown> });
      set(key, answer, validForMs, since);
    };
    const rest = await s.get("/api/v1/courses?page_size=3");
    const graphql = await s.gateway.fetch("http://gateway.test/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ universities(first: 2) { nodes { nameZh } } }" }),
    });
    const graphqlText = await graphql.text();
    expect(kept.map((k) => k.key.split(" ")[0])).toEqual(["/api/v1/courses", "graphql"]);
    for (const { answer } of kept) {
      expect(Object.keys(answer)).not.toContain("body");
      expect(typeof answer.text).toBe("string");
    }
    expect(kept[0]!.answer.text).toBe(rest.text);
    expect(JSON.parse(kept[1]!.answer.text as string)).toEqual(JSON.parse(graphqlText));
    // Served again from what was kept: the same answers.
    expect(await s.get("/api/v1/courses?page_size=3")).toEqual(rest);
    const again = await s.gateway.fetch("http://gateway.test/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ universities(first: 2) { nodes { nameZh } } }" }),
    });
    expect(JSON.parse(await again.text())).toEqual(JSON.parse(graphqlText));
    expect(kept).toHaveLength(2);
  });

  it("answers a repeated GraphQL query from memory, never one with errors, and forgets on import", async () => {
    const s = await start(await freshDatabase(), 60_000);
    const post = async (query: string, variables?: Record<string, unknown>) => {
      const response = await s.gateway.fetch("http://gateway.test/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as { data?: any; errors?: unknown[] };
    };
    const query = "query ($first: Int) { universities(first: $first) { nodes { nameZh courses(first: 2) { nodes { databaseId } } } } }";
    const first = await post(query, { first: 5 });
    expect(first.errors).toBeUndefined();
    s.statements.length = 0;
    expect(await post(query, { first: 5 })).toEqual(first);
    expect(s.statements).toEqual([]);
    // Other variables are another answer.
    await post(query, { first: 1 });
    expect(s.statements.length).toBeGreaterThan(0);
    // A result with errors executes every time.
    const bad = `{ universities { totalCount } schoolEnvironmentHistory(ref: "NTU", days: 0) { days } }`;
    expect((await post(bad)).errors).toBeDefined();
    s.statements.length = 0;
    expect((await post(bad)).errors).toBeDefined();
    expect(s.statements.length).toBeGreaterThan(0);
    await importObject(s.db, renamed("圖改名"));
    await until(async () => JSON.stringify(await post(query, { first: 5 })).includes("圖改名"));
  });

  it("keeps an answer that does not depend on the clock until the data changes, an environment answer until the clock moves it", async () => {
    // The canary's only air reading (AQI 48, 2026-11-19T16:00Z) leaves the 3-hour window 3 s after `started`:
    // room for the checks within it on a loaded machine.
    const leaves = Date.parse("2026-11-19T19:00:00.001Z");
    let started = Date.now();
    const now = () => new Date(leaves - 3_000 + (Date.now() - started));
    const s = await start(await freshDatabase(), 60_000, undefined, now);
    const post = async (query: string) => {
      const response = await s.gateway.fetch("http://gateway.test/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query }),
      });
      return response.text();
    };
    const timeless = ["/api/v1/universities", "/api/v1/courses?page_size=3", "/api/v1/course_stats", "/api/v1/hub/packs"];
    // The snapshot and every environment field depend on the clock; the lists of schools and Packs do not.
    const graphTimeless = "{ universities(first: 2) { nodes { code } } }";
    const graphClocked = `{ university(ref: "NTU") { environment { realtime { aqi } } } }`;
    const school = "/api/v1/environment/schools/NTU";
    for (const path of timeless) expect((await s.get(path)).status, path).toBe(200);
    await post(graphTimeless);
    started = Date.now();
    const before = await s.get(school);
    expect(JSON.parse(before.text).data.realtime.aqi).toBe(48);
    expect(await post(graphClocked)).toContain('"aqi":48');
    // Within the reading's window, the environment answers come from memory too.
    s.statements.length = 0;
    expect(await s.get(school)).toEqual(before);
    expect(await post(graphClocked)).toContain('"aqi":48');
    expect(s.statements).toEqual([]);

    await new Promise((r) => setTimeout(r, Math.max(0, started + 3_100 - Date.now())));
    for (const path of timeless) {
      s.statements.length = 0;
      expect((await s.get(path)).status).toBe(200);
      expect({ path, statements: s.statements }).toEqual({ path, statements: [] });
    }
    await post(graphTimeless);
    expect(s.statements).toEqual([]);
    // The reading has left the window: both are computed again, without it.
    const after = await s.get(school);
    expect(s.statements.length).toBeGreaterThan(0);
    expect(JSON.parse(after.text).data.realtime.aqi).toBeNull();
    s.statements.length = 0;
    expect(await post(graphClocked)).toContain('"aqi":null');
    expect(s.statements.length).toBeGreaterThan(0);
  });

  it("with a TTL of 0 executes every call", async () => {
    const s = await start(await freshDatabase(), 0);
    await s.get("/api/v1/universities");
    s.statements.length = 0;
    await s.get("/api/v1/universities");
    expect(s.statements.length).toBeGreaterThan(0);
  });
});
