/**
 * What the browser pages share: escaping, the page frame and style, and the
 * API key a user pastes once. The key lives in the browser's localStorage
 * under {@link KEY_STORAGE} and is only ever sent in the Authorization
 * header of the service's own requests.
 */
import { ICON } from "./assets.js";

/** Where the pages keep the pasted key. */
export const KEY_STORAGE = "uedu.apiKey";

/** Text made safe inside HTML (elements and quoted attributes). */
export const html = (text: string | number): string => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A value written into an inline script: JSON that cannot close the script element. */
export const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, "\\u003c");

const STYLE = `
  :root { color-scheme: light; --ink: #1d2731; --muted: #5b6b7a; --line: #d8e0e8; --brand: #1f5f8b; --soft: #f3f6f9; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.55 system-ui, -apple-system, "Segoe UI", "Noto Sans CJK TC", "Noto Sans", sans-serif; color: var(--ink); }
  a { color: var(--brand); }
  main code, main pre { font: 13px/1.45 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
  main pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; overflow-x: auto; margin: 0; }
  .keybar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; padding: 8px 16px; background: var(--brand); color: #fff; }
  .keybar a { color: #fff; font-weight: 600; text-decoration: none; margin-right: 8px; }
  .keybar input { flex: 1 1 18em; max-width: 32em; padding: 5px 8px; border: 0; border-radius: 4px; font: inherit; }
  .keybar button { padding: 5px 10px; border: 1px solid #fff; border-radius: 4px; background: transparent; color: #fff; font: inherit; cursor: pointer; }
  .keybar .state { opacity: .9; }
`;

/**
 * The bar at the top of every page: a link home, and the key field. Saving
 * stores the key and reloads, so that whatever the page loaded without a key
 * (GraphiQL's schema) loads again with it.
 */
const KEY_BAR = `
<header>
<form class="keybar" id="keybar" autocomplete="off">
  <a href="/">Public Data API</a>
  <label for="api-key">API key</label>
  <input id="api-key" name="api-key" type="password" placeholder="uedu_… (kept in this browser only)" spellcheck="false">
  <button type="submit" id="save-key">Save</button>
  <button type="button" id="forget-key">Forget</button>
  <span class="state" id="key-state"></span>
</form>
</header>
<script>
(() => {
  const STORAGE = ${scriptJson(KEY_STORAGE)};
  const form = document.getElementById("keybar");
  const input = document.getElementById("api-key");
  const state = document.getElementById("key-state");
  const saved = localStorage.getItem(STORAGE);
  state.textContent = saved ? "saved: " + saved.slice(0, 10) + "…" : "no key saved";
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) return;
    localStorage.setItem(STORAGE, key);
    location.reload();
  });
  document.getElementById("forget-key").addEventListener("click", () => {
    localStorage.removeItem(STORAGE);
    location.reload();
  });
})();
</script>`;

/** A whole page: its title, extra head elements, and body. */
export function page(title: string, body: string, head = ""): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(title)}</title>
<link rel="icon" href="${ICON.path}" type="image/svg+xml">
<style>${STYLE}</style>
${head}
</head>
<body>
${KEY_BAR}
${body}
</body>
</html>
`;
}
