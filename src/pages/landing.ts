/**
 * `GET /`: the landing page (docs/contract.md §1). What the service is, its
 * terms and the attribution rule, how to get and send a key, the limits in
 * force, and the ways in: GraphiQL, the REST API and its OpenAPI document,
 * and MCP with a client snippet for HTTP and for stdio.
 */
import type { Limits } from "../limits/rate-limits.js";
import { SERVICE } from "../service.js";
import { html, KEY_STORAGE, page, scriptJson } from "./layout.js";

export interface LandingOptions {
  /** The per-key limits in force. */
  limits: Limits;
  /** The origin the page was asked for (`http://127.0.0.1:4000`), for the snippets. */
  origin: string;
}

const n = (value: number) => value.toLocaleString("en-US");

/** A snippet with a button that copies it. */
const snippet = (id: string, text: string) =>
  `<div class="snippet"><pre id="${id}">${html(text)}</pre><button type="button" class="copy" data-copy="${id}">Copy</button></div>`;

export function landingPage({ limits, origin }: LandingOptions): string {
  const mcpHttp = JSON.stringify(
    { mcpServers: { "public-data": { type: "http", url: `${origin}/mcp`, headers: { Authorization: "Bearer <API_KEY>" } } } },
    null,
    2,
  );
  const mcpStdio = JSON.stringify(
    {
      mcpServers: {
        "public-data": {
          command: "/path/to/the/gateway/bin/uedu-mcp.mjs",
          env: { UEDU_API_KEY: "<API_KEY>", UEDU_API_BASE_URL: origin },
        },
      },
    },
    null,
    2,
  );
  const curlRest = `curl -H "Authorization: Bearer <API_KEY>" ${origin}/api/v1/universities`;
  const curlGraphql = `curl -H "Authorization: Bearer <API_KEY>" -H "Content-Type: application/json" \\
  -d '{"query":"{ universities(first: 3) { nodes { code nameZh } } }"}' ${origin}/graphql`;
  return page(
    SERVICE.name,
    `<main>
<h1>${html(SERVICE.name)}</h1>
<p class="lead">${html(SERVICE.summary)}</p>

<nav class="doors">
  <a href="/graphql"><strong>GraphiQL</strong><span>Write and run GraphQL queries; browse the schema in Docs.</span></a>
  <a href="/api/v1"><strong>REST API v1</strong><span>The 11 operations, described by <code>GET /api/v1</code>.</span></a>
  <a href="/docs"><strong>REST reference</strong><span>Every operation, its parameters and answers; try each with your key.</span></a>
  <a href="/openapi.json"><strong>OpenAPI document</strong><span>OpenAPI 3.1 of the REST API, for tools and code generators.</span></a>
  <a href="/account/keys"><strong>My API Keys</strong><span>Create, see and revoke your own keys.</span></a>
  <a href="#mcp"><strong>MCP</strong><span>Every REST operation as a tool for AI clients, at <code>/mcp</code>.</span></a>
</nav>

<h2 id="key">Your API key</h2>
<p>Every request carries a key: <code>${html(SERVICE.auth)}</code>. The account holder creates one on the
<a href="/account/keys" id="my-keys">My API Keys</a> page, where they also see when each key was last used and
revoke one (an operator can also create one with <code>npm run keys -- create</code>). The key is shown in full once;
only its SHA-256 hash is stored, so a lost key is created again. Paste it in the bar at the top: it stays in this browser
(<code>localStorage</code>) and is sent only in the <code>Authorization</code> header of this service's requests,
by GraphiQL here and by the examples below.</p>
<p id="key-check" class="muted">No key saved yet.</p>

<h2 id="limits">Limits</h2>
<p>Each key may make <strong id="per-minute">${n(limits.perMinute)}</strong> requests a minute and
<strong id="per-day">${n(limits.perDay)}</strong> a day, on every surface together. Over a limit, the answer is 429
with <code>Retry-After</code>; every answer carries <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code> and
<code>X-RateLimit-Reset</code>. A higher quota comes from the platform administrator.</p>

<h2 id="terms">Terms of use</h2>
<ul>${SERVICE.terms.map((t) => `<li>${html(t)}</li>`).join("")}</ul>
<p><strong>Attribution.</strong> ${html(SERVICE.attribution)}</p>

<h2 id="rest">REST</h2>
${snippet("curl-rest", curlRest)}
<h2 id="graphql">GraphQL</h2>
${snippet("curl-graphql", curlGraphql)}

<h2 id="mcp">MCP</h2>
<p>For a client that speaks streamable HTTP:</p>
${snippet("mcp-http", mcpHttp)}
<p>For a client that launches a command (stdio), with the gateway's repository on the same machine:</p>
${snippet("mcp-stdio", mcpStdio)}
</main>
<script>
(() => {
  const key = localStorage.getItem(${scriptJson(KEY_STORAGE)});
  if (key) document.getElementById("key-check").textContent = "A key is saved in this browser; GraphiQL will send it.";
  for (const button of document.querySelectorAll("button.copy")) {
    button.addEventListener("click", async () => {
      await navigator.clipboard.writeText(document.getElementById(button.dataset.copy).textContent);
      button.textContent = "Copied";
    });
  }
})();
</script>`,
    `<style>
  main { max-width: 56rem; margin: 0 auto; padding: 8px 20px 48px; }
  h1 { margin: 24px 0 4px; } h2 { margin-top: 32px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
  .lead { font-size: 17px; color: var(--muted); }
  .muted { color: var(--muted); }
  .doors { display: grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: 12px; margin: 20px 0; }
  .doors a { display: block; padding: 12px 14px; border: 1px solid var(--line); border-radius: 8px; text-decoration: none; color: var(--ink); }
  .doors a:hover { border-color: var(--brand); }
  .doors strong { display: block; color: var(--brand); } .doors span { font-size: 13px; color: var(--muted); }
  .snippet { position: relative; margin: 8px 0 16px; }
  .snippet .copy { position: absolute; top: 6px; right: 6px; padding: 2px 8px; font: inherit; font-size: 12px; cursor: pointer; }
</style>`,
  );
}
