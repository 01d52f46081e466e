-- Money cannot leak (contract section 14): token counts up to 2^53 are stored and billed. The
-- ledger token columns were INTEGER (2^31 - 1), so a larger usage could never be recorded. The
-- per-day rollups were BIGINT already. The type change rebuilds the indexes of usage_records.

-- AlterTable
ALTER TABLE "usage_records" ALTER COLUMN "input_tokens" SET DATA TYPE BIGINT,
ALTER COLUMN "output_tokens" SET DATA TYPE BIGINT,
ALTER COLUMN "cached_input_tokens" SET DATA TYPE BIGINT,
ALTER COLUMN "cache_write_tokens" SET DATA TYPE BIGINT,
ALTER COLUMN "reasoning_tokens" SET DATA TYPE BIGINT,
ALTER COLUMN "cache_write_1h_tokens" SET DATA TYPE BIGINT,
ALTER COLUMN "web_search_requests" SET DATA TYPE BIGINT;
