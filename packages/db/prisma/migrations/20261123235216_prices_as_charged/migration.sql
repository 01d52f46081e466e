-- Prices as the providers charge them (contract section 12). Existing ledger rows keep their
-- cost_nano untouched: their new parts (cache_write_1h_tokens, web_search_requests) are 0, and no
-- row is re-priced. Models get the contract's cache-write defaults (1.25x and 2x input, rounded up
-- to a whole pico), as the next gateway file apply would give them. Only future writes change.

-- DropIndex
DROP INDEX "usage_key_days_vendor_report_idx";

-- DropIndex
DROP INDEX "usage_records_vendor_ledger_idx";

-- AlterTable
ALTER TABLE "models" ADD COLUMN     "cache_write_1h_price" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "cache_write_price" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "price_tiers" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "request_price" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "web_search_price" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "server_option_models" ADD COLUMN     "cache_write_1h_price" BIGINT,
ADD COLUMN     "cache_write_price" BIGINT,
ADD COLUMN     "price_tiers" JSONB,
ADD COLUMN     "request_price" BIGINT,
ADD COLUMN     "web_search_price" BIGINT;

-- AlterTable
ALTER TABLE "usage_aggregates" ADD COLUMN     "cache_write_1h_tokens" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "web_search_requests" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "usage_key_days" ADD COLUMN     "cache_write_1h_tokens" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "web_search_requests" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "usage_records" ADD COLUMN     "cache_write_1h_tokens" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "web_search_requests" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "usage_vendor_days" ADD COLUMN     "cache_write_1h_tokens" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "web_search_requests" BIGINT NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "usage_key_days_vendor_report_idx" ON "usage_key_days"("vendor_id", "day", "api_key_id", "requests", "input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens", "reasoning_tokens", "images", "cost_nano", "cache_write_1h_tokens", "web_search_requests");

-- CreateIndex
CREATE INDEX "usage_records_vendor_ledger_idx" ON "usage_records"("vendor_id", "finished_at", "request_id", "api_key_id", "model", "status", "input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens", "reasoning_tokens", "images", "cost_nano", "cache_write_1h_tokens", "web_search_requests");

-- Backfill: the cache-write defaults of existing models.
UPDATE "models" SET "cache_write_price" = ("input_price" * 5 + 3) / 4, "cache_write_1h_price" = "input_price" * 2;
