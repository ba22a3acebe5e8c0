/**
 * `GET /docs`: the REST reference, rendered in the browser by Swagger UI
 * from `/openapi.json`, with every file served by the gateway. The key saved
 * in the key bar authorizes its "Try it out" calls.
 */
import { swaggerAssets } from "./assets.js";
import { KEY_STORAGE, page, scriptJson } from "./layout.js";

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
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: true,
    onComplete: () => {
      if (key) ui.preauthorizeApiKey("bearer", key);
    },
  });
})();
</script>`,
    `<link rel="stylesheet" href="${assets.style.path}">`,
  );
}
