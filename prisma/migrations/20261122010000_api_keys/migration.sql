-- API keys: SHA-256 hashes only, with a non-secret prefix for identification.

CREATE TABLE "api_key" (
    "id" SERIAL NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "owner" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),
    "per_minute" INTEGER,
    "per_day" INTEGER,
    CONSTRAINT "api_key_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "api_key_per_minute_check" CHECK ("per_minute" IS NULL OR "per_minute" > 0),
    CONSTRAINT "api_key_per_day_check" CHECK ("per_day" IS NULL OR "per_day" > 0)
);
CREATE UNIQUE INDEX "api_key_prefix_key" ON "api_key"("prefix");
CREATE UNIQUE INDEX "api_key_hash_key" ON "api_key"("hash");
