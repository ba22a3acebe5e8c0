/**
 * Issue 8, finding 7: answers outside their surface's shape. Node's parser
 * refusals were empty, GraphQL `variables=x` was a 500, yoga's 406 and 415
 * had no body (the 406 never ended on a socket), MCP answered -32603 with a
 * zod dump or "URI malformed". Every answer here is JSON in its surface's
 * shape, with no stack, file path or library version, over a real socket.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canaryExport } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { type ListeningGateway, type RawAnswer, listen } from "../support/socket.js";

let t: TestGateway;
let socket: ListeningGateway;
const seen: RawAnswer[] = [];

beforeAll(async () => {
  t = await testGateway(canaryExport());
  socket = await listen(t.gateway);
});
afterAll(async () => {
  await socket?.close();
  await t?.close();
});

/** One raw request; `head` is the request line and headers without the final blank line. */
async function raw(head: string, body = ""): Promise<RawAnswer> {
  const length = body ? `content-length: ${Buffer.byteLength(body)}\r\n` : "";
  const answer = await socket.raw(`${head}\r\nhost: 127.0.0.1\r\n${length}connection: close\r\n\r\n${body}`);
  seen.push(answer);
  return answer;
}

const json = (answer: RawAnswer) => JSON.parse(answer.body);
const JSON_TYPE = /^application\/json/;

describe("Node's parser refusals are JSON", () => {
  it.each([
    [
      "raw UTF-8 in the URL",
      "GET /api/v1/courses?q=程式 HTTP/1.1",
      400,
      "malformed request target: expected a path, like /api/v1/universities, with every non-ASCII character percent-encoded",
    ],
    ["a control byte in a header", "GET /api/v1 HTTP/1.1\r\nx-bad: a\u0001b", 400, "malformed HTTP request"],
    ["headers over 16 KiB", `GET /api/v1 HTTP/1.1\r\nx-big: ${"a".repeat(20_000)}`, 431, "request headers too large"],
    ["not HTTP at all", "HELLO THERE", 400, "malformed HTTP request"],
  ])("%s", async (_what, head, status, message) => {
    const answer = await raw(head);
    expect(answer.status).toBe(status);
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(json(answer)).toEqual({ success: false, error: message });
  });

  it("the percent-encoded form of the same URL is served", async () => {
    const answer = await raw(`GET /api/v1/courses?q=${encodeURIComponent("程式")} HTTP/1.1`);
    expect(answer.status).toBe(200);
    expect(json(answer).success).toBe(true);
  });

  it("an absolute-form target is read by its path (RFC 9112 §3.2.2), not a stack trace", async () => {
    const answer = await raw("GET http://evil.example/api/v1/universities HTTP/1.1");
    expect(answer.status).toBe(200);
    expect(json(answer)).toMatchObject({ success: true });
  });
});

describe("GraphQL refusals are GraphQL errors", () => {
  it("variables or extensions that are not JSON: 400 BAD_REQUEST, not 500", async () => {
    for (const param of ["variables=x", "extensions=%7B", "variables=%5B1"]) {
      const answer = await raw(`GET /graphql?query=%7B__typename%7D&${param} HTTP/1.1\r\naccept: application/json`);
      expect(answer.status, param).toBe(400);
      expect(json(answer)).toEqual({
        errors: [{ message: "variables and extensions must be JSON objects", extensions: { code: "BAD_REQUEST" } }],
      });
    }
  });

  it("415 and 406 carry a body (and the 406 ends)", async () => {
    const unsupported = await raw("POST /graphql HTTP/1.1\r\ncontent-type: text/plain", "{ __typename }");
    expect(unsupported.status).toBe(415);
    expect(unsupported.headers["content-type"]).toMatch(JSON_TYPE);
    expect(json(unsupported)).toEqual({
      errors: [{ message: "unsupported media type: send application/json", extensions: { code: "UNSUPPORTED_MEDIA_TYPE" } }],
    });

    const unacceptable = await raw(
      "POST /graphql HTTP/1.1\r\ncontent-type: application/json\r\naccept: text/csv",
      '{"query":"{ __typename }"}',
    );
    expect(unacceptable.status).toBe(406);
    expect(unacceptable.headers.accept).toContain("application/json");
    expect(json(unacceptable).errors[0].extensions.code).toBe("NOT_ACCEPTABLE");
  });

  it("a method GraphQL does not take is a GraphQL error", async () => {
    const answer = await raw("PUT /graphql HTTP/1.1\r\ncontent-type: application/json", "{}");
    expect(answer.status).toBe(405);
    expect(json(answer).errors[0].message).toMatch(/GET and POST/);
  });
});

describe("MCP refusals are JSON-RPC errors or tool errors, in words", () => {
  const post = (message: unknown) =>
    raw("POST /mcp HTTP/1.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream", JSON.stringify(message));

  it("arguments that are not an object: -32602 naming the problem", async () => {
    const answer = await post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "list_courses", arguments: null } });
    const body = json(answer);
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toMatch(/^invalid params: params\.arguments: /);
    expect(body.error.message).not.toContain("\n");
  });

  it("a lone surrogate in a path value is the REST 400, carried as a tool error", async () => {
    const answer = await post({
      jsonrpc: "2.0",
      id: 8,
      method: "tools/call",
      params: { name: "get_hub_pack", arguments: { pack_id: "\ud800" } },
    });
    expect(json(answer).result).toMatchObject({
      isError: true,
      structuredContent: { success: false, error: "pack_id must be valid Unicode text" },
    });
  });

  it("a batch is refused: one message per request, so each is counted", async () => {
    const call = { jsonrpc: "2.0", method: "tools/call", params: { name: "list_conferences", arguments: {} } };
    const answer = await post([
      { ...call, id: 1 },
      { ...call, id: 2 },
    ]);
    expect(answer.status).toBe(400);
    expect(json(answer)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "JSON-RPC batches are not supported: send one message per request" },
    });
  });

  it("a body that is not JSON: -32700", async () => {
    const answer = await raw(
      "POST /mcp HTTP/1.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream",
      "{nope",
    );
    expect(answer.status).toBe(400);
    expect(json(answer).error.code).toBe(-32700);
  });
});

describe("no answer above carries a stack, a file path or a library version", () => {
  it("holds for every body", () => {
    expect(seen.length).toBeGreaterThan(15);
    for (const answer of seen) {
      expect(answer.body).not.toMatch(/node_modules|\.ts:\d+|\.js:\d+|\n\s+at |graphql-yoga|@modelcontextprotocol|zod/i);
      expect(answer.body.length).toBeGreaterThan(0);
    }
  });
});
