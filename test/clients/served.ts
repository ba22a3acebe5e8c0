/**
 * The gateway as a frontend team meets it, for the client tests of this
 * folder: the demo data, keys and limits, over a real socket. Each test file
 * starts one database and as many gateways over it as it needs (with or
 * without trusted documents).
 */
import { createReadClient, type ReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { demoExportRecords } from "../../src/demo/index.js";
import { importExport } from "../../src/import/apply.js";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import type { TrustedDocuments } from "../../src/plugins/persisted-documents.js";
import { createGateway } from "../../src/server.js";
import { freshDatabase } from "../support/databases.js";
import { type ListeningGateway, listen } from "../support/socket.js";

/** One request a client sent, and what came back, as the client saw them. */
export interface Exchange {
  method: string;
  url: string;
  /** The body sent, parsed, for a POST. */
  sent: Record<string, unknown> | undefined;
  status: number;
  answer: unknown;
}

export interface DemoService {
  key: string;
  /** A gateway on a socket over the demo data, with keys, running only `trusted` when given. */
  serve(trusted?: TrustedDocuments): Promise<ListeningGateway>;
  /** `fetch` with the key, recording each exchange. */
  fetch(exchanges: Exchange[]): typeof fetch;
  close(): Promise<void>;
}

export async function demoService(): Promise<DemoService> {
  const db: Database = await freshDatabase();
  await importExport(db, demoExportRecords({ now: new Date("2026-11-20T12:00:00Z"), days: 2 }));
  const prisma: ReadClient = createReadClient(db);
  const key = (await new KeyStore(db).create({ name: "frontend", perMinute: 10_000 })).key;
  const open: ListeningGateway[] = [];
  return {
    key,
    async serve(trusted) {
      const gateway = createGateway({
        db,
        prisma,
        auth: { keys: new KeyStore(db), limits: new RateLimits({ defaults: { perMinute: 10_000, perDay: 100_000 } }) },
        ...(trusted ? { trustedDocuments: trusted } : {}),
      });
      const listening = await listen(gateway);
      open.push(listening);
      return listening;
    },
    fetch(exchanges) {
      return async (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set("authorization", `Bearer ${key}`);
        const response = await fetch(input, { ...init, headers });
        const text = await response.clone().text();
        exchanges.push({
          method: init?.method ?? "GET",
          url: String(input),
          sent: typeof init?.body === "string" ? (JSON.parse(init.body) as Record<string, unknown>) : undefined,
          status: response.status,
          answer: text ? JSON.parse(text) : undefined,
        });
        return response;
      };
    },
    async close() {
      for (const server of open) await server.close();
      await prisma.$disconnect();
      await db.close();
    },
  };
}
