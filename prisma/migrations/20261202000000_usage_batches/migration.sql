-- Each batch of usage counts a gateway process has added to usage_day (issue
-- 68), by an id the process chose: the batch and its counts are written in one
-- statement, and a batch whose id is here already adds nothing. So a batch
-- sent again after its reply was lost (a client-side timeout after the
-- server's commit, a connection cut after it) is counted once. The gateway
-- deletes ids older than 7 days; no process keeps a batch that long.
CREATE TABLE "usage_batch" (
    "id" UUID NOT NULL,
    "written_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "usage_batch_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "usage_batch_written_at_idx" ON "usage_batch"("written_at");
