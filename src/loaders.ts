/**
 * Per-request DataLoaders for lookups the Prisma plugin cannot fold into the
 * parent query (aggregates keyed by a non-relation column).
 */
import DataLoader from "dataloader";
import type { ReadClient } from "./db/client.js";
import { type History, histories, type School, type Snapshot, snapshots } from "./environment/service.js";

export interface Loaders {
  /** Number of papers whose `conference` is the given conference slug. */
  paperCountByConference: DataLoader<string, number>;
  /** Environment snapshot of a school, all schools of a request computed together. */
  snapshot: DataLoader<School, Snapshot, number>;
  /** Environment history of a school over some days, schools asked together computed together. */
  history: DataLoader<{ school: School; days: number }, History, string>;
}

export function createLoaders(prisma: ReadClient, now: Date): Loaders {
  return {
    paperCountByConference: new DataLoader(async (slugs) => {
      const rows = await prisma.paper.groupBy({
        by: ["conference"],
        where: { conference: { in: [...slugs] } },
        _count: { _all: true },
      });
      const counts = new Map(rows.map((r) => [r.conference, r._count._all]));
      return slugs.map((slug) => counts.get(slug) ?? 0);
    }),
    snapshot: new DataLoader(
      async (schools) => {
        const found = await snapshots(prisma, schools, now);
        return schools.map((s) => found.get(s.id) ?? new Error(`no snapshot for school ${s.id}`));
      },
      { cacheKeyFn: (school) => school.id },
    ),
    history: new DataLoader(
      async (asks) => {
        const results = new Map<string, History>();
        const byDays = new Map<number, School[]>();
        for (const { school, days } of asks) byDays.set(days, [...(byDays.get(days) ?? []), school]);
        for (const [days, schools] of byDays) {
          for (const [id, h] of await histories(prisma, schools, days, now)) results.set(`${id}:${days}`, h);
        }
        return asks.map(({ school, days }) => results.get(`${school.id}:${days}`) ?? new Error(`no history for school ${school.id}`));
      },
      { cacheKeyFn: ({ school, days }) => `${school.id}:${days}` },
    ),
  };
}
