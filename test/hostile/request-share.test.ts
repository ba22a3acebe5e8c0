/**
 * One request's share of the database: at most STATEMENTS_PER_REQUEST of its
 * statements in flight, so a request that asks for many things at once waits
 * in its own queue and another request's statement goes straight to the pool.
 *
 * Statements sleep in PostgreSQL (pg_sleep) so that the bounds are lower
 * bounds of time, which a slow machine cannot break: six 200 ms statements
 * two at a time cannot finish in less than 600 ms.
 */
import { createSchema, createYoga } from "graphql-yoga";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Context, createContext } from "../../src/context.js";
import { createReadClient, queryText, type ReadClient, requestClient, STATEMENTS_PER_REQUEST } from "../../src/db/client.js";
import type { Database } from "../../src/db/driver.js";
import { freshDatabase, importObject } from "../support/databases.js";
import { canaryExport } from "../support/canary.js";

let db: Database;
let prisma: ReadClient;
beforeAll(async () => {
  db = await freshDatabase();
  await importObject(db, canaryExport());
  prisma = createReadClient(db);
});
afterAll(async () => {
  await prisma?.$disconnect();
  await db?.close();
});

const sleep = (ms: number, client: ReadClient = prisma) => client.$queryRawUnsafe(`SELECT 1 AS slept FROM pg_sleep(${ms / 1000})`);
const timed = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

it("lets one request have two statements in flight", () => {
  expect(STATEMENTS_PER_REQUEST).toBe(2);
});

it("runs a request's statements two at a time, and another request's at once", async () => {
  let manyDone = 0;
  const one = requestClient(prisma);
  const many = timed(() => Promise.all(Array.from({ length: 6 }, () => sleep(200, one)))).finally(() => (manyDone = performance.now()));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const other = await timed(() => sleep(10, requestClient(prisma)));
  const otherDone = performance.now();
  expect(await many).toBeGreaterThanOrEqual(590);
  // Not behind the first request's four waiting statements: done while they still run, long before
  // they could all be (an order, not a time, so a loaded machine cannot break it).
  expect(manyDone - otherDone).toBeGreaterThan(200);
  expect(other).toBeLessThan(await many);
});

it("outside a request, statements are not held back", async () => {
  // Six 1 s statements two at a time would take 3 s; side by side, 1 s and whatever a loaded machine
  // adds: an upper bound of time, so it leaves that almost 2 s (with 200 ms statements it left 190 ms).
  expect(await timed(() => Promise.all(Array.from({ length: 6 }, () => sleep(1_000))))).toBeLessThan(2_900);
});

it("holds back the lookups the guards send themselves (findUnique runs as findFirst)", async () => {
  const one = requestClient(prisma);
  const lookup = await timed(async () => {
    const busy = Promise.all([sleep(400, one), sleep(400, one)]); // a Prisma promise starts when awaited
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await one.university.findUnique({ where: { id: 1 } });
    const waited = performance.now() - started;
    await busy;
    expect(waited).toBeGreaterThanOrEqual(300);
  });
  expect(lookup).toBeGreaterThanOrEqual(400);
});

it("holds back the statements the SQL plans send through the driver adapter (queryText), and answers them", async () => {
  const one = requestClient(prisma);
  // Held back, it can only end after one of the two before it has: an order, which no load on the machine changes.
  const ended: string[] = [];
  const busy = Promise.all([sleep(400, one), sleep(400, one)].map((statement) => statement.then(() => ended.push("busy"))));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await queryText(one, "SELECT json_build_array($1::int, $2::text)::text AS body", [7, "x"])).toBe('[7, "x"]');
  ended.push("held back");
  await busy;
  expect(ended[0]).toBe("busy");
  // Outside a request, at once; a statement with no row gives null.
  expect(await queryText(prisma, "SELECT 'a'::text WHERE FALSE", [])).toBeNull();
  expect(() => queryText({} as ReadClient, "SELECT 1", [])).toThrow(/read client/);
});

it("each request's context is one request: its statements, however many a document asks for, go two at a time", async () => {
  const yoga = createYoga<Context>({
    schema: createSchema<Context>({
      typeDefs: "type Query { sleepy(n: Int!): Int! }",
      resolvers: {
        Query: {
          sleepy: async (_: unknown, { n }: { n: number }, ctx: Context) =>
            (await Promise.all(Array.from({ length: n }, () => sleep(200, ctx.prisma)))).length,
        },
      },
    }),
    context: () => createContext(prisma),
  });
  const ms = await timed(async () => {
    const response = await yoga.fetch("http://yoga.test/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ sleepy(n: 4) }" }),
    });
    expect(await response.json()).toEqual({ data: { sleepy: 4 } });
  });
  expect(ms).toBeGreaterThanOrEqual(390);
});

it("a statement that fails, or throws before it is sent, gives its place to the next", async () => {
  const one = requestClient(prisma);
  const failing = () => one.$queryRawUnsafe("SELECT 1 / 0 AS never");
  const failed = await Promise.allSettled([failing(), failing(), failing()]);
  expect(failed.map((f) => f.status)).toEqual(["rejected", "rejected", "rejected"]);
  // A guard refusing its arguments rejects before the share is taken; then two places are still free.
  await expect(one.course.findMany({ select: { joinCode: true } } as never)).rejects.toThrow();
  // Both places are free: the server runs two of this request's statements at once, as counted from outside its share.
  const slept = Promise.all([sleep(600, one), sleep(600, one)]);
  let done = false;
  void slept.finally(() => (done = true));
  let most = 0;
  while (!done && most < 2) {
    const [row] = await prisma.$queryRawUnsafe<{ n: number }[]>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%pg_sleep(0.6)%' AND pid <> pg_backend_pid()",
    );
    most = Math.max(most, row!.n);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await slept;
  expect(most).toBe(2);
  expect(await queryText(one, "SELECT 'after'::text", [])).toBe("after");
});
