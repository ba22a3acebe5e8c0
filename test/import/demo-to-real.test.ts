/**
 * An operator's first real import (issue 66): `npm start` imports the demo
 * data, then the platform's export comes in with the same school codes under
 * other ids (and course ids of other courses). It imports over the demo, on
 * the default and on a PostgreSQL server beside a serving gateway, and the
 * service then answers what that export alone gives, to the keys it had:
 * the path docs/operations.md shows first ("From the demo to real data").
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/driver.js";
import { demoExportChunks } from "../../src/demo/index.js";
import { KeyStore } from "../../src/keys/store.js";
import { cli } from "../support/cli.js";
import { openDatabase } from "../../src/db/driver.js";
import { demoDatabase, freshDatabase, importObject } from "../support/databases.js";
import { type GatewayProcess, request, startGateway, stopAllGateways, stopGateway, waitReady } from "../support/gateway-process.js";
import { tempDir } from "../support/temp.js";
import { dumpTables, SERVICE_TABLES } from "./helpers.js";

const tmp = tempDir("demo-to-real-");
afterAll(async () => {
  await stopAllGateways();
}, 60_000);

interface School {
  id: number;
  code: string;
}
interface DemoExport {
  universities: School[];
  courses: { id: number; university_id: number }[];
}

/**
 * The platform's export as the operator gets it: the demo's records, with
 * every school under another school's id (NTU is not 1) and every course
 * under another course's id.
 */
function platformExport(): DemoExport {
  // Three days of observations, not the demo's 35: the same records otherwise, imported in a third of the time.
  const e = JSON.parse([...demoExportChunks({ days: 3 })].join("")) as DemoExport;
  const ids = e.universities.map((u) => u.id);
  const schoolId = new Map(ids.map((id, i) => [id, ids[(i + 5) % ids.length]!]));
  for (const u of e.universities) u.id = schoolId.get(u.id)!;
  const courseIds = e.courses.map((c) => c.id);
  for (const [i, c] of e.courses.entries()) {
    c.id = courseIds[courseIds.length - 1 - i]!;
    c.university_id = schoolId.get(c.university_id)!;
  }
  return e;
}

const REAL = platformExport();
const realFile = join(tmp, "platform-export.json");
writeFileSync(realFile, JSON.stringify(REAL));
const codeOf = (items: School[]) => Object.fromEntries(items.map((u) => [u.code, u.id]));

/** What every v1 list and detail answers (operations 1 to 6, 10 and 11), and a GraphQL document. */
const PATHS = [
  "/api/v1/universities",
  "/api/v1/courses?page_size=100",
  "/api/v1/courses?university=NTU&page_size=50",
  "/api/v1/courses?q=learning",
  `/api/v1/courses/${REAL.courses[0]!.id}`,
  "/api/v1/course_stats?group_by=school",
  "/api/v1/course_stats?university=NTU",
  "/api/v1/papers",
  "/api/v1/conferences",
  "/api/v1/hub/packs?limit=100",
];
const DOCUMENT = `{ universities(first: 50) { nodes { id databaseId code courses(first: 3) { nodes { id databaseId courseNameEnglish } } } } }`;

async function answers(gateway: GatewayProcess, key: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const path of PATHS) {
    const answer = await request(gateway, path, { key });
    out[path] = { status: answer.status, body: answer.json };
  }
  const graphql = await request(gateway, "/graphql", {
    key,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: DOCUMENT }),
  });
  out.graphql = { status: graphql.status, body: graphql.json };
  return out;
}

/** The answers of a gateway over a new database holding `REAL` alone, and that database's tables (once for both tests). */
let realAloneOnce: ReturnType<typeof importRealAlone> | undefined;
const realAlone = () => (realAloneOnce ??= importRealAlone());

async function importRealAlone(): Promise<{ answers: Record<string, unknown>; tables: Record<string, string> }> {
  const db = await freshDatabase();
  try {
    await importObject(db, REAL);
    const { key } = await createKey(db);
    const gateway = await startGateway("real-alone", { DATABASE_URL: db.url });
    try {
      await waitReady(gateway);
      return { answers: await answers(gateway, key), tables: await dumpTables(db) };
    } finally {
      await stopGateway(gateway);
    }
  } finally {
    await db.close();
  }
}

const createKey = (db: Database) => new KeyStore(db).create({ name: "test", perMinute: 100_000, perDay: 1_000_000 });

describe("from the demo to the platform's export", () => {
  it("on the default: npm start imports the demo, npm run import the export, and the development key gets the export's answers", async () => {
    const dataDir = join(tmp, "data");
    const first = await startGateway("demo", { DATA_DIR: dataDir, LOG_LEVEL: "info" });
    await waitReady(first, 200_000);
    const key = /Authorization: Bearer (uedu_\w+)/.exec(first.output())?.[1];
    expect(key, first.output()).toBeDefined();
    const demo = await request(first, "/api/v1/universities", { key: key! });
    expect(codeOf(demo.json.items).NTU).not.toBe(codeOf(REAL.universities).NTU);
    await stopGateway(first);

    const imported = await cli(dataDir, "import", [realFile], { timeoutMs: 180_000 });
    expect(imported, imported.stderr).toMatchObject({ code: 0, stdout: expect.stringMatching(/^imported 15 universities/) });

    const again = await startGateway("real", { DATA_DIR: dataDir });
    try {
      await waitReady(again, 200_000);
      const served = await answers(again, key!);
      expect(served["/api/v1/universities"]).toMatchObject({ status: 200 });
      expect(codeOf((served["/api/v1/universities"] as { body: { items: School[] } }).body.items)).toEqual(codeOf(REAL.universities));
      const alone = await realAlone();
      expect(served).toEqual(alone.answers);
      const db = await openDatabase({ dataDir });
      try {
        expect(imports(await dumpTables(db))).toEqual(imports(alone.tables));
      } finally {
        await db.close();
      }
    } finally {
      await stopGateway(again);
    }
  }, 600_000);

  it("on PostgreSQL: a gateway serving through the import answers every request, then the export's data to the same key and persisted document", async () => {
    const db = await demoDatabase();
    try {
      const { key } = await createKey(db);
      const gateway = await startGateway("serving", { DATABASE_URL: db.url });
      try {
        await waitReady(gateway);
        // A persisted document (automatic persisted queries), registered before the import.
        const query = `{ universities(first: 50) { nodes { databaseId code } } }`;
        const hash = createHash("sha256").update(query).digest("hex");
        const persisted = (body: object) =>
          request(gateway, "/graphql", {
            key,
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ ...body, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }),
          });
        expect((await persisted({ query })).status).toBe(200);
        const ntu = async () => codeOf((await request(gateway, "/api/v1/universities", { key })).json.items).NTU;
        const demoNtu = await ntu();

        let importing = true;
        const seen: { status: number; ntu: number | undefined; at: number }[] = [];
        const poll = (async () => {
          while (importing) {
            const answer = await request(gateway, "/api/v1/universities", { key, timeoutMs: 10_000 }).catch(() => ({
              status: 0,
              json: undefined,
            }));
            seen.push({ status: answer.status, ntu: answer.json?.items ? codeOf(answer.json.items).NTU : undefined, at: Date.now() });
            await new Promise((r) => setTimeout(r, 50));
          }
        })();
        const imported = await cli(join(tmp, "unused"), "import", [realFile], { env: { DATABASE_URL: db.url }, timeoutMs: 180_000 });
        const done = Date.now();
        await new Promise((r) => setTimeout(r, 2_000));
        importing = false;
        await poll;
        expect(imported, imported.stderr).toMatchObject({ code: 0 });
        expect(seen.filter((s) => s.status !== 200)).toEqual([]);
        // Once the export's NTU is served, the demo's never is again; and it is served within 2 s of the import's end.
        const firstNew = seen.findIndex((s) => s.ntu === codeOf(REAL.universities).NTU);
        expect(firstNew).toBeGreaterThanOrEqual(0);
        expect(seen.slice(firstNew).filter((s) => s.ntu !== codeOf(REAL.universities).NTU)).toEqual([]);
        expect(seen[firstNew]!.at).toBeLessThan(done + 2_000);
        expect(seen.filter((s) => s.ntu === demoNtu).length).toBeGreaterThan(0);

        // The same key, and the document by its hash alone, now give the export's data.
        const byHash = await persisted({});
        expect(byHash.status).toBe(200);
        const nodes: { databaseId: number; code: string }[] = byHash.json.data.universities.nodes;
        expect(codeOf(nodes.map((u) => ({ id: u.databaseId, code: u.code })))).toEqual(codeOf(REAL.universities));
        const alone = await realAlone();
        expect(imports(await dumpTables(db))).toEqual(imports(alone.tables));
      } finally {
        await stopGateway(gateway);
      }
    } finally {
      await db.close();
    }
  }, 600_000);
});

/**
 * The tables an import writes, of a dump: not the service's own (keys, usage,
 * sessions), the migrations' record, nor what a gateway computes from the data
 * at its own instant (the environment snapshots).
 */
const NOT_IMPORTED = new Set<string>([...SERVICE_TABLES, "_prisma_migrations", "school_snapshot", "school_day"]);
const imports = (dump: Record<string, string>) => Object.fromEntries(Object.entries(dump).filter(([t]) => !NOT_IMPORTED.has(t)));
