-- The daily aggregates take the names the contract gives them (temp_c_avg,
-- precip_total_mm, …), as the observation columns they aggregate do
-- (temp_c, precip_mm): one value, one name in the database and in REST.

ALTER TABLE "station_day" RENAME COLUMN "temp_avg" TO "temp_c_avg";
ALTER TABLE "station_day" RENAME COLUMN "temp_min" TO "temp_c_min";
ALTER TABLE "station_day" RENAME COLUMN "temp_max" TO "temp_c_max";
ALTER TABLE "station_day" RENAME COLUMN "precip_total" TO "precip_total_mm";
