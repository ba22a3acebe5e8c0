/**
 * The command line of `npm run keys` (../commands/keys.ts), apart from
 * the command: the entry (src/cli/keys.ts) answers `--help` and a usage mistake
 * from it alone, before it loads the command, the configuration and the
 * database's packages.
 */
import type { CommandLine } from "../args.js";

export const LINE = {
  name: "keys",
  usage: `usage: npm run keys -- create --name NAME [--owner O] [--per-minute N] [--per-day N] [--expires WHEN] [--json]
       npm run keys -- list [--expiring DURATION] [--json]
       npm run keys -- revoke <id|prefix>
       npm run keys -- roll <id|prefix> [--overlap none|DURATION] [--json]
       npm run keys -- set-limits <id|prefix> [--per-minute N|default] [--per-day N|default]
       npm run keys -- set-expiry <id|prefix> --expires WHEN|never
       npm run keys -- restrict <id|prefix> [RESTRICTIONS]
       npm run keys -- sign-in-link --owner NAME [--minutes 15] [--json]

Creates, lists, rolls and revokes API keys, and sets a key's own limits,
expiry and restrictions. A created or rolled key is printed once; only its
SHA-256 hash is stored.

RESTRICTIONS (on create and restrict; each one given replaces that one):
  --origins https://app.example.org,https://*.example.org|none
                      the page origins whose requests it takes (Origin, else Referer)
  --addresses 203.0.113.0/24,2001:db8::/32|none
                      the client addresses it takes (behind TRUSTED_PROXIES, the forwarded one)
  --surfaces rest,graphql,mcp|all
  --documents-only yes|no
                      on GraphQL, only its own documents (--documents), else TRUSTED_DOCUMENTS
  --documents FILE|none
                      its own trusted documents, in TRUSTED_DOCUMENTS's format
  --per-visitor-minute N|none, --per-visitor-day N|none
                      requests one client address may make with it

WHEN is a date (2027-01-31, 00:00 UTC), an instant (2027-01-31T12:00:00Z) or a
DURATION from now; a DURATION is a number and a unit, s, m, h or d (30d, 12h).
list --expiring 7d lists the active keys that expire within 7 days.

roll gives the key a new secret; everything else stays (id, name, limits,
history). The old secret keeps working for --overlap (default none, at most
7d), then is refused on every gateway.

sign-in-link prints a one-time link that signs the account holder NAME in to
"My API Keys" (PUBLIC_URL/account/…), where they create, see and revoke the
keys whose owner is NAME. It works once, for --minutes (1 to 1440, default 15).`,
  options: {
    name: { type: "string" },
    owner: { type: "string" },
    "per-minute": { type: "string" },
    "per-day": { type: "string" },
    minutes: { type: "string" },
    expires: { type: "string" },
    expiring: { type: "string" },
    overlap: { type: "string" },
    origins: { type: "string" },
    addresses: { type: "string" },
    surfaces: { type: "string" },
    "documents-only": { type: "string" },
    documents: { type: "string" },
    "per-visitor-minute": { type: "string" },
    "per-visitor-day": { type: "string" },
    json: { type: "boolean", default: false },
  },
  positionals: { min: 1, max: 2 },
} satisfies CommandLine;
