/**
 * `GET /docs`: the REST reference, rendered in the browser by Swagger UI
 * from `/openapi.json`, with every file served by the gateway. The key saved
 * in the key bar authorizes its "Try it out" calls.
 *
 * Accessible as axe-core checks it (test/pages/browser.test.ts), through
 * Swagger UI's own options and a style sheet of ours, never its files: no
 * deep links (each operation's link sat inside its expand button, a nested
 * control), no server picker (an unnamed select; there is one server, this
 * gateway), and darker colours where Swagger UI's text falls short of 4.5:1.
 */
import { swaggerAssets } from "./assets.js";
import { KEY_STORAGE, page, scriptJson } from "./layout.js";

/** Swagger UI's colours that fail WCAG AA contrast, made darker (each at least 4.5:1 on its background). */
const CONTRAST = `
  .swagger-ui .info a, .swagger-ui .info .url { color: #1f5f8b; }
  .swagger-ui .btn.authorize { color: #17693f; border-color: #17693f; }
  .swagger-ui .btn.authorize svg { fill: #17693f; }
  .swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1f5f8b; }
  .swagger-ui .json-schema-2020-12-expand-deep-button { color: #4b5563; }
  .swagger-ui .info .title small { background: #5b6470; }
  .swagger-ui .info .title small.version-stamp { background: #3d6b00; }
`;

export async function docsPage(): Promise<string> {
  const assets = await swaggerAssets();
  return page(
    "Public Data API — REST reference",
    `<div id="swagger"></div>
<script src="${assets.script.path}"></script>
<script>
(() => {
  const key = localStorage.getItem(${scriptJson(KEY_STORAGE)});
  if (!key) document.getElementById("key-state").textContent = "paste a key to try the operations";
  const ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger",
    deepLinking: false,
    validatorUrl: null,
    plugins: [() => ({ wrapComponents: { ServersContainer: () => () => null } })],
    tryItOutEnabled: true,
    onComplete: () => {
      if (key) ui.preauthorizeApiKey("bearer", key);
    },
  });
})();
</script>`,
    `<link rel="stylesheet" href="${assets.style.path}">
<style>${CONTRAST}</style>`,
  );
}
