import { getIntrospectionQuery } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GuardViolation } from "../../src/db/guards.js";
import { CANARIES, canaryExport, EVERYTHING, globalId } from "../support/canary.js";
import { type TestGateway, testGateway } from "../support/gateway.js";

describe("guards on /graphql (canary export)", () => {
  let t: TestGateway;
  beforeAll(async () => {
    // The crawl is one document over every field on purpose, far costlier than any client's.
    t = await testGateway(canaryExport(), { gateway: { queryLimits: { maxCost: 10_000_000 } } });
  });
  afterAll(() => t.close());

  it("no query, introspection included, returns a guarded value", async () => {
    const bodies = [await t.graphql(EVERYTHING), await t.graphql(getIntrospectionQuery())];
    expect(bodies[0]?.errors).toBeUndefined();
    const text = JSON.stringify(bodies);
    for (const canary of CANARIES) expect(text).not.toContain(canary);
    // The query did reach the public data (so the absence above means something).
    expect(text).toContain("公開課程1");
    expect(text).toContain("Fractions Quiz");
  });

  it("private courses and hidden Packs are unreachable by id, node and relation", async () => {
    const body = await t.graphql(EVERYTHING);
    const data = body.data!;
    expect(data.private).toBeNull();
    expect(data.hidden).toBeNull();
    expect(data.link).toBeNull();
    expect(data.pending).toBeNull();
    expect(data.nodes).toEqual([null, null, null]);
    expect(data.courses.totalCount).toBe(4);
    expect(data.courses.nodes.map((c: { databaseId: number }) => c.databaseId)).toEqual([4, 1, 3, 6]);
    expect(data.universities.nodes.map((u: any) => u.courses.totalCount)).toEqual([2, 1, 1]);
    expect(data.courseStats.nodes).toEqual([
      { key: "NTHU", courseCount: 1, instructorCount: 1 },
      { key: "NTU", courseCount: 2, instructorCount: 2 },
      { key: "UW", courseCount: 1, instructorCount: 1 },
    ]);
    expect(data.hubPacks.totalCount).toBe(1);
    expect(data.hubPacks.nodes[0].versions.map((v: { version: string }) => v.version)).toEqual(["1.10.0", "1.9.0"]);
  });

  it("a public object's node(id) does resolve (the nulls above are the guard, not a broken node field)", async () => {
    const body = await t.graphql(`{ node(id: "${globalId("Course", 1)}") { ... on Course { databaseId } } }`);
    expect(body.data?.node).toEqual({ databaseId: 1 });
  });

  it("the read client itself refuses guarded columns and writes, and filters hidden rows", async () => {
    const { createReadClient } = await import("../../src/db/client.js");
    const prisma = createReadClient(t.db);
    await expect(prisma.course.findMany({ select: { joinCode: true } as never })).rejects.toBeInstanceOf(GuardViolation);
    await expect(prisma.course.findMany({ where: { joinCode: "CANARY-JOIN-CODE-2" } as never })).rejects.toBeInstanceOf(GuardViolation);
    await expect(prisma.hubPack.findMany({ omit: { payload: false } as never })).rejects.toBeInstanceOf(GuardViolation);
    await expect(prisma.course.groupBy({ by: ["joinCode"] as never, _count: true } as never)).rejects.toBeInstanceOf(GuardViolation);
    await expect(prisma.course.deleteMany({})).rejects.toBeInstanceOf(GuardViolation);
    // Prisma's own transaction and extended clients would be unguarded: the read client has neither.
    expect(() => prisma.$transaction).toThrow(GuardViolation);
    expect(() => prisma.$extends).toThrow(GuardViolation);
    expect(await prisma.course.findUnique({ where: { id: 2 } })).toBeNull();
    expect((await prisma.course.findUnique({ where: { id: 1 } }))?.id).toBe(1);
    expect(await prisma.course.findMany({ where: { isPublic: false } })).toEqual([]);
    expect(await prisma.course.count()).toBe(4);
    const nested = await prisma.university.findMany({ include: { courses: true, _count: { select: { courses: true } } } });
    expect(nested.flatMap((u) => u.courses.map((c) => c.id)).sort()).toEqual([1, 3, 4, 6]);
    expect(nested.map((u) => u._count.courses)).toEqual([2, 1, 1]);
    const filtered = await prisma.university.findMany({ where: { courses: { some: { isPublic: false } } } });
    expect(filtered).toEqual([]);
    const packs = await prisma.hubPack.findMany({ include: { versions: true } });
    expect(JSON.stringify(packs)).not.toContain("CANARY");
    expect(packs.map((p) => p.id)).toEqual(["pk_public"]);
    await prisma.$disconnect();
  });

  it("the read client captures no call site: a query makes no Error for Prisma to print a code frame from (src/db/client.ts)", async () => {
    const { createReadClient } = await import("../../src/db/client.js");
    const prisma = createReadClient(t.db);
    await prisma.course.findMany({ take: 1 });
    const Original = globalThis.Error;
    let made = 0;
    globalThis.Error = new Proxy(Original, {
      construct(target, args, newTarget) {
        made += 1;
        return Reflect.construct(target, args, newTarget) as object;
      },
    });
    try {
      expect((await prisma.course.findMany({ take: 2, select: { id: true } })).length).toBe(2);
    } finally {
      globalThis.Error = Original;
    }
    // Prisma's default format makes one (its "call site", a stack trace) on every query.
    expect(made).toBe(0);
    await prisma.$disconnect();
  });
});
