-- Who uses what (issue 55): per UTC day, per API key and per coordinate (a
-- GraphQL schema coordinate such as `Query.courses(q:)`, a REST route or one
-- of its parameters, an MCP tool, an entry point), how many requests used it
-- and when last. Each gateway process adds its counts in batches
-- (src/usage/recorder.ts); rows older than 400 days are deleted by the
-- gateway. No value a client sent is stored, only names.

-- Each coordinate's name once: the daily rows hold its id (a row is then about
-- half the size). The names are the schema's, the routes' and the tools': a
-- few hundred.
CREATE TABLE "usage_coordinate" (
    "id" SERIAL NOT NULL,
    "coordinate" TEXT NOT NULL,
    CONSTRAINT "usage_coordinate_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "usage_coordinate_coordinate_key" ON "usage_coordinate"("coordinate");

CREATE TABLE "usage_day" (
    "day" DATE NOT NULL,
    "key_id" INTEGER NOT NULL,
    "coordinate_id" INTEGER NOT NULL,
    "requests" INTEGER NOT NULL,
    "last_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "usage_day_pkey" PRIMARY KEY ("day", "key_id", "coordinate_id")
);
-- Today's rows are updated at every write (requests, last_at: no index holds
-- them), so each page keeps room for the new versions: PostgreSQL then updates
-- in place (HOT), without a new entry in every index.
ALTER TABLE "usage_day" SET (fillfactor = 70);

-- A key's days (My API Keys), and a coordinate's days (npm run usage, the removal check).
CREATE INDEX "usage_day_key_id_day_idx" ON "usage_day"("key_id", "day");
CREATE INDEX "usage_day_coordinate_id_day_idx" ON "usage_day"("coordinate_id", "day");
