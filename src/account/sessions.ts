/**
 * Account holders' ways in to "My API Keys" (docs/contract.md §1a): one-time
 * sign-in links issued by an operator, and sessions.
 *
 * - A link carries a random token; only its SHA-256 hash is stored, with an
 *   expiry. Redeeming it marks it used in the same statement, so it works once.
 * - A session is a row (the SHA-256 of its random id, the account, an expiry
 *   of at most 12 hours) and a cookie holding the id sealed with the session
 *   secret (iron-session: encrypted and signed), so a forged or altered cookie
 *   is no session at all, and signing out ends the session on the server too.
 * - Each session has a CSRF token derived from its id with the secret.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { sealData, unsealData } from "iron-session";
import type { Database } from "../db/driver.js";
import { sha256Hex } from "../sha256.js";

/** The longest a session lives. */
export const SESSION_MS = 12 * 60 * 60 * 1000;
/** The longest a sign-in link may be valid, in minutes (a day). */
export const MAX_LINK_MINUTES = 24 * 60;

/** How a holder signed in. */
export type SignInMethod = "link" | "oidc";

/** A signed-in account holder. */
export interface AccountSession {
  /** The key owner the session acts for: a link's owner, or the identity provider's `sub`. */
  account: string;
  /** Shown on the page only. */
  displayName: string;
  method: SignInMethod;
  expiresAt: Date;
  /** The token every changing request must carry. */
  csrf: string;
  /** The stored hash of the session's id. */
  hash: string;
}

/** Why a sign-in link is refused. */
export type LinkRefusal = "unknown" | "used" | "expired";

export interface AccountSessionsOptions {
  /** Seals cookies and derives CSRF tokens; at least 32 characters. */
  secret: string;
  /** The clock (tests move it). */
  now?: () => number;
}

const randomToken = () => randomBytes(32).toString("base64url");
/** A token has this form; anything else is refused before the database. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** The form of a value iron-session seals: iron's `Fe26.2*…` fields, then its format version. */
const SEALED = /^Fe26\.2\*[\w*-]+~2$/;

/** Issues a one-time sign-in link's token for `owner`, valid `minutes` from `now`. */
export async function issueSignInToken(
  db: Pick<Database, "query">,
  owner: string,
  minutes: number,
  now = Date.now(),
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken();
  const expiresAt = new Date(now + minutes * 60_000);
  await db.query(`INSERT INTO sign_in_token (hash, owner, created_at, expires_at) VALUES ($1, $2, $3, $4)`, [
    sha256Hex(token),
    owner,
    new Date(now),
    expiresAt,
  ]);
  return { token, expiresAt };
}

export class AccountSessions {
  private readonly now: () => number;

  constructor(
    private readonly db: Pick<Database, "query">,
    private readonly options: AccountSessionsOptions,
  ) {
    if (options.secret.length < 32) throw new Error("the session secret must be at least 32 characters");
    this.now = options.now ?? Date.now;
  }

  /**
   * The session secret: the configured one, or else the one stored in the
   * database (made by the first process that asks), shared by every process.
   */
  static async secretOf(db: Pick<Database, "query">, configured?: string): Promise<string> {
    if (configured) return configured;
    await db.query(`INSERT INTO session_secret (id, value) VALUES (1, $1) ON CONFLICT (id) DO NOTHING`, [randomToken()]);
    const [row] = await db.query<{ value: string }>(`SELECT value FROM session_secret WHERE id = 1`);
    return row!.value;
  }

  /** What a link's token would sign in as, without using it. */
  async checkLink(token: string): Promise<{ owner: string } | { refused: LinkRefusal }> {
    if (!TOKEN.test(token)) return { refused: "unknown" };
    const [row] = await this.db.query<{ owner: string; expires_at: Date; used_at: Date | null }>(
      `SELECT owner, expires_at, used_at FROM sign_in_token WHERE hash = $1`,
      [sha256Hex(token)],
    );
    if (!row) return { refused: "unknown" };
    if (row.used_at) return { refused: "used" };
    if (new Date(row.expires_at).getTime() <= this.now()) return { refused: "expired" };
    return { owner: row.owner };
  }

  /** Uses a link's token: the owner it signs in as, once; after that, or past its expiry, the refusal. */
  async redeemLink(token: string): Promise<{ owner: string } | { refused: LinkRefusal }> {
    if (!TOKEN.test(token)) return { refused: "unknown" };
    const now = new Date(this.now());
    const [row] = await this.db.query<{ owner: string }>(
      `UPDATE sign_in_token SET used_at = $2 WHERE hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING owner`,
      [sha256Hex(token), now],
    );
    return row ? { owner: row.owner } : this.checkLink(token);
  }

  /** Starts a session; returns the cookie value and when it ends. */
  async start(account: string, displayName: string, method: SignInMethod): Promise<{ cookie: string; expiresAt: Date }> {
    const id = randomToken();
    const expiresAt = new Date(this.now() + SESSION_MS);
    await this.db.query(
      `INSERT INTO account_session (hash, account, display_name, method, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [sha256Hex(id), account, displayName, method, new Date(this.now()), expiresAt],
    );
    return { cookie: await this.seal({ session: id }, SESSION_MS / 1000), expiresAt };
  }

  /** The session a cookie value opens, or null (no cookie, forged, altered, ended or expired). */
  async resume(cookie: string | undefined): Promise<AccountSession | null> {
    const id = (await this.unseal<{ session?: unknown }>(cookie))?.session;
    if (typeof id !== "string" || !TOKEN.test(id)) return null;
    const hash = sha256Hex(id);
    const [row] = await this.db.query<{ account: string; display_name: string; method: SignInMethod; expires_at: Date }>(
      `SELECT account, display_name, method, expires_at FROM account_session
        WHERE hash = $1 AND ended_at IS NULL AND expires_at > $2`,
      [hash, new Date(this.now())],
    );
    if (!row) return null;
    return {
      account: row.account,
      displayName: row.display_name,
      method: row.method,
      expiresAt: new Date(row.expires_at),
      csrf: this.csrfOf(hash),
      hash,
    };
  }

  /** Ends a session on the server: its cookie opens nothing any more. */
  async end(session: AccountSession): Promise<void> {
    await this.db.query(`UPDATE account_session SET ended_at = $2 WHERE hash = $1 AND ended_at IS NULL`, [
      session.hash,
      new Date(this.now()),
    ]);
  }

  /** Whether a presented CSRF token is the session's (in constant time). */
  csrfMatches(session: AccountSession, presented: string | null | undefined): boolean {
    if (typeof presented !== "string") return false;
    const a = Buffer.from(presented);
    const b = Buffer.from(session.csrf);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** Seals data into a cookie value (encrypted and signed) that `unseal` opens for `ttlSeconds`. */
  seal(data: Record<string, unknown>, ttlSeconds: number): Promise<string> {
    return sealData(data, { password: this.options.secret, ttl: ttlSeconds });
  }

  /** What a sealed value holds; null when it is absent, forged, altered or past its time. */
  async unseal<T extends Record<string, unknown>>(value: string | undefined): Promise<Partial<T> | null> {
    // iron-session's own parser reads "~2x" as "~2": anything but the exact form it writes is refused first.
    if (!value || value.length > 4096 || !SEALED.test(value)) return null;
    try {
      const data = await unsealData<T>(value, { password: this.options.secret });
      return Object.keys(data).length ? data : null;
    } catch {
      return null;
    }
  }

  private csrfOf(hash: string): string {
    return createHmac("sha256", this.options.secret).update(`csrf\0${hash}`).digest("base64url");
  }
}
