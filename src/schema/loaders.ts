/**
 * Per-request DataLoaders for lookups the Prisma plugin cannot fold into the
 * parent query (aggregates keyed by a non-relation column).
 */
import DataLoader from "dataloader";
import type { ReadClient } from "../db/client.js";

export interface Loaders {
  /** Number of papers whose `conference` is the given conference slug. */
  paperCountByConference: DataLoader<string, number>;
}

export function createLoaders(prisma: ReadClient): Loaders {
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
  };
}
