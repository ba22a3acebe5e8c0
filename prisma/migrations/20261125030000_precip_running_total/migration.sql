-- The running precipitation totals a weather agency reports (CWA's
-- Now.Precipitation: millimetres since local midnight), kept as reported so
-- that the next hour's amount can be worked out from them when it arrives
-- (src/ingest/store.ts): an hour's amount is its total minus the previous
-- hour's, and the previous hour is usually in an earlier payload.

CREATE TABLE "precip_running_total" (
    "station_id" TEXT NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "total_mm" DOUBLE PRECISION NOT NULL,
    CONSTRAINT "precip_running_total_pkey" PRIMARY KEY ("station_id", "observed_at"),
    CONSTRAINT "precip_running_total_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
