/** `GET /healthz` and `GET /readyz` (docs/contract.md §1), answered before any key check. */
import type { Plugin } from "graphql-yoga";
import { withDeadline } from "../db/availability.js";
import type { Database } from "../db/driver.js";
import { pendingMigrations } from "../db/migrate.js";

export interface HealthOptions {
  /** The database whose reachability and migrations decide readiness. */
  db: Pick<Database, "query">;
  /** Longest readiness waits for the database before it answers 503. Default 800 ms. */
  timeoutMs?: number;
  /** How long one readiness answer is reused (and a check under way shared). Default 1,000 ms. */
  cacheMs?: number;
  /**
   * Whether the process is shutting down (SIGTERM or SIGINT): from then on
   * readiness answers 503, whatever the database, so that a load balancer
   * stops sending while the requests in flight are answered.
   */
  stopping?: () => boolean;
}

interface Readiness {
  status: 200 | 503;
  body: { status: string; reason?: string };
}

/** Liveness always answers 200 while the process runs; readiness asks the database. */
export function useHealth(options: HealthOptions): Plugin {
  const timeoutMs = options.timeoutMs ?? 800;
  const cacheMs = options.cacheMs ?? 1_000;
  let last: { at: number; answer: Promise<Readiness> } | undefined;

  async function check(): Promise<Readiness> {
    try {
      const pending = await withDeadline(
        options.db.query("SELECT 1").then(() => pendingMigrations(options.db)),
        timeoutMs,
        "readiness check",
      );
      return pending.length === 0
        ? { status: 200, body: { status: "ready" } }
        : { status: 503, body: { status: "not ready", reason: `${pending.length} pending migration(s)` } };
    } catch {
      return { status: 503, body: { status: "not ready", reason: "database unreachable" } };
    }
  }

  /** A load balancer polling often costs the database one check a second, not one per poll. */
  function readiness(): Promise<Readiness> {
    const now = Date.now();
    if (!last || now - last.at >= cacheMs) last = { at: now, answer: check() };
    return last.answer;
  }

  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== "/healthz" && url.pathname !== "/readyz") return;
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        endResponse(
          new fetchAPI.Response(request.method === "HEAD" ? null : JSON.stringify(body), {
            status,
            headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
          }),
        );
      if (request.method !== "GET" && request.method !== "HEAD") {
        return json(405, { status: "method not allowed" }, { allow: "GET, HEAD" });
      }
      if (url.pathname === "/healthz") return json(200, { status: "ok" });
      if (url.pathname === "/readyz") {
        if (options.stopping?.()) return json(503, { status: "stopping" }, { "retry-after": "1" });
        const { status, body } = await readiness();
        return json(status, body, status === 503 ? { "retry-after": "1" } : {});
      }
    },
  };
}
