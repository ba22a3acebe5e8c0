-- Each school's environment values for each past local date (the daily part
-- of GET /api/v1/environment/schools/{ref}/history), computed with the
-- snapshots when the data changes or a school's local date turns
-- (src/environment/stored.ts): up to 90 dates before the local date the
-- school's stored snapshot was computed for. A date without any value has no
-- row. Emptied with the snapshots by every change of the data
-- (src/db/changes.ts).
--
-- data_version.days_for names the data version and the local dates the rows
-- were computed for (NULL: none), so a refresh recomputes them only when
-- either moved, in whatever process, and a restored database brings its own.

CREATE TABLE "school_day" (
    "university_id" INTEGER NOT NULL,
    "date" DATE NOT NULL,
    "body" JSONB NOT NULL,
    CONSTRAINT "school_day_pkey" PRIMARY KEY ("university_id", "date"),
    CONSTRAINT "school_day_university_id_fkey" FOREIGN KEY ("university_id") REFERENCES "university"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

ALTER TABLE "data_version" ADD COLUMN "days_for" TEXT;
