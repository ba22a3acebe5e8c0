/**
 * The cached path (rest/cached-path.ts), over a real socket: a kept v1 answer
 * goes out without yoga, and the client cannot tell. For each request the
 * first answer comes through the gateway (the cache was emptied), the second
 * by the cached path, and the two carry the same status, body, encoding and
 * headers (but the request id, the date and the limits' counts), the same
 * refusals, the same access log line and metrics. What the cached path must
 * not take (another method, a refused parameter, a target that is not
 * origin-form, an answer not kept) goes to the gateway.
 */
import { type IncomingHttpHeaders, request as httpRequest, type Server } from "node:http";
import { connect } from "node:net";
import { Writable } from "node:stream";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnswerCache } from "../../src/cache/answers.js";
import { createReadClient, type ReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { createHttpServer } from "../../src/http.js";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { registry } from "../../src/observe/metrics.js";
import { createGateway, type Gateway } from "../../src/server.js";
import { canaryExport } from "../support/canary.js";
import { awayFromMinuteBoundary } from "../support/clock.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { parseResponse } from "../support/socket.js";

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body, decoded from its content encoding. */
  body: string;
}

interface Served {
  gateway: Gateway;
  answers: AnswerCache;
  port: number;
  /** Requests the cached path took. */
  taken: number;
  lines: Record<string, unknown>[];
  get(path: string, headers?: Record<string, string>, method?: string): Promise<Reply>;
}

const decode = (bytes: Buffer, encoding: string | undefined): string =>
  (encoding === "br"
    ? brotliDecompressSync(bytes)
    : encoding === "gzip"
      ? gunzipSync(bytes)
      : encoding === "deflate"
        ? inflateSync(bytes)
        : bytes
  ).toString("utf8");

let db: Database & { url: string };
let prisma: ReadClient;
let key: string;
const servers: Server[] = [];
const caches: AnswerCache[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  await importObject(db, canaryExport());
  prisma = createReadClient(db);
  key = (await new KeyStore(db).create({ name: "cached path", perMinute: 1_000 })).key;
});

afterAll(async () => {
  for (const server of servers) server.close();
  for (const cache of caches) await cache.close();
  await prisma.$disconnect();
  await db.close();
});

async function serve(options: { corsOrigins?: string[]; perMinute?: number } = {}): Promise<Served> {
  const answers = new AnswerCache({ ttlMs: 60_000 });
  caches.push(answers);
  const lines: Record<string, unknown>[] = [];
  const log = pino(
    { level: "info" },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    }),
  );
  const keys = new KeyStore(db);
  const gateway = createGateway({
    db,
    prisma,
    answers,
    log,
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    auth: { keys, limits: new RateLimits({ defaults: { perMinute: options.perMinute ?? 1_000, perDay: 100_000 } }) },
  });
  const served: Served = {
    gateway,
    answers,
    port: 0,
    taken: 0,
    lines,
    get(path, headers = {}, method = "GET") {
      return new Promise((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port: served.port, path, method, headers, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({
              status: res.statusCode!,
              headers: res.headers,
              body: decode(Buffer.concat(chunks), res.headers["content-encoding"]),
            }),
          );
          res.on("error", reject);
        });
        req.on("error", reject);
        req.end();
      });
    },
  };
  const server = createHttpServer(gateway, {
    first: (request, response) => {
      const took = gateway.cached!(request, response);
      if (took) served.taken++;
      return took;
    },
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  served.port = (server.address() as { port: number }).port;
  return served;
}

/** Headers that differ between any two answers: the request id, the date, the limits' counts, and how the length is sent. */
const VARYING = new Set([
  "x-request-id",
  "date",
  "ratelimit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "connection",
]);
const stable = (headers: IncomingHttpHeaders) => Object.fromEntries(Object.entries(headers).filter(([name]) => !VARYING.has(name)));

/** The same request through the gateway (cache emptied first) and then by the cached path. */
async function both(s: Served, path: string, headers: Record<string, string> = {}): Promise<[Reply, Reply]> {
  s.answers.clear();
  const taken = s.taken;
  const slow = await s.get(path, headers);
  expect(s.taken, `${path} the first time`).toBe(taken);
  const fast = await s.get(path, headers);
  expect(s.taken, `${path} the second time`).toBe(taken + 1);
  return [slow, fast];
}

describe("the cached path", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve();
  });
  const auth = () => ({ authorization: `Bearer ${key}` });

  const ENCODINGS = [
    "",
    "gzip",
    "br",
    "deflate",
    "gzip, deflate, br",
    "br;q=0, gzip",
    "gzip;q=0.5, deflate",
    "identity",
    "*",
    "br;q=0.1, *;q=0",
  ];
  it.each(ENCODINGS)("gives the gateway's answer, in the encoding it chooses, to Accept-Encoding %j", async (acceptEncoding) => {
    const headers = { ...auth(), ...(acceptEncoding ? { "accept-encoding": acceptEncoding } : {}) };
    for (const path of ["/api/v1/universities", "/api/v1/courses?limit=1", "/api/v1/courses/999999"]) {
      const [slow, fast] = await both(s, path, headers);
      expect(fast.status).toBe(slow.status);
      expect(fast.body).toBe(slow.body);
      expect(stable(fast.headers)).toEqual(stable(slow.headers));
      expect(fast.headers["x-ratelimit-limit"]).toBe(slow.headers["x-ratelimit-limit"]);
      expect(Number(fast.headers["x-ratelimit-remaining"])).toBe(Number(slow.headers["x-ratelimit-remaining"]) - 1);
      if (!fast.headers["content-encoding"]) expect(fast.headers["content-length"]).toBe(String(Buffer.byteLength(fast.body)));
    }
  });

  it("answers 304 to a matching If-None-Match, with the ETag kept with the answer, and echoes a sane request id", async () => {
    const first = await s.get("/api/v1/universities", auth());
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^W\/"/);
    const [slow, fast] = await both(s, "/api/v1/universities", { ...auth(), "if-none-match": etag, "x-request-id": "trace-1" });
    expect([slow.status, fast.status]).toEqual([304, 304]);
    expect(fast.body).toBe("");
    expect(stable(fast.headers)).toEqual(stable(slow.headers));
    expect(fast.headers["x-request-id"]).toBe("trace-1");
    const [, other] = await both(s, "/api/v1/universities", { ...auth(), "if-none-match": 'W/"other"' });
    expect(other.status).toBe(200);
  });

  it("refuses a missing, malformed or unknown key as the gateway does, for a kept answer", async () => {
    await s.get("/api/v1/universities", auth());
    const refused: Record<string, string>[] = [
      {},
      { authorization: "Basic x" },
      { authorization: "Bearer uedu_not_a_key_at_all_000000000000000000" },
    ];
    for (const headers of refused) {
      const taken = s.taken;
      const fast = await s.get("/api/v1/universities", headers);
      expect(s.taken).toBe(taken + 1);
      s.answers.clear();
      const slow = await s.get("/api/v1/universities", headers);
      expect(s.taken).toBe(taken + 1);
      expect(fast.status).toBe(401);
      expect(fast.body).toBe(slow.body);
      expect(stable(fast.headers)).toEqual(stable(slow.headers));
      await s.get("/api/v1/universities", auth());
    }
  });

  it("counts a kept answer against the key's limits, and refuses past them with the gateway's 429", async () => {
    const limited = await serve({ perMinute: 3 });
    const { key: own } = await new KeyStore(db).create({ name: "three a minute" });
    const headers = { authorization: `Bearer ${own}` };
    // The three a minute and the refusals after them, in one clock minute.
    await awayFromMinuteBoundary();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await limited.get("/api/v1/universities", headers)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(limited.taken).toBe(3);
    const refused = await limited.get("/api/v1/universities", headers);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({
      success: false,
      error: expect.stringMatching(/^rate limit exceeded: 3 requests per minute/),
    });
    expect(refused.headers["retry-after"]).toMatch(/^\d+$/);
    expect(refused.headers["x-ratelimit-remaining"]).toBe("0");
  });

  it("adds the CORS headers of the configured origins, and Vary: Origin", async () => {
    const listed = await serve({ corsOrigins: ["https://app.example"] });
    for (const origin of ["https://app.example", "https://other.example"]) {
      const [slow, fast] = await both(listed, "/api/v1/universities", { ...auth(), origin, "accept-encoding": "gzip" });
      expect(stable(fast.headers)).toEqual(stable(slow.headers));
      expect(fast.headers.vary).toBe("Origin, Accept-Encoding");
    }
    const [, open] = await both(s, "/api/v1/universities", { ...auth(), origin: "https://any.example" });
    expect(open.headers["access-control-allow-origin"]).toBe("*");
    expect(open.headers["access-control-expose-headers"]).toContain("X-Request-Id");
  });

  it("writes the gateway's access log line and counts the request in the metrics", async () => {
    const requests = async () => {
      const metric = await registry.getSingleMetric("gateway_http_requests_total")!.get();
      return metric.values.find((v) => v.labels.route === "/api/v1/universities" && String(v.labels.status) === "200")?.value ?? 0;
    };
    s.lines.length = 0;
    const before = await requests();
    await both(s, "/api/v1/universities?x=1", auth());
    expect((await requests()) - before).toBe(2);
    const [slow, fast] = s.lines.filter((line) => line.msg === "request");
    const comparable = (line: Record<string, unknown> | undefined) => ({ ...line, requestId: undefined, ms: undefined, time: undefined });
    expect(comparable(fast)).toEqual(comparable(slow));
    expect(fast).toMatchObject({
      route: "/api/v1/universities",
      path: "/api/v1/universities",
      status: 200,
      surface: "rest",
      bytes: expect.any(Number),
    });
    expect(fast!.keyId).toEqual(expect.any(Number));
  });

  it("counts a lookup that misses once, and one that hits once", async () => {
    const count = async (result: "hit" | "miss") => {
      const metric = await registry.getSingleMetric("gateway_response_cache_lookups_total")!.get();
      return metric.values.find((v) => v.labels.result === result)?.value ?? 0;
    };
    s.answers.clear();
    const [hits, misses] = [await count("hit"), await count("miss")];
    await s.get("/api/v1/universities", auth());
    expect([(await count("hit")) - hits, (await count("miss")) - misses]).toEqual([0, 1]);
    await s.get("/api/v1/universities", auth());
    expect([(await count("hit")) - hits, (await count("miss")) - misses]).toEqual([1, 1]);
  });

  it("leaves to the gateway what it must not take: other methods, refused parameters, odd targets, answers not kept", async () => {
    await s.get("/api/v1/universities", auth());
    await s.get("/api/v1/courses?limit=1", auth());
    const taken = s.taken;
    expect((await s.get("/api/v1/universities", auth(), "HEAD")).status).toBe(200);
    expect((await s.get("/api/v1/universities", auth(), "POST")).status).toBe(405);
    expect((await s.get("/api/v1/courses?page=0", auth())).status).toBe(400);
    expect((await s.get("/api/v1/courses?page=0", auth())).status).toBe(400);
    expect((await s.get("/api/v1/universities/", auth())).status).toBe(404);
    expect(s.taken).toBe(taken);
    // An absolute-form target is read as its path before the cached path sees it (src/request-target.ts): it takes it.
    const absolute = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port: s.port }, () =>
        socket.end(
          `GET http://127.0.0.1:${s.port}/api/v1/universities HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
        ),
      );
      const chunks: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => chunks.push(chunk));
      socket.on("end", () => resolve(Buffer.concat(chunks).toString("latin1")));
      socket.on("error", reject);
    });
    const answer = parseResponse(Buffer.from(absolute, "latin1"));
    expect(answer.status).toBe(200);
    expect(answer.body).toBe((await s.get("/api/v1/universities", auth())).body);
    expect(s.taken).toBe(taken + 2);
  });
});
