-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "budget_nano" BIGINT,
ADD COLUMN     "budget_period" TEXT,
ADD COLUMN     "previous_key_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "previous_key_hash" TEXT,
ADD COLUMN     "revision" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "usage_aggregates" ADD COLUMN     "cache_write_tokens" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "reasoning_tokens" BIGINT NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "audit_log" (
    "id" TEXT NOT NULL,
    "vendor_id" TEXT NOT NULL,
    "token_id" TEXT,
    "request_id" TEXT,
    "action" TEXT NOT NULL,
    "key_id" TEXT,
    "changes" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_log_vendor_id_created_at_id_idx" ON "audit_log"("vendor_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_previous_key_hash_key" ON "api_keys"("previous_key_hash");

-- CreateIndex
CREATE INDEX "usage_records_vendor_id_model_finished_at_idx" ON "usage_records"("vendor_id", "model", "finished_at");

-- AddForeignKey
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_vendor_id_fkey" FOREIGN KEY ("vendor_id") REFERENCES "vendors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: the per-day aggregates now keep cache writes and reasoning tokens apart, as the ledger does.
UPDATE "usage_aggregates" AS a
SET "cache_write_tokens" = s.cache_write_tokens, "reasoning_tokens" = s.reasoning_tokens
FROM (
    SELECT "api_key_id", "model", ("finished_at" AT TIME ZONE 'UTC')::date AS day,
           SUM("cache_write_tokens")::bigint AS cache_write_tokens, SUM("reasoning_tokens")::bigint AS reasoning_tokens
    FROM "usage_records"
    GROUP BY 1, 2, 3
) AS s
WHERE a."api_key_id" = s."api_key_id" AND a."model" = s."model" AND a."day" = s.day;
