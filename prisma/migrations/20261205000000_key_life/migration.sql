-- A key's life (issue 67): an optional expiry, and rolling. Existing keys get
-- neither: they keep working, with no expiry, as before.
--
-- Rolling gives a key a new secret (`hash`, `prefix`) and keeps the one it
-- replaces in `previous_hash` until `previous_until`, the overlap the holder
-- chose (with no overlap, the instant of the roll, so that the old secret is
-- refused as replaced rather than unknown). Only the last replaced secret is kept:
-- a second roll ends the first one's overlap. The gateway compares
-- `previous_until` and `expires_at` with its clock on every request, so an old
-- secret or an expired key stops on every process at that instant, however
-- long a verification is cached.
ALTER TABLE "api_key" ADD COLUMN "expires_at" TIMESTAMPTZ(3);
ALTER TABLE "api_key" ADD COLUMN "rolled_at" TIMESTAMPTZ(3);
ALTER TABLE "api_key" ADD COLUMN "previous_hash" TEXT;
ALTER TABLE "api_key" ADD COLUMN "previous_until" TIMESTAMPTZ(3);
ALTER TABLE "api_key" ADD CONSTRAINT "api_key_previous_check"
    CHECK (("previous_hash" IS NULL) = ("previous_until" IS NULL));
CREATE UNIQUE INDEX "api_key_previous_hash_key" ON "api_key"("previous_hash");
