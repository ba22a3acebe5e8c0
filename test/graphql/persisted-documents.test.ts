/**
 * Persisted documents (src/plugins/persisted-documents.ts), over a real
 * socket, with keys and limits, driven by urql's persisted-query exchange (a
 * real client that speaks automatic persisted queries):
 *
 * - automatic persisted queries: an unknown hash gets `PersistedQueryNotFound`,
 *   the client sends the document once, and from then on the hash alone, by
 *   GET, with the same `ETag` and `Cache-Control` as a REST answer;
 * - trusted documents: only those of the file run; anything else is a 400
 *   before parsing, while REST and MCP still answer;
 * - the trusted documents file is read and checked at start.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, fetchExchange, gql, stringifyDocument } from "@urql/core";
import { persistedExchange } from "@urql/exchange-persisted";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config.js";
import { createReadClient, type ReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { readTrustedDocuments, type TrustedDocuments } from "../../src/plugins/persisted-documents.js";
import { sha256Hex } from "../../src/sha256.js";
import { schema } from "../../src/schema/index.js";
import { createGateway } from "../../src/server.js";
import { canaryExport } from "../support/canary.js";
import { MID_MINUTE } from "../support/clock.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { type ListeningGateway, listen } from "../support/socket.js";
import { tempDir } from "../support/temp.js";

const SCHOOLS = gql`
  query Schools {
    universities(first: 5) {
      nodes {
        code
        nameEn
      }
    }
  }
`;
const COURSE = gql`
  query Course($id: Int!) {
    course(id: $id) {
      databaseId
      courseNameEnglish
    }
  }
`;

/** One request as the client sent it, and what came back. */
interface Exchange {
  method: string;
  url: URL;
  body: Record<string, unknown> | undefined;
  status: number;
  headers: Headers;
  text: string;
}

let db: Database;
let prisma: ReadClient;
let key: string;
const open: ListeningGateway[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  await importObject(db, canaryExport());
  prisma = createReadClient(db);
  key = (await new KeyStore(db).create({ name: "persisted documents", perMinute: 1_000 })).key;
});

afterAll(async () => {
  for (const server of open) await server.close();
  await prisma.$disconnect();
  await db.close();
});

async function serve(trustedDocuments?: TrustedDocuments): Promise<ListeningGateway> {
  const gateway = createGateway({
    db,
    prisma,
    auth: { keys: new KeyStore(db), limits: new RateLimits({ defaults: { perMinute: 1_000, perDay: 100_000 }, now: () => MID_MINUTE }) },
    ...(trustedDocuments ? { trustedDocuments } : {}),
  });
  const listening = await listen(gateway);
  open.push(listening);
  return listening;
}

/** An urql client with the persisted-query exchange, preferring GET, whose every request is recorded. */
function urql(base: string, exchanges: Exchange[], options: { enforce?: boolean; authorization?: string } = {}): Client {
  return new Client({
    url: `${base}/graphql`,
    requestPolicy: "network-only",
    preferGetMethod: false,
    exchanges: [
      persistedExchange({ preferGetForPersistedQueries: true, enforcePersistedQueries: options.enforce ?? false }),
      fetchExchange,
    ],
    fetchOptions: { headers: { authorization: options.authorization ?? `Bearer ${key}` } },
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const text = await response.clone().text();
      const url = new URL(String(input));
      exchanges.push({
        method: init?.method ?? "GET",
        url,
        body: typeof init?.body === "string" ? (JSON.parse(init.body) as Record<string, unknown>) : undefined,
        status: response.status,
        headers: response.headers,
        text,
      });
      return response;
    },
  });
}

/** What a request sent: its document's text, if any, and its persisted query hash, if any. */
function sent(exchange: Exchange): { query: string | undefined; hash: string | undefined } {
  const params = exchange.body ?? Object.fromEntries(exchange.url.searchParams);
  const extensions = typeof params.extensions === "string" ? JSON.parse(params.extensions) : params.extensions;
  return {
    query: typeof params.query === "string" ? params.query : undefined,
    hash: (extensions as { persistedQuery?: { sha256Hash?: string } } | undefined)?.persistedQuery?.sha256Hash,
  };
}

/** POSTs a GraphQL request with the key; the status and the parsed body. */
const post = (base: string, body: unknown) =>
  fetch(`${base}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));

const SCHOOLS_HASH = sha256Hex(stringifyDocument(SCHOOLS));

describe("automatic persisted queries", () => {
  let gateway: ListeningGateway;
  beforeAll(async () => {
    gateway = await serve();
  });

  it("an unknown hash is PersistedQueryNotFound; the client sends the document once, then the hash alone by GET", async () => {
    const exchanges: Exchange[] = [];
    const client = urql(gateway.base, exchanges);

    const first = await client.query(SCHOOLS, {}).toPromise();
    expect(first.error).toBeUndefined();
    expect(first.data.universities.nodes.length).toBeGreaterThan(0);
    // The hash alone, by GET: not known yet.
    expect(exchanges[0]!.method).toBe("GET");
    expect(sent(exchanges[0]!)).toEqual({ query: undefined, hash: SCHOOLS_HASH });
    expect(exchanges[0]!.status).toBe(404);
    expect(JSON.parse(exchanges[0]!.text)).toEqual({
      errors: [{ message: "PersistedQueryNotFound", extensions: { code: "PERSISTED_QUERY_NOT_FOUND" } }],
    });
    // Then the document with its hash, once.
    expect(exchanges).toHaveLength(2);
    expect(sent(exchanges[1]!)).toEqual({ query: stringifyDocument(SCHOOLS), hash: SCHOOLS_HASH });
    expect(exchanges[1]!.status).toBe(200);

    // From then on the hash alone, by GET, answered as a REST GET is.
    exchanges.length = 0;
    const second = await client.query(SCHOOLS, {}).toPromise();
    expect(second.data).toEqual(first.data);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]!.method).toBe("GET");
    expect(sent(exchanges[0]!).query).toBeUndefined();
    expect(exchanges[0]!.status).toBe(200);
    expect(exchanges[0]!.headers.get("etag")).toMatch(/^W\/"[\w-]{27}"$/);
    expect(exchanges[0]!.headers.get("cache-control")).toBe("public, no-cache");
    expect(exchanges[0]!.headers.get("vary")).toMatch(/\bAccept\b/);
    const rest = await fetch(`${gateway.base}/api/v1/universities`, { headers: { authorization: `Bearer ${key}` } });
    expect(rest.headers.get("cache-control")).toBe(exchanges[0]!.headers.get("cache-control"));
    expect(rest.headers.get("etag")).toMatch(/^W\/"[\w-]{27}"$/);
  });

  it("a CDN revalidating a persisted GET gets 304 while the answer is unchanged, and each revalidation counts against the key", async () => {
    const exchanges: Exchange[] = [];
    await urql(gateway.base, exchanges).query(SCHOOLS, {}).toPromise();
    const last = exchanges.at(-1)!;
    const url = new URL(`${gateway.base}/graphql`);
    url.searchParams.set("operationName", "Schools");
    url.searchParams.set("extensions", JSON.stringify({ persistedQuery: { version: 1, sha256Hash: SCHOOLS_HASH } }));
    const headers = { authorization: `Bearer ${key}`, accept: "application/graphql-response+json" };
    const fresh = await fetch(url, { headers });
    expect(fresh.status).toBe(200);
    const etag = fresh.headers.get("etag")!;
    expect(JSON.parse(await fresh.text())).toEqual(JSON.parse(last.text));
    const revalidated = await fetch(url, { headers: { ...headers, "if-none-match": etag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("cache-control")).toBe("public, no-cache");
    expect(Number(revalidated.headers.get("x-ratelimit-remaining"))).toBe(Number(fresh.headers.get("x-ratelimit-remaining")) - 1);
  });

  it("keys apply: a persisted GET without a key, or with a wrong one, is 401 in GraphQL's shape", async () => {
    const exchanges: Exchange[] = [];
    const result = await urql(gateway.base, exchanges, { authorization: "Bearer nope" }).query(SCHOOLS, {}).toPromise();
    expect(result.data).toBeUndefined();
    expect(exchanges.every((e) => e.status === 401)).toBe(true);
    expect(JSON.parse(exchanges[0]!.text).errors[0].extensions.code).toBe("UNAUTHENTICATED");
    const url = `${gateway.base}/graphql?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: SCHOOLS_HASH } }))}`;
    expect((await fetch(url)).status).toBe(401);
  });

  it("a document sent with a hash that is not its own is a 400 PersistedQueryMismatch, and nothing is kept under that hash", async () => {
    const wrong = sha256Hex("something else");
    const mismatch = await post(gateway.base, {
      query: "{ universities { totalCount } }",
      extensions: { persistedQuery: { version: 1, sha256Hash: wrong } },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors[0]).toMatchObject({ message: "PersistedQueryMismatch", extensions: { code: "PERSISTED_QUERY_MISMATCH" } });
    const after = await post(gateway.base, { extensions: { persistedQuery: { version: 1, sha256Hash: wrong } } });
    expect(after.status).toBe(404);
  });

  it("a document sent by its hash passes the same limits as its text", async () => {
    const deep = "{ universities { nodes { courses { nodes { university { courses { nodes { name } } } } } } } }";
    const hash = sha256Hex(deep);
    const registered = await post(gateway.base, { query: deep, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    const byHash = await post(gateway.base, { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    expect(registered.body.data).toBeUndefined();
    expect(byHash).toEqual(registered);
  });
});

/** GETs `/graphql` with these parameters and the key; the status and the parsed body. */
const get = (base: string, params: Record<string, string>) =>
  fetch(`${base}/graphql?${new URLSearchParams(params)}`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => ({
    status: r.status,
    body: await r.json(),
  }));

describe("documentId (GraphQL over HTTP's persisted documents)", () => {
  let apq: ListeningGateway;
  let trustedGateway: ListeningGateway;
  beforeAll(async () => {
    apq = await serve();
    trustedGateway = await serve(new Map([[SCHOOLS_HASH, stringifyDocument(SCHOOLS)]]));
  });

  it("runs a trusted document by documentId, sha256:-prefixed or bare, by POST and by GET, as its hash does", async () => {
    const byHash = await post(trustedGateway.base, { extensions: { persistedQuery: { version: 1, sha256Hash: SCHOOLS_HASH } } });
    expect(byHash.status).toBe(200);
    expect(byHash.body.data.universities.nodes.length).toBeGreaterThan(0);
    for (const documentId of [`sha256:${SCHOOLS_HASH}`, SCHOOLS_HASH]) {
      expect(await post(trustedGateway.base, { documentId, variables: {} })).toEqual(byHash);
      expect(await get(trustedGateway.base, { documentId })).toEqual(byHash);
    }
    const unknown = await post(trustedGateway.base, { documentId: `sha256:${sha256Hex("{ universities { totalCount } }")}` });
    expect(unknown).toEqual({
      status: 400,
      body: { errors: [{ message: "PersistedQueryNotFound", extensions: { code: "PERSISTED_QUERY_NOT_IN_LIST" } }] },
    });
  });

  it("runs a document registered by automatic persisted queries by its documentId; an unknown one is PersistedQueryNotFound", async () => {
    const text = "{ universities(first: 2) { edges { node { code } } } }";
    const hash = sha256Hex(text);
    expect((await get(apq.base, { documentId: `sha256:${hash}` })).status).toBe(404);
    const registered = await post(apq.base, { query: text, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    expect(registered.status).toBe(200);
    expect(await get(apq.base, { documentId: `sha256:${hash}` })).toEqual(registered);
    expect(await post(apq.base, { documentId: `sha256:${hash}` })).toEqual(registered);
  });

  it.each([
    [{ documentId: "md5:0cc175b9c0f1b6a831c399e269772661" }, "documentId must be sha256: followed by"],
    [{ documentId: `sha256:${SCHOOLS_HASH.toUpperCase()}` }, "documentId must be sha256: followed by"],
    [{ documentId: 42 }, "documentId must be sha256: followed by"],
    [{ documentId: `sha256:${SCHOOLS_HASH}`, query: stringifyDocument(SCHOOLS) }, "send either documentId or query, not both"],
    [
      { documentId: `sha256:${SCHOOLS_HASH}`, extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex("x") } } },
      "documentId and extensions.persistedQuery name different documents",
    ],
    [{ documentId: `sha256:${SCHOOLS_HASH}`, extensions: "x" }, "extensions must be a JSON object"],
  ])("refuses %j with a 400 in GraphQL's shape, in both modes", async (body, message) => {
    for (const gateway of [apq, trustedGateway]) {
      const answer = await post(gateway.base, body);
      expect(answer).toEqual({
        status: 400,
        body: { errors: [{ message: expect.stringContaining(message), extensions: { code: "BAD_REQUEST" } }] },
      });
    }
    const bad = await get(apq.base, { documentId: "sha256:nope" });
    expect(bad.status).toBe(400);
  });
});

describe("trusted documents", () => {
  let gateway: ListeningGateway;
  const trusted = new Map([[SCHOOLS_HASH, stringifyDocument(SCHOOLS)]]);
  beforeAll(async () => {
    gateway = await serve(trusted);
  });

  it("a trusted document runs by its hash, by GET, with the cache headers", async () => {
    const exchanges: Exchange[] = [];
    const result = await urql(gateway.base, exchanges, { enforce: true }).query(SCHOOLS, {}).toPromise();
    expect(result.error).toBeUndefined();
    expect(result.data.universities.nodes.length).toBeGreaterThan(0);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]!.method).toBe("GET");
    expect(sent(exchanges[0]!)).toEqual({ query: undefined, hash: SCHOOLS_HASH });
    expect(exchanges[0]!.headers.get("cache-control")).toBe("public, no-cache");
    expect(exchanges[0]!.headers.get("etag")).toBeTruthy();
  });

  it("a document not in the file is a 400 in GraphQL's shape, by hash or by text, and is never parsed", async () => {
    const exchanges: Exchange[] = [];
    const result = await urql(gateway.base, exchanges).query(COURSE, { id: 1 }).toPromise();
    expect(result.data).toBeUndefined();
    expect(exchanges.map((e) => [e.status, sent(e).query === undefined])).toEqual([
      [400, true],
      [400, false],
    ]);
    expect(JSON.parse(exchanges[0]!.text)).toEqual({
      errors: [{ message: "PersistedQueryNotFound", extensions: { code: "PERSISTED_QUERY_NOT_IN_LIST" } }],
    });
    // Text that does not even parse gets the same refusal, not a syntax error: nothing was parsed.
    const garbage = await post(gateway.base, { query: "{ nope(" });
    expect(garbage).toEqual({
      status: 400,
      body: {
        errors: [
          {
            message: "this document is not one of the trusted documents: only those run on this gateway",
            extensions: { code: "PERSISTED_QUERY_NOT_IN_LIST" },
          },
        ],
      },
    });
    const nothing = await post(gateway.base, { variables: {} });
    expect(nothing.status).toBe(400);
    expect(nothing.body.errors[0].extensions.code).toBe("PERSISTED_QUERY_ID_REQUIRED");
  });

  it("the text of a trusted document runs; keys still apply", async () => {
    const byText = await post(gateway.base, { query: stringifyDocument(SCHOOLS) });
    expect(byText.status).toBe(200);
    expect(byText.body.data.universities.nodes.length).toBeGreaterThan(0);
    const anonymous = await fetch(`${gateway.base}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: stringifyDocument(SCHOOLS) }),
    });
    expect(anonymous.status).toBe(401);
  });

  it("REST and MCP run their own operations, which are not in the file", async () => {
    const rest = await fetch(`${gateway.base}/api/v1/courses/1`, { headers: { authorization: `Bearer ${key}` } });
    expect(rest.status).toBe(200);
    expect((await rest.json()).data.id).toBe(1);
    const mcp = await fetch(`${gateway.base}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_course", arguments: { course_id: 1 } } }),
    });
    expect(mcp.status).toBe(200);
    const text = await mcp.text();
    expect(text).toContain('\\"id\\":1');
    expect(text).not.toContain('"isError":true');
  });
});

/** Documents that a limit refuses at every request, and what the start says of each. */
const overLimits: [string, string, string][] = [
  [
    "deep.json",
    `{ universities { nodes { ${"courses { nodes { university { ".repeat(4)}code${" } } }".repeat(4)} } } }`,
    "QUERY_TOO_DEEP: The document is nested 10 levels deep",
  ],
  [
    "aliases.json",
    `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: __typename`).join(" ")} }`,
    "QUERY_TOO_MANY_ALIASES: The document has 16 aliases",
  ],
  [
    "directives.json",
    `{ ${Array.from({ length: 11 }, (_, i) => `a${i}: universities @skip(if: false) { totalCount }`).join(" ")} }`,
    "QUERY_TOO_MANY_DIRECTIVES",
  ],
  [
    "tokens.json",
    `{ universities { totalCount } ${"...F ".repeat(500)}} fragment F on Query { __typename }`,
    "QUERY_TOO_MANY_TOKENS: The document has 1013 tokens",
  ],
];

describe("readTrustedDocuments", () => {
  const dir = tempDir("trusted-");
  const write = (name: string, content: unknown) => {
    const file = join(dir, name);
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
    return file;
  };
  const text = stringifyDocument(SCHOOLS);

  it("reads GraphQL Codegen's hash → document map and Apollo's persisted query manifest", () => {
    expect(readTrustedDocuments(write("map.json", { [SCHOOLS_HASH]: text }), schema)).toEqual(new Map([[SCHOOLS_HASH, text]]));
    // GraphQL Codegen's client preset writes its keys as document ids.
    expect(readTrustedDocuments(write("ids.json", { [`sha256:${SCHOOLS_HASH}`]: text }), schema)).toEqual(new Map([[SCHOOLS_HASH, text]]));
    const manifest = {
      format: "apollo-persisted-query-manifest",
      version: 1,
      operations: [{ id: SCHOOLS_HASH, name: "Schools", type: "query", body: text }],
    };
    expect(readTrustedDocuments(write("manifest.json", manifest), schema)).toEqual(new Map([[SCHOOLS_HASH, text]]));
  });

  it.each([
    ["missing.json", undefined, "cannot be read"],
    ["broken.json", "{", "is not JSON"],
    ["list.json", ["a"], "must be a JSON object of SHA-256 hash → document"],
    ["empty.json", {}, "holds no document"],
    ["short.json", { abc: text }, 'entry "abc": the key must be a lowercase hex SHA-256 hash'],
    ["md5.json", { [`md5:${"0".repeat(32)}`]: text }, "the key must be a lowercase hex SHA-256 hash, alone or after sha256:"],
    ["other.json", { [sha256Hex("x")]: text }, "the hash is not the SHA-256 of its document"],
    ["unknown.json", { [sha256Hex("{ nope }")]: "{ nope }" }, 'Cannot query field "nope" on type "Query"'],
    ["syntax.json", { [sha256Hex("{ nope(")]: "{ nope(" }, "Syntax Error"],
    ...overLimits.map(([name, document, problem]) => [name, { [sha256Hex(document)]: document }, problem] as [string, unknown, string]),
  ])("refuses %s at start, saying why", (name, content, problem) => {
    const file = content === undefined ? join(dir, name) : write(name, content);
    expect(() => readTrustedDocuments(file, schema)).toThrow(ConfigError);
    expect(() => readTrustedDocuments(file, schema)).toThrow(`TRUSTED_DOCUMENTS ${file}: `);
    expect(() => readTrustedDocuments(file, schema)).toThrow(problem);
  });
});
