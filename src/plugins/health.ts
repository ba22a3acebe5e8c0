/** `GET /healthz` and `GET /readyz` (CONTRACT §1), answered before any key check. */
import type { Plugin } from "graphql-yoga";
import type { Database } from "../db/driver.js";
import { pendingMigrations } from "../db/migrate.js";

export interface HealthOptions {
  /** The database whose reachability and migrations decide readiness. */
  db: Pick<Database, "query">;
}

/** Liveness always answers 200 while the process runs; readiness asks the database. */
export function useHealth(options: HealthOptions): Plugin {
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
        try {
          const pending = await options.db.query("SELECT 1").then(() => pendingMigrations(options.db));
          return pending.length === 0
            ? json(200, { status: "ready" })
            : json(503, { status: "not ready", reason: `${pending.length} pending migration(s)` });
        } catch {
          return json(503, { status: "not ready", reason: "database unreachable" });
        }
      }
    },
  };
}
