-- The newest observation each station_day row aggregates. A date that is still
-- going on can then be read from station_day too, when its newest observation
-- is older than the request's instant: the row then holds exactly the hours
-- "so far" (src/environment/repository.ts). Only the rest is aggregated from
-- the hourly rows: in a running service, nothing; the snapshot of 100 schools
-- aggregated today's hours of every candidate station for each request.

ALTER TABLE "station_day" ADD COLUMN "last_observed_at" TIMESTAMPTZ(3);

UPDATE "station_day" d
   SET "last_observed_at" = m.last
  FROM (SELECT o.station_id, z.timezone, (o.observed_at AT TIME ZONE z.timezone)::date AS date, max(o.observed_at) AS last
          FROM "observation" o
         CROSS JOIN (SELECT DISTINCT timezone FROM "university") z
         GROUP BY 1, 2, 3) m
 WHERE d.station_id = m.station_id AND d.timezone = m.timezone AND d.date = m.date;

ALTER TABLE "station_day" ALTER COLUMN "last_observed_at" SET NOT NULL;
