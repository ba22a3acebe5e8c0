/**
 * The lean path (src/lean/path.ts), over a real socket: a kept answer (v1,
 * GraphQL by GET and POST, an MCP tool call in either era) goes out without
 * yoga, and the client cannot tell. For each request the first answer comes
 * through the gateway (the cache was emptied), the second by the lean path,
 * and the two carry the same status, body, encoding and headers (but the
 * request id, the date and the limits' counts), the same refusals, the same
 * access log line and metrics. What the lean path must not take (another
 * method, a refused parameter, a target that is not origin-form, a body it
 * cannot name, an answer not kept) goes to the gateway.
 */
import { type IncomingHttpHeaders, request as httpRequest, type Server } from "node:http";
import { connect } from "node:net";
import { Writable } from "node:stream";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { AnswerCache } from "../../src/cache/answers.js";
import { createReadClient, type ReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { createHttpServer } from "../../src/http.js";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { registry } from "../../src/observe/metrics.js";
import { createGateway, type Gateway } from "../../src/server.js";
import { canaryExport } from "../support/canary.js";
import { MID_MINUTE } from "../support/clock.js";
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
  /** Requests the lean path answered (offered to it, and never handed on to the gateway). */
  readonly taken: number;
  /** While set, the lean path is not offered the requests: the gateway answers them all. */
  bypass: boolean;
  /** How the last request handed on to the gateway carried a body read before it: parsed, as bytes, or none. */
  readonly handedBody: "parsed" | "bytes" | "none";
  lines: Record<string, unknown>[];
  get(path: string, headers?: Record<string, string>, method?: string): Promise<Reply>;
  post(path: string, body: string | Buffer, headers?: Record<string, string>): Promise<Reply>;
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
  key = (await new KeyStore(db).create({ name: "lean path", perMinute: 10_000 })).key;
});

afterAll(async () => {
  for (const server of servers) server.close();
  for (const cache of caches) await cache.close();
  await prisma.$disconnect();
  await db.close();
});

async function serve(options: { corsOrigins?: string[]; perMinute?: number; ttlMs?: number; maxCost?: number } = {}): Promise<Served> {
  const answers = new AnswerCache({ ttlMs: options.ttlMs ?? 60_000 });
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
    ...(options.maxCost ? { queryLimits: { maxCost: options.maxCost } } : {}),
    auth: { keys, limits: new RateLimits({ defaults: { perMinute: options.perMinute ?? 1_000, perDay: 100_000 }, now: () => MID_MINUTE }) },
  });
  let offered = 0;
  let handed = 0;
  let handedBody: Served["handedBody"] = "none";
  const send = (method: string, path: string, headers: Record<string, string>, body?: string | Buffer) =>
    new Promise<Reply>((resolve, reject) => {
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
      req.end(body);
    });
  const served: Served = {
    gateway,
    answers,
    port: 0,
    get taken() {
      return offered - handed;
    },
    bypass: false,
    get handedBody() {
      return handedBody;
    },
    lines,
    get: (path, headers = {}, method = "GET") => send(method, path, headers),
    post: (path, body, headers = {}) => send("POST", path, { "content-type": "application/json", ...headers }, body),
  };
  const server = createHttpServer(
    (request, response) => {
      handed++;
      const body = (request as { body?: unknown }).body;
      handedBody = body === undefined ? "none" : Buffer.isBuffer(body) ? "bytes" : "parsed";
      gateway(request, response);
    },
    {
      first: (request, response, next) => {
        offered++;
        return !served.bypass && gateway.lean(request, response, next);
      },
    },
  );
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

/** A request, through the gateway alone (the lean path not offered it). */
async function throughGateway(s: Served, ask: () => Promise<Reply>): Promise<Reply> {
  const taken = s.taken;
  s.bypass = true;
  try {
    return await ask();
  } finally {
    s.bypass = false;
    expect(s.taken).toBe(taken);
  }
}

/**
 * The same request through the gateway (cache emptied first) and then by the
 * lean path; a POST when it has a body. A v1 GET is kept by the gateway's
 * answer, so it goes to the gateway alone; a GraphQL or MCP answer is kept
 * only when the lean path named its request, which it then hands on.
 */
async function both(s: Served, path: string, headers: Record<string, string> = {}, body?: string): Promise<[Reply, Reply]> {
  s.answers.clear();
  const ask = () => (body === undefined ? s.get(path, headers) : s.post(path, body, headers));
  const taken = s.taken;
  // A POST /graphql of a document the gateway has answered runs on the lean path: the gateway's own answer is asked
  // for alone, then the lean path's, which it keeps.
  const post = path === "/graphql" && body !== undefined;
  const slow = path.startsWith("/api/v1/") || post ? await throughGateway(s, ask) : await ask();
  expect(s.taken, `${path} the first time`).toBe(taken);
  if (post) {
    s.answers.clear();
    await ask();
  }
  const before = s.taken;
  const fast = await ask();
  expect(s.taken, `${path} the second time`).toBe(before + 1);
  return [slow, fast];
}

/** A v1 GET run by the lean path, its answer not kept (the cache emptied first). */
async function runOnLeanPath(s: Served, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  s.answers.clear();
  const taken = s.taken;
  const reply = await s.get(path, headers);
  expect(s.taken, `${path} run on the lean path`).toBe(taken + 1);
  return reply;
}

/** What two answers to the same request share: status, body and headers but the varying ones. */
function expectSameAnswer(fast: Reply, slow: Reply): void {
  expect(fast.status).toBe(slow.status);
  expect(fast.body).toBe(slow.body);
  expect(stable(fast.headers)).toEqual(stable(slow.headers));
}

describe("the lean path, for v1 answers", () => {
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
      const ran = await runOnLeanPath(s, path, headers);
      for (const [lean, remaining] of [
        [fast, 1],
        [ran, 2],
      ] as const) {
        expectSameAnswer(lean, slow);
        expect(lean.headers["x-ratelimit-limit"]).toBe(slow.headers["x-ratelimit-limit"]);
        expect(Number(lean.headers["x-ratelimit-remaining"])).toBe(Number(slow.headers["x-ratelimit-remaining"]) - remaining);
        if (!lean.headers["content-encoding"]) expect(lean.headers["content-length"]).toBe(String(Buffer.byteLength(lean.body)));
      }
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
      const ran = await runOnLeanPath(s, "/api/v1/universities", headers);
      const slow = await throughGateway(s, () => s.get("/api/v1/universities", headers));
      expect(fast.status).toBe(401);
      expectSameAnswer(fast, slow);
      expectSameAnswer(ran, slow);
      await s.get("/api/v1/universities", auth());
    }
  });

  it("counts a kept answer against the key's limits, and refuses past them with the gateway's 429", async () => {
    const limited = await serve({ perMinute: 3 });
    const { key: own } = await new KeyStore(db).create({ name: "three a minute" });
    const headers = { authorization: `Bearer ${own}` };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await limited.get("/api/v1/universities", headers)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // The first run on the lean path, the next two kept, the fourth refused.
    expect(limited.taken).toBe(4);
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

  it("runs what is not kept as the gateway does: refused parameters (after the key), missing resources", async () => {
    const cases: [string, Record<string, string>, number][] = [
      ["/api/v1/courses?page=0", auth(), 400],
      ["/api/v1/courses?page=0", {}, 401],
      ["/api/v1/courses?page_size=101&q=%00", auth(), 400],
      ["/api/v1/courses/999999", auth(), 404],
      ["/api/v1/courses/abc", auth(), 404],
      ["/api/v1/environment/schools/%E0%A4%A", auth(), 404],
      ["/api/v1/course_stats?group_by=nothing", auth(), 400],
      ["/api/v1/courses?university=ntu&semester=112-1", auth(), 200],
    ];
    for (const [path, headers, status] of cases) {
      const slow = await throughGateway(s, () => s.get(path, headers));
      const ran = await runOnLeanPath(s, path, headers);
      expect(ran.status, path).toBe(status);
      expectSameAnswer(ran, slow);
    }
  });

  it("runs the operation of an answer not kept when the answer cache is off, as the gateway does", async () => {
    const off = await serve({ ttlMs: 0 });
    expect(off.answers.enabled).toBe(false);
    for (const path of ["/api/v1/universities", "/api/v1/courses?limit=2", "/api/v1/courses?page=0", "/api/v1/courses/999999"]) {
      const slow = await throughGateway(off, () => off.get(path, auth()));
      const taken = off.taken;
      const ran = await off.get(path, { ...auth(), "accept-encoding": "gzip" });
      expect(off.taken).toBe(taken + 1);
      expect(ran.status).toBe(slow.status);
      expect(ran.body).toBe(slow.body);
      const etag = ran.headers.etag;
      if (ran.status === 200) {
        expect(etag).toBe(slow.headers.etag);
        expect((await off.get(path, { ...auth(), "if-none-match": etag! })).status).toBe(304);
      }
    }
  });

  it("leaves to the gateway what it must not take: other methods, odd paths", async () => {
    await s.get("/api/v1/universities", auth());
    const taken = s.taken;
    expect((await s.get("/api/v1/universities", auth(), "HEAD")).status).toBe(200);
    expect((await s.get("/api/v1/universities", auth(), "POST")).status).toBe(405);
    expect((await s.get("/api/v1/universities/", auth())).status).toBe(404);
    expect((await s.get("/api/v1/nothing", auth())).status).toBe(404);
    expect(s.taken).toBe(taken);
    // An absolute-form target is read as its path before the lean path sees it (src/request-target.ts): it takes it.
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

describe("the lean path, for a GraphQL POST with the answer cache off", () => {
  const auth = () => ({ authorization: `Bearer ${key}` });
  it("reads the body and hands it on, parsed when it is a JSON object; the gateway answers it as it answers it unread", async () => {
    const off = await serve({ ttlMs: 0 });
    const bodies: [string, string | Buffer, Record<string, string>, "parsed" | "bytes"][] = [
      ["a query", JSON.stringify({ query: "{ universities(first: 2) { nodes { code } } }" }), {}, "parsed"],
      ["variables", JSON.stringify({ query: "query ($n: Int) { courses(first: $n) { totalCount } }", variables: { n: 1 } }), {}, "parsed"],
      ["variables not an object", JSON.stringify({ query: "{ __typename }", variables: 3 }), {}, "parsed"],
      ["no query", JSON.stringify({ variables: {} }), {}, "parsed"],
      ["an empty object", "{}", {}, "bytes"],
      ["null", "null", {}, "bytes"],
      ["an array", JSON.stringify([{ query: "{ __typename }" }]), {}, "bytes"],
      ["a number", "42", {}, "bytes"],
      ["not JSON", "{ universities { nodes { code } } }", {}, "bytes"],
      ["a byte-order mark", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"query":"{ __typename }"}')]), {}, "bytes"],
      ["invalid UTF-8 (replaced, as the gateway decodes it)", Buffer.from([0x7b, 0x22, 0x71, 0xff, 0x22, 0x3a, 0x31, 0x7d]), {}, "parsed"],
      ["text/plain", JSON.stringify({ query: "{ __typename }" }), { "content-type": "text/plain" }, "bytes"],
      ["GraphQL's own type", JSON.stringify({ query: "{ __typename }" }), { "content-type": "application/graphql+json" }, "bytes"],
      ["no key", JSON.stringify({ query: "{ __typename }" }), { authorization: "" }, "parsed"],
    ];
    for (const [what, body, headers, handed] of bodies) {
      const all = { ...auth(), ...headers };
      const slow = await throughGateway(off, () => off.post("/graphql", body, all));
      const taken = off.taken;
      const fast = await off.post("/graphql", body, all);
      // Handed on, never answered by the lean path itself.
      expect(off.taken, what).toBe(taken);
      expect(off.handedBody, what).toBe(handed);
      expect(fast.status, what).toBe(slow.status);
      expect(fast.body, what).toBe(slow.body);
      expect(stable(fast.headers), what).toEqual(stable(slow.headers));
    }
  });
});

describe("the lean path, for a GraphQL POST of a document the gateway has answered", () => {
  const auth = () => ({ authorization: `Bearer ${key}` });
  const DOCUMENT =
    "query ($n: Int, $q: String) { courses(first: $n, q: $q) { totalCount nodes { databaseId courseNameChinese semester startDate } } }";
  const post = (variables: Record<string, unknown>, more: Record<string, unknown> = {}) =>
    JSON.stringify({ query: DOCUMENT, variables, ...more });
  const remaining = (reply: Reply) => Number(reply.headers["x-ratelimit-remaining"]);

  /** The first request of the document, which the gateway answers and the lean path then plans. */
  async function planned(s: Served, headers: Record<string, string> = {}): Promise<void> {
    const taken = s.taken;
    const first = await s.post("/graphql", post({ n: 1 }), { ...auth(), ...headers });
    expect(first.status).toBe(200);
    expect(s.taken).toBe(taken);
  }

  it("runs it again with other variables, answered and logged as the gateway answers and logs it, the key counted once", async () => {
    const s = await serve({ ttlMs: 0 });
    for (const accept of ["", "application/graphql-response+json", "application/json"]) {
      const headers = { ...auth(), ...(accept ? { accept } : {}) };
      await planned(s, headers);
      for (const variables of [{ n: 2 }, { n: 5, q: "程式" }, { q: "learning" }, {}]) {
        s.lines.length = 0;
        const slow = await throughGateway(s, () => s.post("/graphql", post(variables), headers));
        const taken = s.taken;
        const fast = await s.post("/graphql", post(variables), { ...headers, "accept-encoding": "gzip" });
        expect(s.taken, JSON.stringify(variables)).toBe(taken + 1);
        expect(fast.status).toBe(200);
        expect(fast.body).toBe(slow.body);
        expect(JSON.parse(fast.body)).toHaveProperty("data.courses.totalCount");
        // Asked with gzip accepted: compressed from 1 KB on, as the gateway would.
        const { "content-encoding": encoding, ...rest } = stable(fast.headers);
        expect(rest).toEqual(stable(slow.headers));
        expect(encoding).toBe(Buffer.byteLength(fast.body) >= 1024 ? "gzip" : undefined);
        expect(remaining(fast)).toBe(remaining(slow) - 1);
        const [slowLine, fastLine] = s.lines.filter((line) => line.msg === "request");
        const comparable = (line: Record<string, unknown> | undefined) => ({
          ...line,
          requestId: undefined,
          ms: undefined,
          time: undefined,
          bytes: undefined,
        });
        expect(comparable(fastLine)).toEqual(comparable(slowLine));
      }
    }
  });

  it("hands a request its checks refuse on to the gateway, whose refusal it gets, the key counted once", async () => {
    // A cost limit that a page of one course fits (53) and one of twenty does not.
    const s = await serve({ ttlMs: 0, maxCost: 60 });
    await planned(s);
    const refused: [string, Record<string, unknown>, string][] = [
      ["a variable with a control character", { n: 1, q: "a\u0000b" }, "BAD_USER_INPUT"],
      ["a variable of the wrong type", { n: "many" }, "BAD_USER_INPUT"],
      ["a cost above the limit", { n: 20 }, "QUERY_TOO_COSTLY"],
    ];
    for (const [what, variables, code] of refused) {
      const slow = await throughGateway(s, () => s.post("/graphql", post(variables), auth()));
      const taken = s.taken;
      const fast = await s.post("/graphql", post(variables), auth());
      expect(s.taken, what).toBe(taken);
      expect(s.handedBody, what).toBe("parsed");
      expect(fast.status, what).toBe(slow.status);
      expect(fast.body, what).toBe(slow.body);
      expect(stable(fast.headers), what).toEqual(stable(slow.headers));
      expect(fast.body, what).toContain(code);
      expect(remaining(fast), what).toBe(remaining(slow) - 1);
    }
    // A refused key is refused on the lean path, in GraphQL's shape.
    const slow = await throughGateway(s, () => s.post("/graphql", post({ n: 1 }), {}));
    const taken = s.taken;
    const fast = await s.post("/graphql", post({ n: 1 }), {});
    expect(s.taken).toBe(taken + 1);
    expect(fast.status).toBe(401);
    expect(fast.body).toBe(slow.body);
  });

  it("plans nothing but a document's text, variables and operation name, and a document per media type and operation", async () => {
    const s = await serve({ ttlMs: 0 });
    await planned(s);
    const handed: [string, string, Record<string, string>][] = [
      ["extensions", post({ n: 2 }, { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(DOCUMENT) } } }), {}],
      ["another member", post({ n: 2 }, { id: "x" }), {}],
      ["another Accept", post({ n: 2 }), { accept: "application/graphql-response+json" }],
      ["another operation name", post({ n: 2 }, { operationName: "Other" }), {}],
    ];
    for (const [what, body, headers] of handed) {
      const taken = s.taken;
      const reply = await s.post("/graphql", body, { ...auth(), ...headers });
      expect(s.taken, what).toBe(taken);
      expect(reply.status, what).not.toBe(500);
    }
  });

  it("keeps its answer when answers are kept, and serves the next request of it from memory", async () => {
    const s = await serve();
    await planned(s);
    const taken = s.taken;
    const ran = await s.post("/graphql", post({ n: 3 }), auth());
    const kept = await s.post("/graphql", post({ n: 3 }), auth());
    expect(s.taken).toBe(taken + 2);
    expect(kept.body).toBe(ran.body);
    expect(s.answers.bytes(`graphql POST  application/json ${post({ n: 3 })}`)).toBeDefined();
  });

  it("runs a document whose every field has a SQL form as one statement, with the gateway's answer, and the rest compiled", async () => {
    const s = await serve({ ttlMs: 0 });
    const schools =
      "query ($n: Int, $r: String, $a: String) { universities(first: $n, region: $r, after: $a) { totalCount edges { cursor node { id code latitude } } pageInfo { hasNextPage endCursor } } }";
    const body = (variables: Record<string, unknown>) => JSON.stringify({ query: schools, variables });
    const executions = async () => {
      const metric = await registry.getSingleMetric("gateway_graphql_executions_total")!.get();
      const of = (executor: string) => metric.values.find((v) => v.labels.executor === executor)?.value ?? 0;
      return { sql: of("sql"), compiled: of("compiled") };
    };
    await s.post("/graphql", body({ n: 1 }), auth());
    // A page from the start or after a school of the list is the statement's; after a school another list holds, the compiled operation's.
    for (const [variables, by] of [
      [{ n: 2 }, "sql"],
      [{ n: 1, r: "Seattle" }, "sql"],
      [{}, "sql"],
      [{ n: 1, a: "R1BDOk46MQ==" }, "sql"],
      [{ n: 1, r: "Seattle", a: "R1BDOk46MQ==" }, "compiled"],
    ] as const) {
      const slow = await throughGateway(s, () => s.post("/graphql", body(variables), auth()));
      const before = await executions();
      const taken = s.taken;
      const fast = await s.post("/graphql", body(variables), auth());
      const after = await executions();
      expect(s.taken, JSON.stringify(variables)).toBe(taken + 1);
      expect(fast.body, JSON.stringify(variables)).toBe(slow.body);
      expect(after[by] - before[by], JSON.stringify(variables)).toBe(1);
      expect(after.sql + after.compiled - before.sql - before.compiled).toBe(1);
    }
  });
});

const NESTED = "{ universities { nodes { code nameZh courses(first: 3) { nodes { databaseId courseNameChinese semester } } } } }";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const byHash = (document: string) =>
  `/graphql?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: sha256(document) } }))}`;

describe("the lean path, for GraphQL", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve();
    // The document registered by hash (automatic persisted queries), as a client does once.
    const registered = await s.post(
      "/graphql",
      JSON.stringify({ query: NESTED, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(NESTED) } } }),
      auth(),
    );
    expect(registered.status).toBe(200);
  });
  const auth = () => ({ authorization: `Bearer ${key}` });
  const requests: [string, string, string | undefined][] = [
    ["GET by text", `/graphql?query=${encodeURIComponent(NESTED)}`, undefined],
    ["GET by persisted hash", byHash(NESTED), undefined],
    [
      "GET with variables",
      `/graphql?query=${encodeURIComponent("query ($n: Int) { courses(first: $n) { totalCount nodes { databaseId } } }")}&variables=${encodeURIComponent('{"n":2}')}`,
      undefined,
    ],
    ["POST", "/graphql", JSON.stringify({ query: NESTED })],
    ["POST by persisted hash", "/graphql", JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(NESTED) } } })],
  ];
  const cases = requests.flatMap(([name, path, body]) =>
    ["", "gzip", "br"].flatMap((encoding) =>
      ["", "application/graphql-response+json", "application/json"].map((accept) => ({ name, path, body, encoding, accept })),
    ),
  );
  it.each(cases)("$name, Accept-Encoding $encoding, Accept $accept: the gateway's answer, its ETag (a GET's) and headers", async (c) => {
    const headers = { ...auth(), ...(c.encoding ? { "accept-encoding": c.encoding } : {}), ...(c.accept ? { accept: c.accept } : {}) };
    const [slow, fast] = await both(s, c.path, headers, c.body);
    expect(slow.status).toBe(200);
    expect(JSON.parse(slow.body)).toHaveProperty("data");
    expect(fast.status).toBe(slow.status);
    expect(fast.body).toBe(slow.body);
    expect(stable(fast.headers)).toEqual(stable(slow.headers));
    expect(fast.headers["content-encoding"]).toBe(slow.headers["content-encoding"]);
    if (c.body === undefined) expect(fast.headers.etag).toMatch(/^W\//);
    else expect(fast.headers.etag).toBeUndefined();
    // A POST's answer was made once more between the two (both(), above).
    const between = c.body === undefined ? 1 : 2;
    expect(Number(fast.headers["x-ratelimit-remaining"])).toBe(Number(slow.headers["x-ratelimit-remaining"]) - between);
  });

  it("answers a GET 304 to a matching If-None-Match, as the gateway does", async () => {
    const path = byHash(NESTED);
    const first = await s.get(path, auth());
    const [slow, fast] = await both(s, path, { ...auth(), "if-none-match": first.headers.etag! });
    expect([slow.status, fast.status]).toEqual([304, 304]);
    expect(stable(fast.headers)).toEqual(stable(slow.headers));
  });

  it("refuses a missing or unknown key in GraphQL's shape, as the gateway does, for a kept answer", async () => {
    const path = `/graphql?query=${encodeURIComponent(NESTED)}`;
    for (const headers of [{} as Record<string, string>, { authorization: "Bearer uedu_not_a_key_at_all_000000000000000000" }]) {
      await s.get(path, auth());
      const taken = s.taken;
      const fast = await s.get(path, headers);
      expect(s.taken).toBe(taken + 1);
      s.answers.clear();
      const slow = await s.get(path, headers);
      expect(fast.status).toBe(401);
      expect(fast.body).toBe(slow.body);
      expect(JSON.parse(fast.body)).toMatchObject({ errors: [{ extensions: { code: "UNAUTHENTICATED" } }] });
      expect(stable(fast.headers)).toEqual(stable(slow.headers));
    }
  });

  it("adds the CORS headers of the configured origins, with Vary in the gateway's order", async () => {
    const listed = await serve({ corsOrigins: ["https://app.example"] });
    for (const origin of ["https://app.example", "https://other.example"]) {
      const [slow, fast] = await both(listed, `/graphql?query=${encodeURIComponent(NESTED)}`, {
        ...auth(),
        origin,
        "accept-encoding": "gzip",
      });
      expect(stable(fast.headers)).toEqual(stable(slow.headers));
    }
  });

  it("writes the gateway's access log line for a GraphQL answer", async () => {
    s.lines.length = 0;
    await both(s, "/graphql", auth(), JSON.stringify({ query: NESTED }));
    const [slow, fast] = s.lines.filter((line) => line.msg === "request");
    const comparable = (line: Record<string, unknown> | undefined) => ({ ...line, requestId: undefined, ms: undefined, time: undefined });
    expect(comparable(fast)).toEqual(comparable(slow));
    expect(fast).toMatchObject({ route: "/graphql", method: "POST", status: 200, surface: "graphql" });
  });

  it("leaves to the gateway what it cannot name or must not keep", async () => {
    const taken = s.taken;
    // A result with errors is never kept.
    const wrong = JSON.stringify({ query: "{ course(id: 1) { nope } }" });
    for (let i = 0; i < 2; i++) expect(JSON.parse((await s.post("/graphql", wrong, auth())).body)).toHaveProperty("errors");
    // A body of unknown length (chunked), and one over 32 KiB.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port: s.port,
          path: "/graphql",
          method: "POST",
          agent: false,
          headers: { ...auth(), "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode!));
        },
      );
      req.on("error", reject);
      req.write(JSON.stringify({ query: NESTED }));
      req.end();
    });
    expect(chunked).toBe(200);
    const large = JSON.stringify({ query: `${NESTED}${" ".repeat(33 * 1024)}` });
    for (let i = 0; i < 2; i++) expect((await s.post("/graphql", large, auth())).status).toBe(200);
    // The GraphiQL page, and a text the gateway refuses.
    expect((await s.get("/graphql", { ...auth(), accept: "text/html" })).status).toBe(200);
    expect((await s.post("/graphql", "{", auth())).status).toBe(400);
    expect(s.taken).toBe(taken);
  });
});

/** A tool call of the 2025 revisions, or of 2026-07-28 (its envelope in `_meta`, and the headers that must agree with it). */
function toolCall(
  era: "2025" | "2026",
  id: unknown,
  name = "list_courses",
  args: Record<string, unknown> = { page_size: 2 },
): { body: string; headers: Record<string, string> } {
  const modern = era === "2026";
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "lean test", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return {
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...(modern ? { _meta } : {}) } }),
    headers: {
      accept: "application/json, text/event-stream",
      ...(modern ? { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name } : {}),
    },
  };
}

describe("the lean path, for MCP tool calls", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve();
  });
  const auth = () => ({ authorization: `Bearer ${key}` });
  const IDS: unknown[] = [1, 0, 987654321012, "a", 'an id with "quotes" and ü'];
  const cases = (["2025", "2026"] as const).flatMap((era) => ["", "gzip", "br"].map((encoding) => ({ era, encoding })));

  it.each(cases)("era $era, Accept-Encoding $encoding: each call's own id in the gateway's answer", async ({ era, encoding }) => {
    for (const [name, args] of [
      ["list_courses", { page_size: 2 }],
      ["get_course", { course_id: 999999 }],
    ] as const) {
      for (const id of IDS) {
        const call = (callId: unknown) => {
          const { body, headers } = toolCall(era, callId, name, args);
          return s.post("/mcp", body, { ...auth(), ...headers, ...(encoding ? { "accept-encoding": encoding } : {}) });
        };
        // Kept from a call with another id, served with this one's.
        s.answers.clear();
        const taken = s.taken;
        const other = await call(42);
        expect(other.status).toBe(200);
        const fast = await call(id);
        expect(s.taken).toBe(taken + 1);
        // The gateway's own answer to this id.
        s.answers.clear();
        const slow = await call(id);
        expect(s.taken).toBe(taken + 1);
        expect(fast.body).toBe(slow.body);
        expect((JSON.parse(fast.body) as { id: unknown }).id).toEqual(id);
        expect(stable(fast.headers)).toEqual(stable(slow.headers));
      }
    }
  });

  it("keeps no answer of a call refused (400) or failed, nor of another method or a notification", async () => {
    s.answers.clear();
    const taken = s.taken;
    for (let i = 0; i < 2; i++) {
      const refused = toolCall("2025", 5, "list_courses", { page: 0 });
      expect((await s.post("/mcp", refused.body, { ...auth(), ...refused.headers })).status).toBe(200);
      const unknown = toolCall("2025", 6, "no_such_tool", {});
      expect((await s.post("/mcp", unknown.body, { ...auth(), ...unknown.headers })).status).toBe(200);
      const list = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" });
      expect((await s.post("/mcp", list, { ...auth(), accept: "application/json, text/event-stream" })).status).toBe(200);
      const nullId = toolCall("2025", null);
      await s.post("/mcp", nullId.body, { ...auth(), ...nullId.headers });
    }
    expect(s.taken).toBe(taken);
  });

  it("refuses a foreign origin (403) and a missing key (401) as the gateway does, for a kept answer", async () => {
    const { body, headers } = toolCall("2025", 3);
    await s.post("/mcp", body, { ...auth(), ...headers });
    const taken = s.taken;
    const foreign = await s.post("/mcp", body, { ...auth(), ...headers, origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(s.taken).toBe(taken);
    const keyless = await s.post("/mcp", body, headers);
    expect(s.taken).toBe(taken + 1);
    s.answers.clear();
    const slow = await s.post("/mcp", body, headers);
    expect(keyless.status).toBe(401);
    expect(keyless.body).toBe(slow.body);
    expect(stable(keyless.headers)).toEqual(stable(slow.headers));
  });
});

describe("the answer cache's bytes", () => {
  it("keeps no answer begun before the cache was emptied, and shows its size in /metrics", async () => {
    const cache = new AnswerCache({ ttlMs: 60_000 });
    const since = cache.generation;
    cache.clear();
    cache.keep("late", { status: 200, bytes: Buffer.from("{}") }, 60_000, since);
    expect(cache.bytes("late")).toBeUndefined();
    cache.keep("now", { status: 200, bytes: Buffer.from("{}") }, 60_000, cache.generation);
    expect(cache.bytes("now")?.bytes.toString()).toBe("{}");
    const text = await registry.metrics();
    expect(text).toMatch(/^gateway_response_cache_bytes \d+/m);
    expect(text).toMatch(/^gateway_response_cache_answers 1$/m);
  });

  it("evicts the least recently used answer past its bound in bytes", () => {
    const cache = new AnswerCache({ ttlMs: 60_000, maxBytes: 10_000 });
    const answer = () => ({ status: 200, bytes: Buffer.alloc(2_000) });
    cache.keep("a", answer(), 60_000, 0);
    cache.keep("b", answer(), 60_000, 0);
    cache.bytes("a");
    cache.keep("c", answer(), 60_000, 0);
    expect([cache.bytes("a"), cache.bytes("b"), cache.bytes("c")].map(Boolean)).toEqual([true, false, true]);
  });
});
