-- Who uses what (issue 55): per UTC day, per API key and per coordinate (a
-- GraphQL schema coordinate such as `Query.courses(q:)`, a REST route or one
-- of its parameters, an MCP tool, an entry point), how many requests used it
-- and when last. Each gateway process adds its counts in batches
-- (src/usage/recorder.ts); rows older than 400 days are deleted by the
-- gateway. No value a client sent is stored, only names.
CREATE TABLE "usage_day" (
    "day" DATE NOT NULL,
    "key_id" INTEGER NOT NULL,
    "coordinate" TEXT NOT NULL,
    "requests" INTEGER NOT NULL,
    "last_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "usage_day_pkey" PRIMARY KEY ("day", "key_id", "coordinate")
);

-- A key's days (My API Keys), and a coordinate's days (npm run usage, the removal check).
CREATE INDEX "usage_day_key_id_day_idx" ON "usage_day"("key_id", "day");
CREATE INDEX "usage_day_coordinate_day_idx" ON "usage_day"("coordinate", "day");
