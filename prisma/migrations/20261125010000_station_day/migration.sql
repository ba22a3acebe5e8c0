-- Each station's daily aggregates per local date, in every time zone a school
-- is in: what a history reads for its complete days instead of the hourly
-- rows (90 days of 30 stations were 64,800 rows to aggregate per request; now
-- 2,700 small ones). The importer rebuilds it in the import's transaction
-- (src/import/daily.ts); the day that is still going on is always aggregated
-- from the observations, so "so far" keeps its meaning.

CREATE TABLE "station_day" (
    "station_id" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "date" DATE NOT NULL,
    "temp_avg" DOUBLE PRECISION,
    "temp_min" DOUBLE PRECISION,
    "temp_max" DOUBLE PRECISION,
    "rh_avg" DOUBLE PRECISION,
    "precip_total" DOUBLE PRECISION,
    "pm25_avg" DOUBLE PRECISION,
    "pm10_avg" DOUBLE PRECISION,
    "aqi_avg" DOUBLE PRECISION,
    CONSTRAINT "station_day_pkey" PRIMARY KEY ("timezone", "station_id", "date"),
    CONSTRAINT "station_day_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- The data already imported.
INSERT INTO "station_day"
SELECT o.station_id, z.timezone, (o.observed_at AT TIME ZONE z.timezone)::date,
       avg(o.temp_c), min(o.temp_c), max(o.temp_c), avg(o.rh), sum(o.precip_mm),
       avg(o.pm25_ugm3), avg(o.pm10_ugm3), avg(o.aqi)
  FROM "observation" o
 CROSS JOIN (SELECT DISTINCT timezone FROM "university") z
 GROUP BY 1, 2, 3;
