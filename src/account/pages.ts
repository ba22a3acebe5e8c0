/**
 * The pages of "My API Keys" (`/account/…`), server-rendered in the landing
 * page's frame and style. Every form that changes something carries the
 * session's CSRF token; no page ever holds a key but the one just created.
 */
import { SURFACE_NAMES, SURFACES } from "../keys/restrictions.js";
import type { KeyRecord } from "../keys/store.js";
import type { Limits } from "../limits/rate-limits.js";
import type { KeyUsage } from "../usage/report.js";
import { html, page } from "../pages/layout.js";
import type { AccountSession, LinkRefusal } from "./sessions.js";

/** The page's title, as the service description names it. */
const KEYS_TITLE = "My API Keys";

const n = (value: number) => value.toLocaleString("en-US");
const when = (date: Date | null) =>
  date ? `<time datetime="${date.toISOString()}">${html(date.toISOString().slice(0, 16).replace("T", " "))} UTC</time>` : "never";
const DAY_MS = 86_400_000;
/** How long before its expiry a key is shown with a warning. */
const EXPIRY_WARNING_MS = 7 * DAY_MS;

/** The expiries a holder chooses from, from now (null: never), by the form's value. */
export const EXPIRY_CHOICES: Record<string, { label: string; ms: number | null }> = {
  never: { label: "No expiry", ms: null },
  "7d": { label: "7 days", ms: 7 * DAY_MS },
  "30d": { label: "30 days", ms: 30 * DAY_MS },
  "90d": { label: "90 days", ms: 90 * DAY_MS },
  "365d": { label: "1 year", ms: 365 * DAY_MS },
};

/** How long an old secret keeps working after a roll, by the form's value. */
export const OVERLAP_CHOICES: Record<string, { label: string; ms: number }> = {
  none: { label: "none: it stops now", ms: 0 },
  "1h": { label: "1 hour", ms: 3_600_000 },
  "24h": { label: "24 hours", ms: DAY_MS },
  "7d": { label: "7 days", ms: 7 * DAY_MS },
};

const options = (choices: Record<string, { label: string }>) =>
  Object.entries(choices)
    .map(([value, { label }]) => `<option value="${value}">${html(label)}</option>`)
    .join("");

/** A key's expiry as its row shows it: never, the instant, and a warning in its last days. */
function expiryCell(key: KeyRecord, now: number): string {
  if (!key.expiresAt) return "never";
  if (key.revokedAt || !expiresSoon(key, now)) return when(key.expiresAt);
  const days = Math.ceil((key.expiresAt.getTime() - now) / DAY_MS);
  return `${when(key.expiresAt)} <strong class="warn">expires in ${days === 1 ? "less than a day" : `${days} days`}</strong>`;
}

const isExpired = (key: KeyRecord, now: number) => key.expiresAt !== null && key.expiresAt.getTime() <= now;

/** Whether a key expires within EXPIRY_WARNING_MS, and has not yet. */
const expiresSoon = (key: KeyRecord, now: number) =>
  key.expiresAt !== null && key.expiresAt.getTime() > now && key.expiresAt.getTime() - now <= EXPIRY_WARNING_MS;

const csrfField = (session: AccountSession) => `<input type="hidden" name="csrf" value="${html(session.csrf)}">`;

const STYLE = `<style>
  main { max-width: 60rem; margin: 0 auto; padding: 8px 20px 48px; }
  h1 { margin: 24px 0 4px; }
  .muted { color: var(--muted); }
  .who { display: flex; gap: 12px; align-items: center; justify-content: space-between; flex-wrap: wrap; }
  table { border-collapse: collapse; width: 100%; margin: 16px 0; font-size: 14px; }
  th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
  th { background: var(--soft); }
  .revoked { color: var(--muted); }
  svg.usage { display: block; }
  svg.usage rect { fill: var(--brand); }
  tr.deprecated-uses td { border-bottom: 1px solid var(--line); background: #fff8e6; font-size: 13px; }
  .notice { padding: 10px 14px; border-radius: 6px; border: 1px solid var(--line); background: var(--soft); margin: 16px 0; }
  .notice.error { border-color: #c0392b; background: #fdf0ee; }
  .notice.created { border-color: #1e8449; background: #eefaf2; }
  .notice.warning, tr.warn td { border-color: #b9770e; background: #fff8e6; }
  strong.warn { display: block; color: #7e5109; font-size: 13px; }
  select { padding: 4px 6px; font: inherit; border: 1px solid var(--line); border-radius: 4px; }
  dl.key { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; }
  dl.key dt { color: var(--muted); }
  .restrictions { display: block; font-size: 13px; }
  form.restrictions textarea { font: 13px ui-monospace, monospace; padding: 4px 6px; border: 1px solid var(--line); border-radius: 4px; max-width: 100%; }
  form.restrictions fieldset { border: 1px solid var(--line); border-radius: 4px; margin: 8px 0; }
  form.restrictions input[type=number] { width: 7em; padding: 4px 6px; font: inherit; border: 1px solid var(--line); border-radius: 4px; }
  .secret { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
  .secret code { font-size: 15px; padding: 6px 8px; background: #fff; border: 1px solid var(--line); border-radius: 4px; word-break: break-all; }
  form.inline { display: inline; }
  button, .button { padding: 5px 12px; font: inherit; cursor: pointer; border-radius: 4px; border: 1px solid var(--brand); background: var(--brand); color: #fff; text-decoration: none; display: inline-block; }
  button.quiet, a.button.quiet { background: transparent; color: var(--brand); }
  button.danger { border-color: #c0392b; background: #c0392b; }
  input[type=text] { padding: 5px 8px; font: inherit; border: 1px solid var(--line); border-radius: 4px; width: 18em; max-width: 100%; }
</style>`;

/** A whole account page. */
const accountPage = (title: string, body: string) => page(`${title} · Public Data API`, `<main>\n${body}\n</main>`, STYLE);

/** The header of a signed-in page: who, and a sign-out. */
function whoBar(session: AccountSession): string {
  const account = session.displayName === session.account ? "" : ` (account <code>${html(session.account)}</code>)`;
  return `<div class="who"><p class="muted">Signed in as <strong>${html(session.displayName)}</strong>${account}, until ${when(session.expiresAt)}.</p>
<form method="post" action="/account/sign-out" class="inline">${csrfField(session)}<button type="submit" class="quiet" id="sign-out">Sign out</button></form></div>`;
}

export interface KeysPageOptions {
  session: AccountSession;
  keys: KeyRecord[];
  /** Today's requests of each key (null: not known just now). */
  usedToday: Map<number, number | null>;
  /** Each key's requests per day and deprecated uses (npm run usage's records); unset: not known just now. */
  usage?: Map<number, KeyUsage> | undefined;
  defaults: Limits;
  maxKeys: number;
  /** A key created (or rolled: with the old secret's end) by this request, shown this once. */
  created?: { key: string; prefix: string; name: string; rolled?: { previousPrefix: string; until: Date; overlap: boolean } };
  /** The clock, in epoch ms: what has expired, and what expires soon. */
  now?: number;
  /** A message about what this request did. */
  notice?: { kind: "error" | "info"; text: string };
}

export function keysPage(o: KeysPageOptions): string {
  const now = o.now ?? Date.now();
  const active = o.keys.filter((k) => !k.revokedAt).length;
  const expiringSoon = o.keys.filter((k) => !k.revokedAt && expiresSoon(k, now));
  const rows = o.keys
    .map((k) => {
      const used = o.usedToday.get(k.id);
      const perDay = k.perDay ?? o.defaults.perDay;
      const status = k.revokedAt ? `revoked ${when(k.revokedAt)}` : isExpired(k, now) ? `expired ${when(k.expiresAt)}` : "active";
      const action = k.revokedAt
        ? ""
        : `<a class="button quiet" href="/account/keys/${k.id}" data-manage="${html(k.prefix)}">Manage…</a>
<a class="button quiet" href="/account/keys/${k.id}/revoke" data-revoke="${html(k.prefix)}" style="background:transparent;color:#c0392b;border-color:#c0392b">Revoke…</a>`;
      const rowClass = k.revokedAt ? "revoked" : expiringSoon.includes(k) ? "active warn" : "active";
      return `<tr class="${rowClass}" data-prefix="${html(k.prefix)}">
<td>${html(k.name)}${restrictionSummary(k)}</td><td><code>${html(k.prefix)}…</code></td><td>${when(k.createdAt)}</td><td>${when(k.lastUsedAt)}</td>
<td class="expires">${expiryCell(k, now)}</td>
<td>${n(k.perMinute ?? o.defaults.perMinute)}${k.perMinute === null ? ' <span class="muted">(default)</span>' : ""}</td>
<td>${n(perDay)}${k.perDay === null ? ' <span class="muted">(default)</span>' : ""}</td>
<td class="today">${k.revokedAt ? "—" : used === null || used === undefined ? "unknown" : `${n(used)} of ${n(perDay)}`}</td>
<td class="usage">${usageCell(o.usage?.get(k.id))}</td>
<td class="status">${status}</td><td>${action}</td></tr>${deprecatedRow(k, o.usage?.get(k.id))}`;
    })
    .join("\n");
  const rolled = o.created?.rolled;
  const heading = rolled
    ? `<strong>The new secret of your key “${html(o.created!.name)}”.</strong> The old one (<code>${html(rolled.previousPrefix)}…</code>) ${
        rolled.overlap ? `works until ${when(rolled.until)}, then stops everywhere` : "stopped working now"
      }.`
    : `<strong>Your new key “${html(o.created?.name ?? "")}”.</strong>`;
  const created = o.created
    ? `<div class="notice created" id="created" role="status">
<p>${heading} Copy it now: <strong>it cannot be shown again</strong>. Only its SHA-256 hash is stored; if you lose it, roll the key or create another.</p>
<div class="secret"><code id="new-key">${html(o.created.key)}</code><button type="button" id="copy-key">Copy</button></div>
</div>
<script>
document.getElementById("copy-key").addEventListener("click", async (event) => {
  await navigator.clipboard.writeText(document.getElementById("new-key").textContent);
  event.target.textContent = "Copied";
});
</script>`
    : "";
  const notice = o.notice ? `<div class="notice ${o.notice.kind}" role="status">${html(o.notice.text)}</div>` : "";
  const warning = expiringSoon.length
    ? `<div class="notice warning" id="expiring" role="status">${
        expiringSoon.length === 1 ? "One key expires" : `${n(expiringSoon.length)} keys expire`
      } within 7 days: ${expiringSoon.map((k) => `“${html(k.name)}” (<code>${html(k.prefix)}…</code>) ${when(k.expiresAt)}`).join(", ")}.
Set a later expiry on its Manage page, or move its programs to another key.</div>`
    : "";
  const form =
    active >= o.maxKeys
      ? `<p class="muted">You hold ${n(o.maxKeys)} active keys, the most an account may hold. Revoke one to create another.</p>`
      : `<form method="post" action="/account/keys" id="create-key">${csrfField(o.session)}
<label for="key-name">New key’s name</label> <input type="text" id="key-name" name="name" maxlength="100" required placeholder="e.g. course dashboard">
<label for="key-expires">expires after</label> <select id="key-expires" name="expires">${options(EXPIRY_CHOICES)}</select>
<button type="submit">Create key</button></form>`;
  return accountPage(
    KEYS_TITLE,
    `<h1>${KEYS_TITLE}</h1>
${whoBar(o.session)}
${created}${notice}${warning}
<p>Send a key as <code>Authorization: Bearer &lt;API_KEY&gt;</code> to <a href="/api/v1">REST</a>, <a href="/graphql">GraphQL</a> and MCP.
Each key may make the requests a minute and a day shown below; a higher quota comes from the platform administrator.
You may hold ${n(o.maxKeys)} active keys.</p>
${form}
${
  o.keys.length
    ? `<table id="keys"><thead><tr><th>Name</th><th>Key</th><th>Created</th><th>Last used</th><th>Expires</th><th>Per minute</th><th>Per day</th><th>Today</th><th>Last ${USAGE_DAYS} days</th><th>Status</th><th></th></tr></thead>
<tbody>
${rows}
</tbody></table>`
    : `<p class="muted" id="no-keys">You have no keys yet.</p>`
}`,
  );
}

/** How many UTC days the usage chart shows. */
export const USAGE_DAYS = 30;

/** A key's requests per day as a small bar chart (SVG, no script), with its total in words for every reader. */
function usageCell(usage: KeyUsage | undefined): string {
  if (!usage) return '<span class="muted">unknown</span>';
  const total = usage.perDay.reduce((sum, d) => sum + d.requests, 0);
  const most = Math.max(0, ...usage.perDay.map((d) => d.requests));
  const [w, h] = [4, 28];
  const bars = usage.perDay
    .map((d, i) => {
      const height = d.requests === 0 ? 0 : Math.max(1, Math.round((d.requests / most) * h));
      return `<rect x="${i * w}" y="${h - height}" width="${w - 1}" height="${height}"><title>${d.day}: ${n(d.requests)}</title></rect>`;
    })
    .join("");
  const width = usage.perDay.length * w;
  const label = `${n(total)} requests in the last ${usage.perDay.length} days (UTC), at most ${n(most)} a day`;
  return `<svg class="usage" role="img" aria-label="${html(label)}" width="${width}" height="${h}" viewBox="0 0 ${width} ${h}">${bars}</svg><span class="muted">${n(total)}</span>`;
}

/** The deprecated coordinates a key used in the window, under its row, with what replaces each. */
function deprecatedRow(key: KeyRecord, usage: KeyUsage | undefined): string {
  if (!usage?.deprecated.length) return "";
  const items = usage.deprecated
    .map(
      (d) =>
        `<li><code>${html(d.coordinate)}</code>: ${html(d.reason)} ${n(d.requests)} requests, last ${when(new Date(d.lastUsed))}.</li>`,
    )
    .join("");
  return `\n<tr class="deprecated-uses" data-prefix="${html(key.prefix)}"><td colspan="11"><strong>Uses what is deprecated</strong> (it will be removed; see the changelog):<ul>${items}</ul></td></tr>`;
}

/** A key's restrictions in a few words, for its row. */
function restrictionSummary(key: KeyRecord): string {
  const r = key.restrictions;
  const words = [
    r.origins && `pages on ${r.origins.join(", ")}`,
    r.addresses && `from ${r.addresses.join(", ")}`,
    r.surfaces && `${r.surfaces.map((s) => SURFACE_NAMES[s]).join(" and ")} only`,
    r.documentsOnly && "trusted GraphQL documents only",
    r.visitorPerMinute && `${n(r.visitorPerMinute)} a minute per visitor`,
    r.visitorPerDay && `${n(r.visitorPerDay)} a day per visitor`,
  ].filter(Boolean);
  return words.length ? `<span class="muted restrictions">Restricted: ${html(words.join("; "))}</span>` : "";
}

/** The restrictions form of a key's page, filled with what it holds. */
function restrictionsForm(session: AccountSession, key: KeyRecord): string {
  const r = key.restrictions;
  const surfaces = SURFACES.map(
    (s) =>
      `<label><input type="checkbox" name="surfaces" value="${s}"${!r.surfaces || r.surfaces.includes(s) ? " checked" : ""}> ${SURFACE_NAMES[s]}</label>`,
  ).join(" ");
  return `<form method="post" action="/account/keys/${key.id}/restrictions" id="restrict-key" class="restrictions">${csrfField(session)}
<p><label for="origins">Web pages that may use it: their origins, one a line (<code>https://app.example.org</code>,
<code>https://*.example.org</code>); empty: any</label><br>
<textarea id="origins" name="origins" rows="3" cols="50">${html((r.origins ?? []).join("\n"))}</textarea></p>
<p><label for="addresses">Client addresses that may use it: IP addresses or CIDR ranges, one a line; empty: any</label><br>
<textarea id="addresses" name="addresses" rows="2" cols="50">${html((r.addresses ?? []).join("\n"))}</textarea></p>
<fieldset><legend>Surfaces</legend>${surfaces}</fieldset>
<p><label><input type="checkbox" name="documents_only" value="yes"${r.documentsOnly ? " checked" : ""}> On GraphQL, only trusted documents
(the ones the platform trusts, or a set the operator attached to this key), sent by id or text</label></p>
<p><label for="visitor-minute">Requests one visitor (client address) may make a minute</label>
<input type="number" id="visitor-minute" name="visitor_per_minute" min="1" value="${r.visitorPerMinute ?? ""}">
<label for="visitor-day">and a day</label>
<input type="number" id="visitor-day" name="visitor_per_day" min="1" value="${r.visitorPerDay ?? ""}"> (empty: no limit per visitor)</p>
<button type="submit">Save restrictions</button></form>`;
}

/** One key's page: what it is, its restrictions, a new expiry, and a roll to a new secret. */
export function managePage(
  session: AccountSession,
  key: KeyRecord,
  notice?: { kind: "info" | "error"; text: string },
  now = Date.now(),
): string {
  const previous = key.rolledAt
    ? `<dt>Rolled</dt><dd>${when(key.rolledAt)}; the old secret ${
        key.previousUntil && key.previousUntil.getTime() > now ? `works until ${when(key.previousUntil)}` : "no longer works"
      }</dd>`
    : "";
  return accountPage(
    `Manage “${key.name}”`,
    `<h1>Manage “${html(key.name)}”</h1>
${whoBar(session)}
${notice ? `<div class="notice ${notice.kind}" role="status" id="saved">${html(notice.text)}</div>` : ""}
<dl class="key"><dt>Key</dt><dd><code>${html(key.prefix)}…</code></dd><dt>Created</dt><dd>${when(key.createdAt)}</dd>
<dt>Expires</dt><dd id="expiry">${expiryCell(key, now)}</dd>${previous}</dl>
<h2>Restrictions</h2>
<p>A key in a web page can be read by anyone who opens the page. Restrict it to your pages' origins (browsers send them; other
programs can forge them), to your servers' addresses, to the surfaces and GraphQL documents your app uses, and give each
visitor a share of it, so that one visitor, or one who copies the key, cannot use it all. A request outside them is refused
with a 403 that says which.</p>
${restrictionsForm(session, key)}
<h2>Expiry</h2>
<p>An expired key is refused on every surface with a message that says it expired. You can change the expiry at any time.</p>
<form method="post" action="/account/keys/${key.id}/expiry" id="set-expiry">${csrfField(session)}
<label for="expires">New expiry, from now</label> <select id="expires" name="expires">${options(EXPIRY_CHOICES)}</select>
<button type="submit">Set expiry</button></form>
<h2>Roll the secret</h2>
<p>Rolling gives this key a new secret, shown once. Its name, limits, expiry and history stay. The old secret keeps working
for the overlap you choose, while you put the new one in your programs, then is refused everywhere. If the key leaked, choose none.</p>
<form method="post" action="/account/keys/${key.id}/roll" id="roll-key">${csrfField(session)}
<label for="overlap">The old secret keeps working for</label> <select id="overlap" name="overlap">${options(OVERLAP_CHOICES)}</select>
<button type="submit">Roll the secret</button></form>
<p><a href="/account/keys">Back to ${KEYS_TITLE}</a></p>`,
  );
}

/** The confirmation before a revocation. */
export function revokePage(session: AccountSession, key: KeyRecord): string {
  return accountPage(
    "Revoke a key",
    `<h1>Revoke “${html(key.name)}”?</h1>
${whoBar(session)}
<p>The key <code>${html(key.prefix)}…</code> will be refused on every surface within a second. This cannot be undone:
a program that uses it will need a new key.</p>
<form method="post" action="/account/keys/${key.id}/revoke">${csrfField(session)}
<button type="submit" class="danger" id="confirm-revoke">Revoke this key</button> <a href="/account/keys">Keep it</a></form>`,
  );
}

export interface SignInPageOptions {
  /** The provider's sign-in, when one is configured. */
  oidc: boolean;
  /** Where to go once signed in. */
  next: string;
  /** Why the holder is here again (a failed sign-in). */
  problem?: string;
}

/** The way in: the identity provider, or a sign-in link from an operator. */
export function signInPage(o: SignInPageOptions): string {
  const provider = o.oidc
    ? `<p><a class="button" id="oidc-sign-in" href="/account/oidc/start?next=${encodeURIComponent(o.next)}">Sign in with the platform account</a></p>`
    : "";
  return accountPage(
    "Sign in",
    `<h1>Sign in to ${KEYS_TITLE}</h1>
${o.problem ? `<div class="notice error" role="alert">${html(o.problem)}</div>` : ""}
${provider}
<p>${o.oidc ? "Or open" : "Open"} a one-time sign-in link from the platform's operator, who makes one with
<code>npm run keys -- sign-in-link --owner NAME</code>. A link works once, for a short while.</p>`,
  );
}

/** A valid link, before it is used: one button signs in (so that a link previewer fetching it does not use it up). */
export function linkPage(owner: string, token: string, next: string): string {
  return accountPage(
    "Sign in",
    `<h1>Sign in to ${KEYS_TITLE}</h1>
<p>This link signs you in as <strong>${html(owner)}</strong>. It works once.</p>
<form method="post" action="/account/sign-in"><input type="hidden" name="token" value="${html(token)}"><input type="hidden" name="next" value="${html(next)}">
<button type="submit" id="use-link">Sign in as ${html(owner)}</button></form>`,
  );
}

const LINK_REFUSALS: Record<LinkRefusal, string> = {
  unknown: "This sign-in link is not valid. Check that it was copied whole, or ask the operator for a new one.",
  used: "This sign-in link has been used already: a link works once. Ask the operator for a new one.",
  expired: "This sign-in link has expired. Ask the operator for a new one.",
};

/** A link that cannot be used, and why. */
export function linkRefusedPage(refusal: LinkRefusal): string {
  return accountPage(
    "Sign-in link refused",
    `<h1>Sign-in link refused</h1>\n<div class="notice error" role="alert" id="refusal">${html(LINK_REFUSALS[refusal])}</div>`,
  );
}

/** A refused request (CSRF, a key that is not the holder's, bad input). */
export function problemPage(title: string, text: string): string {
  return accountPage(
    title,
    `<h1>${html(title)}</h1>\n<div class="notice error" role="alert">${html(text)}</div>\n<p><a href="/account/keys">Back to ${KEYS_TITLE}</a></p>`,
  );
}
