/**
 * An example answer of each REST operation, taken from the demo data
 * (`npm run openapi:examples` writes them to rest/examples.json; the OpenAPI
 * document shows each beside its 200 answer). The demo is built with a fixed
 * seed and clock, so the examples change only when the data or the answers
 * do, and a test regenerates them to prove the committed ones true.
 */
import { createReadClient } from "../db/client.js";
import type { Database } from "../db/driver.js";
import { demoExportRecords } from "../demo/index.js";
import { importExport } from "../import/apply.js";
import { createGateway } from "../server.js";
import type { Example } from "../../rest/example-file.js";
import { ROUTES } from "../../rest/routes.js";

/** The clock of the examples: the demo's observations end at this hour, and "today" is its date. */
const NOW = new Date("2026-11-20T12:00:00Z");
/** Lists are cut to this many items in an example (their `total` stays the true count). */
const ITEMS = 2;

/** Each route's example request; `{first_*}` stands for an id the data holds. */
const REQUESTS: Record<string, string> = {
  "/api/v1/universities": "/api/v1/universities",
  "/api/v1/courses": "/api/v1/courses?university=NTU&page_size=2",
  "/api/v1/courses/{course_id}": "/api/v1/courses/{first_course}",
  "/api/v1/course_stats": "/api/v1/course_stats?group_by=school",
  "/api/v1/papers": "/api/v1/papers",
  "/api/v1/conferences": "/api/v1/conferences",
  "/api/v1/environment/schools/{school_ref}": "/api/v1/environment/schools/NTU",
  "/api/v1/environment/schools/{school_ref}/history": "/api/v1/environment/schools/NTU/history?days=3",
  "/api/v1/environment/snapshot": "/api/v1/environment/snapshot?limit=2",
  "/api/v1/hub/packs": "/api/v1/hub/packs?limit=2",
  "/api/v1/hub/packs/{pack_id}": "/api/v1/hub/packs/{first_pack}",
};

/** A body with its lists cut to {@link ITEMS} items. */
function shortened(body: unknown): unknown {
  if (Array.isArray(body)) return body.slice(0, ITEMS).map(shortened);
  if (body && typeof body === "object") return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, shortened(v)]));
  return body;
}

/**
 * Builds the examples: the demo data imported into `db` (empty and migrated;
 * the caller throws it away), each request answered by the gateway.
 */
export async function collectExamples(db: Database): Promise<Record<string, Example>> {
  const prisma = createReadClient(db);
  try {
    await importExport(db, demoExportRecords({ now: NOW, days: 3 }));
    const gateway = createGateway({ db, prisma, auth: false, now: () => NOW });
    const get = async (path: string) => {
      const response = await gateway.fetch(`http://127.0.0.1:4000${path}`);
      const body = (await response.json()) as { items?: { id: unknown }[] };
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
      return body;
    };
    const ids = {
      first_course: (await get("/api/v1/courses?page_size=1")).items![0]!.id,
      first_pack: (await get("/api/v1/hub/packs?limit=1")).items![0]!.id,
    };
    const examples: Record<string, Example> = {};
    for (const route of ROUTES) {
      const template = REQUESTS[route.path];
      if (!template) throw new Error(`src/cli/rest-examples.ts: no example request for ${route.path}; add one to REQUESTS`);
      const request = template.replace(/\{(\w+)\}/g, (_, name: keyof typeof ids) => encodeURIComponent(String(ids[name])));
      examples[route.operation] = { request, body: shortened(await get(request)) };
    }
    return examples;
  } finally {
    await prisma.$disconnect();
  }
}
