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

/** Until when a request's answer stays true while the data stays (Context.validity). */
export interface Validity {
  until: number;
}

/** Loaders for one request at `now`; answers that move with the clock lower `validity`. */
export function createLoaders(prisma: ReadClient, now: Date, validity: Validity): Loaders {
  const valid = <T extends { validUntil: number }>(answers: Map<number, T>) => {
    for (const answer of answers.values()) validity.until = Math.min(validity.until, answer.validUntil);
    return answers;
  };
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
        const found = valid(await snapshots(prisma, schools, now));
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
          for (const [id, h] of valid(await histories(prisma, schools, days, now))) results.set(`${id}:${days}`, h);
        }
        return asks.map(({ school, days }) => results.get(`${school.id}:${days}`) ?? new Error(`no history for school ${school.id}`));
      },
      { cacheKeyFn: ({ school, days }) => `${school.id}:${days}` },
    ),
  };
}
