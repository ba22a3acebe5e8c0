/**
 * The GraphiQL page at `GET /graphql` (a browser asking for HTML): yoga's
 * GraphiQL with every file served by the gateway (./assets.ts), the example
 * queries opened as tabs, and the key saved in the key bar sent with every
 * request GraphiQL makes, introspection included, so the Docs explorer loads
 * as soon as a key is there.
 *
 * GraphiQL draws each tab as an ARIA tab around two buttons (select, close):
 * nested controls, which a screen reader cannot reach (axe-core's
 * nested-interactive, serious). No option changes that markup, and its files
 * stay as they are; the page's own script makes the tabs a plain list of
 * buttons as GraphiQL draws them, the active one marked `aria-current`.
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

/**
 * GraphiQL's light theme where its text falls short of 4.5:1 (the Docs
 * explorer's links to types and its root types): darker, through its own
 * colour variables; and those links underlined, as links in text must be told
 * from the text by more than colour.
 */
const CONTRAST = `
  @media not (prefers-color-scheme: dark) { body:not(.graphiql-dark) .graphiql-container, body:not(.graphiql-dark) .graphiql-dialog { --color-info: 208, 100%, 36%; --color-warning: 36, 100%, 28%; } }
  body.graphiql-light .graphiql-container, body.graphiql-light .graphiql-dialog { --color-info: 208, 100%, 36%; --color-warning: 36, 100%, 28%; }
  .graphiql-container a.graphiql-doc-explorer-type-name { text-decoration: underline; }`;

/** Renders the page; yoga calls it with the options above (and its endpoint). */
export async function renderGraphiQLPage(options?: GraphiQLOptions): Promise<string> {
  const assets = await graphiqlAssets();
  const workers = Object.fromEntries(Object.entries(assets.workers).map(([label, a]) => [label, a.path]));
  return page(
    options?.title ?? GRAPHIQL_TITLE,
    `<main id="graphiql"></main>
<script>self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_id, label) => (${scriptJson(workers)})[label] };</script>
<script src="${assets.script.path}"></script>
<script>
(() => {
  const options = ${scriptJson(options ?? GRAPHIQL_OPTIONS)};
  const key = localStorage.getItem(${scriptJson(KEY_STORAGE)});
  if (key) options.additionalHeaders = { Authorization: "Bearer " + key };
  else document.getElementById("key-state").textContent = "paste a key to run queries and load the schema";
  const root = document.getElementById("graphiql");
  const plainTabs = () => {
    for (const list of root.querySelectorAll(".graphiql-tabs[role]")) list.removeAttribute("role");
    for (const tab of root.querySelectorAll(".graphiql-tab")) {
      tab.removeAttribute("role");
      tab.removeAttribute("aria-selected");
      const button = tab.querySelector(".graphiql-tab-button");
      if (!button) continue;
      if (tab.classList.contains("graphiql-tab-active")) button.setAttribute("aria-current", "true");
      else button.removeAttribute("aria-current");
    }
  };
  new MutationObserver(plainTabs).observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ["role", "aria-selected", "class"] });
  YogaGraphiQL.renderYogaGraphiQL(root, options);
})();
</script>`,
    `<link rel="stylesheet" href="${assets.style.path}">
<style>body { height: 100vh; display: flex; flex-direction: column; } #graphiql { flex: 1; min-height: 0; }${CONTRAST}</style>`,
  );
}
