/**
 * Per-request DataLoaders for lookups the Prisma plugin cannot fold into the
 * parent query (aggregates keyed by a non-relation column).
 */
import DataLoader from "dataloader";
import type { ReadClient } from "../db/client.js";
import { type School, type Snapshot, snapshots } from "../environment/service.js";

export interface Loaders {
  /** Number of papers whose `conference` is the given conference slug. */
  paperCountByConference: DataLoader<string, number>;
  /** Environment snapshot of a school, all schools of a request computed together. */
  snapshot: DataLoader<School, Snapshot, number>;
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
  };
}
