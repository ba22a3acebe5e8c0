/**
 * A gateway over a fresh database holding an export, for tests that call
 * `gateway.fetch` without opening a socket. Every SQL statement is recorded.
 */
import { createReadClient } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { createGateway, type Gateway, type GatewayOptions } from "../../src/server.js";
import { freshDatabase, importObject } from "./databases.js";

export interface TestGateway {
  gateway: Gateway;
  db: Database;
  /** SQL statements sent since the last `statements.length = 0`. */
  statements: string[];
  /** POSTs a GraphQL request and returns the parsed body. */
  graphql(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<GraphQLBody>;
  close(): Promise<void>;
}

export interface GraphQLBody {
  data?: Record<string, any> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

export async function testGateway(
  exportObject: unknown,
  options: { db?: Database; gateway?: Partial<GatewayOptions> } = {},
): Promise<TestGateway> {
  const db = options.db ?? (await freshDatabase());
  await importObject(db, exportObject);
  const statements: string[] = [];
  const prisma = createReadClient(db, { onQuery: (e) => statements.push(e.query) });
  const gateway = createGateway({ db, prisma, auth: false, ...options.gateway });
  return {
    gateway,
    db,
    statements,
    async graphql(query, variables, headers = {}) {
      const response = await gateway.fetch("http://gateway.test/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as GraphQLBody;
    },
    async close() {
      await prisma.$disconnect();
      await db.close();
    },
  };
}
