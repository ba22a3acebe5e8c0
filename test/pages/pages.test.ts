/**
 * The pages' HTTP side (src/pages): the landing page, the GraphiQL page and
 * its files, all from the gateway, without a key; and every example query
 * GraphiQL opens with runs on the data without an error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLES } from "../../src/pages/examples.js";
import { html } from "../../src/pages/layout.js";
import { canaryExport } from "../support/canary.js";
import { listen } from "../support/socket.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

let t: TestGateway;
beforeAll(async () => {
  t = await testGateway(canaryExport(), { gateway: { limits: { perMinute: 42, perDay: 4_242 } } });
}, 60_000);
afterAll(async () => t?.close());

const get = (path: string, init: RequestInit = {}) => t.gateway.fetch(`http://127.0.0.1:4000${path}`, init);

describe("GET /", () => {
  it("is the landing page, with the limits in force and the snippets for this origin", async () => {
    const answer = await get("/");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const text = await answer.text();
    expect(answer.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(text).toContain('<strong id="per-minute">42</strong>');
    expect(text).toContain('<strong id="per-day">4,242</strong>');
    expect(text).toContain("http://127.0.0.1:4000/mcp");
    expect(text).toContain("Attribute data obtained through the API to the platform.");
    // Same terms as the REST root's, from one source.
    const root = (await (await get("/api/v1")).json()) as { data: { terms: string[]; attribution: string } };
    for (const term of root.data.terms) expect(text).toContain(html(term));
    expect(text).toContain(html(root.data.attribution));
  });

  it("is not what the asterisk-form target names (it parses to / too): 404 in JSON, whatever the method", async () => {
    const socket = await listen(t.gateway);
    try {
      for (const method of ["GET", "OPTIONS", "POST"]) {
        const answer = await socket.raw(
          `${method} * HTTP/1.1\r\nhost: 127.0.0.1\r\norigin: http://a.example\r\naccess-control-request-method: GET\r\nconnection: close\r\n\r\n`,
        );
        expect(answer.status, method).toBe(404);
        expect(JSON.parse(answer.body), method).toEqual({ success: false, error: "no such path: *" });
      }
      expect((await socket.raw("GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n")).status).toBe(200);
    } finally {
      await socket.close();
    }
  });

  it("answers HEAD without a body and refuses other methods with 405 and Allow", async () => {
    const head = await get("/", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const post = await get("/", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("the GraphiQL page and its files", () => {
  it("loads nothing from another host: every script, style, worker and icon is an asset of the gateway", async () => {
    const html = await (await get("/graphql", { headers: { accept: "text/html" } })).text();
    expect(html).toContain("<title>Public Data API — GraphQL</title>");
    expect(html).not.toMatch(/(src|href)="https?:/);
    expect(html).not.toContain("unpkg.com");
    const paths = [...html.matchAll(/\/assets\/[\w.-]+/g)].map((m) => m[0]);
    expect(new Set(paths).size).toBe(6); // icon, style, script, three workers
    for (const path of new Set(paths)) {
      const asset = await get(path);
      expect(asset.status, path).toBe(200);
      expect(asset.headers.get("cache-control"), path).toBe("public, max-age=31536000, immutable");
      expect(asset.headers.get("content-type"), path).toMatch(/^(text\/javascript|text\/css|image\/svg\+xml)/);
      expect((await asset.arrayBuffer()).byteLength, path).toBeGreaterThan(200);
    }
  });

  it("answers an unknown asset 404 in JSON", async () => {
    const missing = await get("/assets/graphiql.000000000000.js");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ success: false, error: expect.any(String) });
  });

  it.each(EXAMPLES.map((e) => [/query (\w+)/.exec(e.query)![1], e] as const))(
    "example %s runs without an error",
    async (_name, example) => {
      const body = await t.graphql(example.query, example.variables);
      expect(body.errors).toBeUndefined();
      expect(body.data).toBeTruthy();
    },
  );
});
