/**
 * The GraphiQL page at `GET /graphql` (a browser asking for HTML): yoga's
 * GraphiQL with every file served by the gateway (./assets.ts), the example
 * queries opened as tabs, and the key saved in the key bar sent with every
 * request GraphiQL makes, introspection included, so the Docs explorer loads
 * as soon as a key is there.
 */
import type { GraphiQLOptions } from "graphql-yoga";
import { graphiqlAssets } from "./assets.js";
import { EXAMPLES } from "./examples.js";
import { KEY_STORAGE, page, scriptJson } from "./layout.js";

const GRAPHIQL_TITLE = "Public Data API — GraphQL";

/** GraphiQL's own options: the title and the example tabs. */
export const GRAPHIQL_OPTIONS: GraphiQLOptions = {
  title: GRAPHIQL_TITLE,
  defaultTabs: EXAMPLES.map((e) => ({ query: e.query, variables: e.variables ? JSON.stringify(e.variables, null, 2) : null })),
  // The key goes in from the key bar, never into GraphiQL's stored header tabs.
  shouldPersistHeaders: false,
};

/** Renders the page; yoga calls it with the options above (and its endpoint). */
export async function renderGraphiQLPage(options?: GraphiQLOptions): Promise<string> {
  const assets = await graphiqlAssets();
  const workers = Object.fromEntries(Object.entries(assets.workers).map(([label, a]) => [label, a.path]));
  return page(
    options?.title ?? GRAPHIQL_TITLE,
    `<div id="graphiql"></div>
<script>self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_id, label) => (${scriptJson(workers)})[label] };</script>
<script src="${assets.script.path}"></script>
<script>
(() => {
  const options = ${scriptJson(options ?? GRAPHIQL_OPTIONS)};
  const key = localStorage.getItem(${scriptJson(KEY_STORAGE)});
  if (key) options.additionalHeaders = { Authorization: "Bearer " + key };
  else document.getElementById("key-state").textContent = "paste a key to run queries and load the schema";
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById("graphiql"), options);
})();
</script>`,
    `<link rel="stylesheet" href="${assets.style.path}">
<style>body { height: 100vh; display: flex; flex-direction: column; } #graphiql { flex: 1; min-height: 0; }</style>`,
  );
}
