-- Each school's environment snapshot (GET /api/v1/environment/snapshot and
-- /schools/{ref}), computed once when the data changes instead of per
-- request (src/environment/stored.ts), with the span of instants it is true
-- for: from the instant it was computed for until the first one at which it
-- may differ while the data stays (src/domain/environment/validity.ts).
--
-- data_version counts the commits that changed the public data; every such
-- commit (src/db/changes.ts) adds one and empties school_snapshot in its own
-- transaction, so no snapshot outlives the data it was computed from, and a
-- snapshot computed from an older version is never stored.

CREATE TABLE "data_version" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "version" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "data_version_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "data_version_one_row" CHECK ("id")
);
INSERT INTO "data_version" ("id", "version") VALUES (true, 0);

CREATE TABLE "school_snapshot" (
    "university_id" INTEGER NOT NULL,
    "computed_at" TIMESTAMPTZ(3) NOT NULL,
    "valid_until" TIMESTAMPTZ(3) NOT NULL,
    "body" JSONB NOT NULL,
    CONSTRAINT "school_snapshot_pkey" PRIMARY KEY ("university_id"),
    CONSTRAINT "school_snapshot_university_id_fkey" FOREIGN KEY ("university_id") REFERENCES "university"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
